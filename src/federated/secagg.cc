#include "federated/secagg.h"

#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/error.h"

namespace mycel::federated::secagg {

namespace {

using u128 = unsigned __int128;
constexpr size_t kPublicBytes = 3 * kSecretBytes;  // c_pk, s_pk, hash of b
constexpr size_t kListedBytes = kPublicBytes + 8;  // ... and the sample count
constexpr size_t kSealedPlain = 2 * kShareBytes;   // the shares of b and of s_sk
constexpr size_t kSealedBytes = crypto_box_NONCEBYTES + crypto_box_MACBYTES + kSealedPlain;
constexpr size_t kChunkBytes = 7;
const char* const kRoundEntry = "";  // the entry of a round's parameters (ids are never empty)
const char* const kKeysEntry = "keys";

[[noreturn]] void bad(const std::string& why) { MC_THROW(Value, "secure aggregation: ", why, "."); }

uint64_t addm(uint64_t a, uint64_t b) {
  uint64_t s = a + b;  // < 2^62
  return s >= kPrime ? s - kPrime : s;
}
uint64_t subm(uint64_t a, uint64_t b) { return a >= b ? a - b : a + kPrime - b; }
uint64_t mulm(uint64_t a, uint64_t b) {
  u128 p = static_cast<u128>(a) * b;  // < 2^122
  uint64_t r = static_cast<uint64_t>(p & kPrime) + static_cast<uint64_t>(p >> 61);
  return r >= kPrime ? r - kPrime : r;
}
uint64_t powm(uint64_t a, uint64_t e) {
  uint64_t r = 1;
  for (; e; e >>= 1, a = mulm(a, a))
    if (e & 1) r = mulm(r, a);
  return r;
}
uint64_t invm(uint64_t a) { return powm(a, kPrime - 2); }  // Fermat; a != 0

uint64_t random_element() {  // uniform in [0, p) by rejection
  for (;;) {
    uint64_t v;
    randombytes_buf(&v, sizeof v);
    v &= kPrime;  // 61 bits
    if (v < kPrime) return v;
  }
}

template <class T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}
template <class T>
T get(std::string_view b, size_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

Param blob(const std::string& name, std::string bytes) {
  Param p;
  p.name = name;
  p.dtype = DType::UInt8;
  p.shape = {static_cast<int64_t>(bytes.size())};
  p.bytes = std::move(bytes);
  return p;
}
// The bytes of a payload entry, which must be UInt8 of rank 1 and `size` bytes (any: npos).
const std::string& blob_of(const Param& p, size_t size, const char* what) {
  if (p.dtype != DType::UInt8 || p.shape.size() != 1)
    bad(str("the ", what, " entry '", printable(p.name), "' must be UInt8 bytes of rank 1"));
  if (size != std::string::npos && p.bytes.size() != size)
    bad(str("the ", what, " entry '", printable(p.name), "' has ", p.bytes.size(), " bytes, not ",
            size));
  return p.bytes;
}
Secret secret_at(std::string_view b, size_t at) {
  Secret s;
  std::memcpy(s.data(), b.data() + at, kSecretBytes);
  return s;
}
std::string_view view(const Secret& s) {
  return {reinterpret_cast<const char*>(s.data()), s.size()};
}
Secret hash_of(const Secret& b) {
  Secret h;
  crypto_generichash(h.data(), h.size(), b.data(), b.size(), nullptr, 0);
  return h;
}
// The point x (1-based) of each client of U1': its rank in id order.
uint32_t point_of(const std::map<std::string, PeerKeys>& u1, const std::string& id) {
  auto it = u1.find(id);
  MC_CHECK(it != u1.end(), Value, "secure aggregation: '", printable(id), "' is not in U1'.");
  return static_cast<uint32_t>(std::distance(u1.begin(), it)) + 1;
}

}  // namespace

// ---- Shamir ----

std::vector<Share> shamir_split(const Secret& secret, uint32_t n, uint32_t t) {
  MC_CHECK(t >= 1 && t <= n, Value, "shamir_split: the threshold must be in [1, n = ", n, "], got ",
           t, ".");
  std::vector<Share> out(n);
  for (uint32_t i = 0; i < n; ++i) out[i].x = i + 1;
  std::vector<uint64_t> coef(t);
  for (size_t c = 0; c < kChunks; ++c) {
    uint64_t v = 0;
    const size_t from = c * kChunkBytes, len = std::min(kChunkBytes, kSecretBytes - from);
    std::memcpy(&v, secret.data() + from, len);
    coef[0] = v;
    for (uint32_t k = 1; k < t; ++k) coef[k] = random_element();
    for (Share& s : out) {  // Horner
      uint64_t y = 0;
      for (uint32_t k = t; k-- > 0;) y = addm(mulm(y, s.x), coef[k]);
      s.y[c] = y;
    }
    sodium_memzero(coef.data(), coef.size() * sizeof(uint64_t));
  }
  return out;
}

Secret shamir_combine(const std::vector<Share>& shares) {
  MC_CHECK(!shares.empty(), Value, "shamir_combine: no shares.");
  std::vector<uint64_t> lagrange(shares.size());
  for (size_t i = 0; i < shares.size(); ++i) {
    MC_CHECK(shares[i].x != 0, Value, "shamir_combine: a share at point 0.");
    uint64_t num = 1, den = 1;
    for (size_t j = 0; j < shares.size(); ++j) {
      if (j == i) continue;
      MC_CHECK(shares[j].x != shares[i].x, Value, "shamir_combine: two shares at point ",
               shares[i].x, ".");
      num = mulm(num, shares[j].x);
      den = mulm(den, subm(shares[j].x, shares[i].x));
    }
    lagrange[i] = mulm(num, invm(den));
  }
  Secret out{};
  for (size_t c = 0; c < kChunks; ++c) {
    uint64_t v = 0;
    for (size_t i = 0; i < shares.size(); ++i) v = addm(v, mulm(shares[i].y[c], lagrange[i]));
    const size_t from = c * kChunkBytes, len = std::min(kChunkBytes, kSecretBytes - from);
    MC_CHECK(v >> (8 * len) == 0, Value,
             "shamir_combine: the shares do not rebuild a secret (a share is wrong).");
    std::memcpy(out.data() + from, &v, len);
  }
  return out;
}

std::string share_bytes(const Share& s) {
  std::string out;
  put<uint32_t>(out, s.x);
  for (uint64_t y : s.y) put<uint64_t>(out, y);
  return out;
}

Share share_from_bytes(std::string_view b) {
  if (b.size() != kShareBytes) bad(str("a share has ", b.size(), " bytes, not ", kShareBytes));
  Share s;
  s.x = get<uint32_t>(b, 0);
  if (s.x == 0) bad("a share at point 0");
  for (size_t c = 0; c < kChunks; ++c) {
    s.y[c] = get<uint64_t>(b, 4 + 8 * c);
    if (s.y[c] >= kPrime) bad("a share's value lies outside the field");
  }
  return s;
}

// ---- masks ----

void add_mask(std::vector<uint32_t>& ring, const Secret& seed, int sign) {
  constexpr size_t kBlock = 4096;  // u32 per keystream chunk (256 ChaCha20 blocks)
  static const uint8_t zeros[kBlock * 4] = {};
  uint8_t nonce[crypto_stream_chacha20_NONCEBYTES] = {};
  uint32_t stream[kBlock];
  for (size_t at = 0; at < ring.size(); at += kBlock) {
    const size_t n = std::min(kBlock, ring.size() - at);
    crypto_stream_chacha20_xor_ic(reinterpret_cast<uint8_t*>(stream), zeros, n * 4, nonce, at / 16,
                                  seed.data());
    if (sign > 0) {
      for (size_t i = 0; i < n; ++i) ring[at + i] += stream[i];
    } else {
      for (size_t i = 0; i < n; ++i) ring[at + i] -= stream[i];
    }
  }
}

Secret pair_seed(const Secret& my_sk, const Secret& my_pk, const Secret& their_pk) {
  Secret q;
  if (crypto_scalarmult(q.data(), my_sk.data(), their_pk.data()) != 0)
    bad("a degenerate X25519 public key");
  const bool mine_first = std::memcmp(my_pk.data(), their_pk.data(), kSecretBytes) < 0;
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, kSecretBytes);
  crypto_generichash_update(&st, q.data(), q.size());
  crypto_generichash_update(&st, (mine_first ? my_pk : their_pk).data(), kSecretBytes);
  crypto_generichash_update(&st, (mine_first ? their_pk : my_pk).data(), kSecretBytes);
  Secret seed;
  crypto_generichash_final(&st, seed.data(), seed.size());
  sodium_memzero(q.data(), q.size());
  return seed;
}

