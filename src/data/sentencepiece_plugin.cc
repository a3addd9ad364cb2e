// The sentencepiece side of dataset.text's SentencePiece support (data/transforms_sentencepiece.h):
// a plugin, libmycel_sentencepiece.so, that mycel loads with dlopen on first use.
//
// Why a plugin: Debian's libsentencepiece carries its own copy of protobuf-lite and exports
// its symbols, which clash with libprotobuf's (the checkpoint and ONNX code link that) when
// both are in one link map: the process crashes in protobuf's static initialisation. Loaded
// with RTLD_LOCAL (and RTLD_DEEPBIND), the plugin and sentencepiece resolve their protobuf
// symbols among themselves. The plugin exports a small C interface only.
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#define MYCEL_SP_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

void set_error(char* err, size_t n, const std::string& msg) {
  if (n > 0) std::snprintf(err, n, "%s", msg.c_str());
}

class Sentences : public sentencepiece::SentenceIterator {
 public:
  Sentences(const char* const* s, const size_t* lens, size_t n) : s_(s), lens_(lens), n_(n) {
    load();
  }
  bool done() const override { return i_ >= n_; }
  void Next() override {
    ++i_;
    load();
  }
  const std::string& value() const override { return cur_; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  void load() {
    if (i_ < n_) cur_.assign(s_[i_], lens_[i_]);
  }
  const char* const* s_;
  const size_t* lens_;
  size_t n_, i_ = 0;
  std::string cur_;
};

// ----- checks of a model before libsentencepiece sees it -----
//
// libsentencepiece (Debian's 0.1.97) trusts the precompiled character map of a model's
// normalizer (NormalizerSpec.precompiled_charsmap, also the denormalizer's): its darts-clone
// trie's offsets and the string offsets its leaves hold are followed without bounds checks,
// so a corrupt or hostile model file made Encode read out of bounds (found by
// fuzz/fuzz_sentencepiece.cc). The map is: uint32 trie size in bytes (little-endian), the
// trie's 32-bit units, then the NUL-terminated replacement strings. A unit holds: bit 8 "has a
// leaf", bits 0-7 and 31 its label, the offset of its children (unit >> 10) << (bit 9 ? 8 :
// 0); a leaf unit's low 31 bits are its value, here an offset into the strings. The library
// walks from unit 0: for each input byte c, child = (node ^ offset(node)) ^ c, then checks the
// child's label; a child with a leaf reads the unit at child ^ offset(child). The check walks
// every node reachable so and refuses a map whose walk could read past the trie (for any byte
// c) or whose leaves name a string past the end or without its NUL.

uint32_t load_u32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

bool charsmap_is_safe(std::string_view blob, std::string* why) {
  if (blob.size() <= 4) return true;  // the library refuses it itself
  const uint32_t trie_bytes = load_u32(blob.data());
  if (trie_bytes >= blob.size()) return true;  // refused by the library too
  const size_t n = trie_bytes / 4;
  const char* trie = blob.data() + 4;
  const std::string_view strings = blob.substr(4 + trie_bytes);
  auto unit = [&](size_t i) { return load_u32(trie + 4 * i); };
  auto offset = [](uint32_t u) -> size_t { return (u >> 10) << ((u & (1u << 9)) >> 6); };
  auto fail = [&](const std::string& what) {
    *why = "its normalization map is corrupt (" + what + ")";
    return false;
  };
  if (n == 0) return fail("an empty trie");
  std::vector<uint8_t> seen(n, 0);
  std::vector<size_t> todo = {0};
  seen[0] = 1;
  while (!todo.empty()) {
    const size_t node = todo.back();
    todo.pop_back();
    const uint32_t u = unit(node);
    // A node with a leaf holds the offset of a replacement string. The root is checked too:
    // a corrupt trie can lead back to it (an edge labelled 0 to itself).
    if (u & (1u << 8)) {
      const size_t leaf = node ^ offset(u);
      if (leaf >= n) return fail("a leaf past the trie's end");
      const size_t at = unit(leaf) & ((1u << 31) - 1);
      if (at >= strings.size() || strings.find('\0', at) == std::string_view::npos)
        return fail("a replacement string past the map's end");
    }
    const size_t base = node ^ offset(u);
    if ((base | 0xFF) >= n) return fail("a trie offset past its end");
    for (size_t c = 0; c < 256; ++c) {
      const size_t child = base ^ c;
      if ((unit(child) & ((1u << 31) | 0xFF)) != c || seen[child]) continue;
      seen[child] = 1;
      todo.push_back(child);
    }
  }
  // The library keeps at most kMaxTrieResultsSize (32) matches of one prefix search on its
  // stack but reads as many as it found, and only its map builder checks that no key has 32
  // prefixes in the map. So: no path from the root may pass 32 nodes with leaves. In a valid
  // trie the only cycles are self-loops (byte 0) on unused units; another cycle, or a
  // self-loop on a node with a leaf, gives unboundedly many matches and is refused.
  std::vector<uint8_t> state(n, 0);   // 0 unvisited, 1 on the path, 2 done
  std::vector<uint8_t> leaves(n, 0);  // the most leaves on a path below a done node
  struct Frame {
    size_t node, c;
  };
  std::vector<Frame> path = {{0, 0}};
  state[0] = 1;
  auto has_leaf = [&](size_t i) { return (unit(i) >> 8) & 1; };
  while (!path.empty()) {
    Frame& f = path.back();
    const size_t base = f.node ^ offset(unit(f.node));
    if (f.c == 256) {
      state[f.node] = 2;
      const size_t done = f.node;
      path.pop_back();
      if (!path.empty()) {
        const Frame& parent = path.back();
        const unsigned through = leaves[done] + has_leaf(done);
        if (through >= 32) return fail("a prefix with 32 or more replacements");
        leaves[parent.node] = std::max<uint8_t>(leaves[parent.node], static_cast<uint8_t>(through));
      }
      continue;
    }
    const size_t c = f.c++;
    const size_t child = base ^ c;
    if ((unit(child) & ((1u << 31) | 0xFF)) != c) continue;
    if (child == f.node) {  // a self-loop
      if (has_leaf(child)) return fail("a cycle through a replacement");
      continue;
    }
    if (state[child] == 1) return fail("a cycle in the trie");
    if (state[child] == 2) {
      const unsigned through = leaves[child] + has_leaf(child);
      if (through >= 32) return fail("a prefix with 32 or more replacements");
      leaves[f.node] = std::max<uint8_t>(leaves[f.node], static_cast<uint8_t>(through));
      continue;
    }
    state[child] = 1;
    path.push_back({child, 0});
  }
  return true;
}

bool read_varint(std::string_view& s, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && !s.empty(); shift += 7) {
    const auto b = static_cast<uint8_t>(s.front());
    s.remove_prefix(1);
    *v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

// Calls fn(field, payload) for every length-delimited field of the message bytes s and skips
// the others; false when s is not a well-formed message (groups, which no model holds,
// included).
template <class F>
bool for_each_bytes_field(std::string_view s, F&& fn) {
  while (!s.empty()) {
    uint64_t key, v;
    if (!read_varint(s, &key)) return false;
    switch (key & 7) {
      case 0:
        if (!read_varint(s, &v)) return false;
        break;
      case 1:
      case 5: {
        const size_t w = (key & 7) == 1 ? 8 : 4;
        if (s.size() < w) return false;
        s.remove_prefix(w);
        break;
      }
      case 2:
        if (!read_varint(s, &v) || v > s.size()) return false;
        fn(key >> 3, s.substr(0, v));
        s.remove_prefix(v);
        break;
      default:
        return false;
    }
  }
  return true;
}

// Whether the serialized ModelProto is safe to hand to libsentencepiece: its normalizer's
// (field 3) and denormalizer's (field 5) character maps (NormalizerSpec field 2), as protobuf
// merges repeated occurrences (the last map wins), pass charsmap_is_safe.
bool model_is_safe(std::string_view model, std::string* why) {
  std::string_view maps[2];
  bool nested_ok = true;
  const bool ok = for_each_bytes_field(model, [&](uint64_t field, std::string_view spec) {
    if (field != 3 && field != 5) return;
    nested_ok = nested_ok && for_each_bytes_field(spec, [&](uint64_t f, std::string_view v) {
                  if (f == 2) maps[field == 5] = v;
                });
  });
  if (!ok || !nested_ok) {
    *why = "it is not a well-formed ModelProto";
    return false;
  }
  return charsmap_is_safe(maps[0], why) && charsmap_is_safe(maps[1], why);
}

}  // namespace

// Trains a model with the trainer arguments kv (n_kv key/value pairs, flattened) on the
// sentences (or on the "input" files named in kv when n_sent is 0). On success returns 0 and
// the serialized ModelProto in *out (free with mycel_sp_free_buffer); else the message in err.
MYCEL_SP_EXPORT int mycel_sp_train(const char* const* kv, size_t n_kv, const char* const* sentences,
                                   const size_t* lens, size_t n_sent, char** out, size_t* out_len,
                                   char* err, size_t err_n) {
  try {
    std::unordered_map<std::string, std::string> args;
    for (size_t i = 0; i < n_kv; ++i) args[kv[2 * i]] = kv[2 * i + 1];
    Sentences it(sentences, lens, n_sent);
    std::string proto;
    sentencepiece::util::Status st = sentencepiece::SentencePieceTrainer::Train(
        args, args.count("input") ? nullptr : &it, &proto);
    if (!st.ok()) {
      set_error(err, err_n, st.ToString());
      return 1;
    }
    *out = static_cast<char*>(std::malloc(proto.size() + 1));
    if (*out == nullptr) {
      set_error(err, err_n, "out of memory");
      return 1;
    }
    std::memcpy(*out, proto.data(), proto.size());
    *out_len = proto.size();
    return 0;
  } catch (const std::exception& e) {
    set_error(err, err_n, e.what());
    return 1;
  }
}

MYCEL_SP_EXPORT void mycel_sp_free_buffer(char* p) { std::free(p); }

// A processor loaded from a serialized proto, or from the file named by model (from_file);
// null with the message in err on failure. Free with mycel_sp_free.
MYCEL_SP_EXPORT void* mycel_sp_load(const char* model, size_t len, int from_file, char* err,
                                    size_t err_n) {
  try {
    std::string m(model, len);
    if (from_file) {  // read here, so that the model's bytes are checked before the library
      std::ifstream f(m, std::ios::binary);
      if (!f) {
        set_error(err, err_n, "cannot open the model file " + m);
        return nullptr;
      }
      m.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    }
    std::string why;
    if (!model_is_safe(m, &why)) {
      set_error(err, err_n, "the model cannot be loaded: " + why);
      return nullptr;
    }
    // Owned until it loads: the library may throw (found by fuzz_sentencepiece as a leak).
    auto sp = std::make_unique<sentencepiece::SentencePieceProcessor>();
    sentencepiece::util::Status st = sp->LoadFromSerializedProto(m);
    if (!st.ok()) {
      set_error(err, err_n, st.ToString());
      return nullptr;
    }
    return sp.release();
  } catch (const std::exception& e) {
    set_error(err, err_n, e.what());
    return nullptr;
  }
}

MYCEL_SP_EXPORT void mycel_sp_free(void* h) {
  delete static_cast<sentencepiece::SentencePieceProcessor*>(h);
}

// Encodes text: emit(ctx, piece, size, id) per piece in order (as_ids: the piece is null).
MYCEL_SP_EXPORT int mycel_sp_encode(void* h, const char* text, size_t len, int as_ids,
                                    void (*emit)(void*, const char*, size_t, int), void* ctx,
                                    char* err, size_t err_n) {
  try {
    const auto* sp = static_cast<const sentencepiece::SentencePieceProcessor*>(h);
    std::string t(text, len);
    if (as_ids) {
      std::vector<int> ids;
      sentencepiece::util::Status st = sp->Encode(t, &ids);
      if (!st.ok()) {
        set_error(err, err_n, st.ToString());
        return 1;
      }
      for (int id : ids) emit(ctx, nullptr, 0, id);
      return 0;
    }
    std::vector<std::string> pieces;
    sentencepiece::util::Status st = sp->Encode(t, &pieces);
    if (!st.ok()) {
      set_error(err, err_n, st.ToString());
      return 1;
    }
    for (const std::string& p : pieces) emit(ctx, p.data(), p.size(), -1);
    return 0;
  } catch (const std::exception& e) {
    set_error(err, err_n, e.what());
    return 1;
  }
}