// ---- the client ----

Client::Client(std::string id) : id_(std::move(id)) {
  MC_CHECK(sodium_init() >= 0, Runtime, "secure aggregation: libsodium failed to initialise.");
  crypto_box_keypair(c_pk_.data(), c_sk_.data());
  randombytes_buf(s_sk_.data(), s_sk_.size());
  crypto_scalarmult_base(s_pk_.data(), s_sk_.data());
  randombytes_buf(b_.data(), b_.size());
}

Weights Client::keys() const {
  std::string bytes;
  bytes.append(view(c_pk_)).append(view(s_pk_)).append(view(hash_of(b_)));
  return {blob(kKeysEntry, std::move(bytes))};
}

Weights Client::shares(const Weights& key_list, uint64_t data_size) {
  peers_.clear();
  t_ = 0;
  total_ = 0;
  for (const Param& p : key_list) {
    if (p.name == kRoundEntry) {
      t_ = get<uint32_t>(blob_of(p, 4, "round"), 0);
      continue;
    }
    const std::string& b = blob_of(p, kListedBytes, "key list");
    PeerKeys k{secret_at(b, 0), secret_at(b, kSecretBytes), secret_at(b, 2 * kSecretBytes),
               get<uint64_t>(b, kPublicBytes)};
    if (k.data_size == 0 || k.data_size > (uint64_t{1} << 40))
      bad(str("client '", printable(p.name), "' is listed with ", k.data_size, " samples"));
    total_ += k.data_size;
    peers_.emplace(p.name, k);
  }
  auto me = peers_.find(id_);
  if (me == peers_.end() || me->second.c_pk != c_pk_ || me->second.s_pk != s_pk_)
    bad(str("the key list does not hold client '", printable(id_), "' with its keys"));
  if (me->second.data_size != data_size)
    bad(str("the key list gives client '", printable(id_), "' ", me->second.data_size,
            " samples, not ", data_size));
  const auto n = static_cast<uint32_t>(peers_.size());
  if (t_ < 1 || t_ > n)
    bad(str("the threshold ", t_, " is not in [1, ", n, "] (the clients that sent keys)"));
  data_size_ = data_size;
  std::vector<Share> sb = shamir_split(b_, n, t_), ss = shamir_split(s_sk_, n, t_);
  Weights out;
  held_.clear();
  uint32_t x = 0;
  for (const auto& [id, k] : peers_) {
    ++x;
    if (id == id_) {
      held_[id] = {sb[x - 1], ss[x - 1]};
      continue;
    }
    std::string plain = share_bytes(sb[x - 1]) + share_bytes(ss[x - 1]);
    std::string box(kSealedBytes, '\0');
    auto* out8 = reinterpret_cast<uint8_t*>(box.data());
    randombytes_buf(out8, crypto_box_NONCEBYTES);
    if (crypto_box_easy(out8 + crypto_box_NONCEBYTES,
                        reinterpret_cast<const uint8_t*>(plain.data()), plain.size(), out8,
                        k.c_pk.data(), c_sk_.data()) != 0)
      bad(str("client '", printable(id), "' has a degenerate encryption key"));
    sodium_memzero(plain.data(), plain.size());
    out.push_back(blob(id, std::move(box)));
  }
  return out;
}

void Client::accept_shares(const Weights& sealed) {
  const uint32_t mine = point_of(peers_, id_);
  for (const Param& p : sealed) {
    const std::string& box = blob_of(p, kSealedBytes, "secrets");
    auto from = peers_.find(p.name);
    if (from == peers_.end() || p.name == id_)
      bad(str("shares from '", printable(p.name), "', who is not another client of the round"));
    std::string plain(kSealedPlain, '\0');
    const auto* b8 = reinterpret_cast<const uint8_t*>(box.data());
    if (crypto_box_open_easy(reinterpret_cast<uint8_t*>(plain.data()), b8 + crypto_box_NONCEBYTES,
                             box.size() - crypto_box_NONCEBYTES, b8, from->second.c_pk.data(),
                             c_sk_.data()) != 0)
      bad(str("the shares from '", printable(p.name), "' do not open (forged or misaddressed)"));
    Share sb = share_from_bytes(std::string_view(plain).substr(0, kShareBytes));
    Share ss = share_from_bytes(std::string_view(plain).substr(kShareBytes));
    sodium_memzero(plain.data(), plain.size());
    if (sb.x != mine || ss.x != mine)
      bad(str("the shares from '", printable(p.name), "' are not for this client's point"));
    held_[p.name] = {sb, ss};
  }
  if (held_.size() < t_)
    bad(str(held_.size(), " client(s) shared their secrets, fewer than the threshold ", t_));
}

Weights Client::mask(const Weights& update) const {
  MC_CHECK(!held_.empty() && total_ > 0, Value,
           "secure aggregation: mask() before the shares were exchanged.");
  std::vector<const Param*> sorted;
  for (const Param& p : update) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(),
            [](const Param* a, const Param* b) { return a->name < b->name; });
  std::vector<uint32_t> ring;
  const double scale = std::ldexp(static_cast<double>(data_size_) / total_, kFracBits);
  for (const Param* p : sorted) {
    MC_CHECK(p->dtype == DType::Float32, Type, "secure aggregation: parameter '", p->name, "' is ",
             dtype_name(p->dtype), "; only float32 updates are masked.");
    for (int64_t i = 0, n = p->numel(); i < n; ++i) {
      float v;
      std::memcpy(&v, p->bytes.data() + i * 4, 4);
      MC_CHECK(std::fabs(v) < kMaxAbs, Value, "secure aggregation: parameter '", p->name,
               "' holds ", v, " at flat index ", i, ", outside the fixed-point range (|v| < ",
               kMaxAbs, ").");
      ring.push_back(static_cast<uint32_t>(std::llround(v * scale)));
    }
  }
  add_mask(ring, b_, 1);
  for (const auto& [v, shares] : held_)
    if (v != id_) add_mask(ring, pair_seed(s_sk_, s_pk_, peers_.at(v).s_pk), pair_sign(id_, v));
  Weights out;
  size_t at = 0;
  for (const Param* p : sorted) {
    Param m{p->name, DType::Int32, p->shape, std::string()};
    const size_t n = static_cast<size_t>(p->numel());
    m.bytes.assign(reinterpret_cast<const char*>(ring.data() + at), n * 4);
    at += n;
    out.push_back(std::move(m));
  }
  return out;
}

Weights Client::reveal(const Weights& survivors) const {
  std::set<std::string> u3;
  for (const Param& p : survivors) {
    blob_of(p, 0, "client list");
    if (!held_.count(p.name))
      bad(str("the client list names '", printable(p.name), "', who did not share secrets"));
    u3.insert(p.name);
  }
  if (!u3.count(id_)) bad(str("the client list lacks this client '", printable(id_), "'"));
  if (u3.size() < t_)
    bad(str("only ", u3.size(), " client(s) uploaded, fewer than the threshold ", t_,
            ": no shares are revealed"));
  Weights out;
  for (const auto& [v, shares] : held_)
    out.push_back(blob(v, share_bytes(u3.count(v) ? shares.first : shares.second)));
  return out;
}

// ---- the server ----

ServerRound::ServerRound(uint32_t threshold, const Weights& model) : t_(threshold) {
  for (size_t i = 0; i < model.size(); ++i) order_.push_back(i);
  std::sort(order_.begin(), order_.end(),
            [&](size_t a, size_t b) { return model[a].name < model[b].name; });
  for (size_t i : order_) {
    layout_.push_back(Param{model[i].name, model[i].dtype, model[i].shape, std::string()});
    numel_ += static_cast<size_t>(model[i].numel());
  }
  sum_.assign(numel_, 0);
}

std::string ServerRound::add_keys(const std::string& id, uint64_t data_size,
                                  const Weights& payload) {
  if (keys_.count(id)) return "the client already sent its keys this round";
  if (payload.size() != 1 || payload[0].name != kKeysEntry)
    return "exchangeKeys carries exactly one entry, 'keys'";
  try {
    const std::string& b = blob_of(payload[0], kPublicBytes, "keys");
    PeerKeys k{secret_at(b, 0), secret_at(b, kSecretBytes), secret_at(b, 2 * kSecretBytes),
               data_size};
    keys_.emplace(id, k);
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

Weights ServerRound::key_list() const {
  std::string t;
  put<uint32_t>(t, t_);
  Weights out{blob(kRoundEntry, std::move(t))};
  for (const auto& [id, k] : keys_) {
    std::string b;
    b.append(view(k.c_pk)).append(view(k.s_pk)).append(view(k.b_hash));
    put<uint64_t>(b, k.data_size);
    out.push_back(blob(id, std::move(b)));
  }
  return out;
}

std::string ServerRound::add_shares(const std::string& id, const Weights& payload) {
  if (!keys_.count(id)) return "the client sent no keys this round";
  if (u2_.count(id)) return "the client already shared its secrets this round";
  if (payload.size() != keys_.size() - 1)
    return str("shareSecrets carries ", payload.size(), " entries, not one for each of the ",
               keys_.size() - 1, " other clients");
  std::map<std::string, std::string> boxes;
  for (const Param& p : payload) {
    if (p.name == id || !keys_.count(p.name))
      return str("shares addressed to '", printable(p.name), "', not another client of U1'");
    try {
      boxes[p.name] = blob_of(p, kSealedBytes, "shares");
    } catch (const Error& e) {
      return e.message();
    }
  }
  sealed_[id] = std::move(boxes);
  u2_.insert(id);
  return "";
}

Weights ServerRound::sealed_for(const std::string& id) const {
  Weights out;
  for (const std::string& from : u2_)
    if (from != id) out.push_back(blob(from, sealed_.at(from).at(id)));
  return out;
}

std::string ServerRound::add_masked(const std::string& id, const Weights& payload) {
  if (!u2_.count(id)) return "the client did not share its secrets this round";
  if (u3_.count(id)) return "the client already uploaded this round";
  std::map<std::string_view, const Param*> by_name;
  for (const Param& p : payload) by_name.emplace(p.name, &p);
  if (by_name.size() != layout_.size())
    return str("the masked update has ", payload.size(), " parameters, the model ", layout_.size());
  for (const Param& g : layout_) {
    auto it = by_name.find(g.name);
    if (it == by_name.end()) return str("the masked update lacks '", g.name, "'");
    if (it->second->dtype != DType::Int32 || it->second->shape != g.shape)
      return str("the masked parameter '", g.name, "' must be Int32 of the model's shape");
  }
  size_t at = 0;
  for (const Param& g : layout_) {
    const std::string& b = by_name[g.name]->bytes;
    for (size_t i = 0, n = b.size() / 4; i < n; ++i) sum_[at + i] += get<uint32_t>(b, 4 * i);
    at += b.size() / 4;
  }
  u3_.insert(id);
  return "";
}

Weights ServerRound::client_list() const {
  Weights out;
  for (const std::string& id : u3_) out.push_back(blob(id, ""));
  return out;
}

std::string ServerRound::add_reveal(const std::string& id, const Weights& payload) {
  if (!u3_.count(id)) return "the client did not upload this round";
  if (revealers_.count(id)) return "the client already sent its shares this round";
  if (payload.size() != u2_.size())
    return str("reconstructSecrets carries ", payload.size(), " shares, not one for each of the ",
               u2_.size(), " clients that shared secrets");
  const uint32_t x = point_of(keys_, id);
  std::vector<std::pair<std::string, Share>> got;
  for (const Param& p : payload) {
    if (!u2_.count(p.name))
      return str("a share of '", printable(p.name), "', who did not share secrets");
    try {
      Share s = share_from_bytes(blob_of(p, kShareBytes, "reveal"));
      if (s.x != x) return str("a share at point ", s.x, ", the client's is ", x);
      got.emplace_back(p.name, s);
    } catch (const Error& e) {
      return e.message();
    }
  }
  for (auto& [owner, s] : got) (u3_.count(owner) ? b_shares_ : s_shares_)[owner].push_back(s);
  revealers_.insert(id);
  return "";
}

Weights ServerRound::unmask() const {
  auto rebuild = [&](const std::map<std::string, std::vector<Share>>& all, const std::string& id,
                     const char* what) {
    auto it = all.find(id);
    const size_t have = it == all.end() ? 0 : it->second.size();
    if (have < t_)
      bad(str("only ", have, " share(s) of client '", printable(id), "'s ", what, ", fewer than ",
              "the threshold ", t_));
    try {
      return shamir_combine({it->second.begin(), it->second.begin() + t_});
    } catch (const Error&) {
      bad(str("the shares of client '", printable(id), "'s ", what, " are inconsistent"));
    }
  };
  std::vector<uint32_t> total = sum_;
  uint64_t n_all = 0, n_up = 0;
  for (const auto& [id, k] : keys_) {
    n_all += k.data_size;
    if (u3_.count(id)) n_up += k.data_size;
  }
  for (const std::string& u : u3_) {
    Secret b = rebuild(b_shares_, u, "self-mask seed");
    if (hash_of(b) != keys_.at(u).b_hash)
      bad(str("the shares of client '", printable(u), "'s self-mask seed rebuild a wrong seed"));
    add_mask(total, b, -1);
  }
  for (const std::string& v : u2_) {
    if (u3_.count(v)) continue;
    Secret sk = rebuild(s_shares_, v, "mask key"), pk;
    crypto_scalarmult_base(pk.data(), sk.data());
    if (pk != keys_.at(v).s_pk)
      bad(str("the shares of dropped client '", printable(v), "'s mask key rebuild a wrong key"));
    for (const std::string& u : u3_)
      add_mask(total, pair_seed(sk, pk, keys_.at(u).s_pk), -pair_sign(u, v));
  }
  const double scale =
      std::ldexp(static_cast<double>(n_all) / static_cast<double>(n_up), -kFracBits);
  Weights out(layout_.size());
  size_t at = 0;
  for (size_t j = 0; j < layout_.size(); ++j) {
    Param p = layout_[j];
    const size_t n = static_cast<size_t>(p.numel());
    p.bytes.resize(n * 4);
    for (size_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(static_cast<int32_t>(total[at + i]) * scale);
      std::memcpy(p.bytes.data() + 4 * i, &v, 4);
    }
    at += n;
    out[order_[j]] = std::move(p);
  }
  return out;
}

}  // namespace mycel::federated::secagg
