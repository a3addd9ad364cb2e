#include "federated/server.h"

#include <httplib.h>
#include <sodium.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "base/error.h"
#include "federated/client.h"
#include "federated/compress.h"
#include "federated/model.h"
#include "federated/secagg.h"

namespace mycel::federated {

namespace {

using Clock = std::chrono::steady_clock;
using Ms = std::chrono::milliseconds;
constexpr int64_t kMaxServerWaitMs = 1000;  // a getModel is held at most this long
constexpr size_t kMaxEvents = 10000;
constexpr size_t kNoncesPerClient = 4096;  // the latest nonces remembered per client
// The largest sample count a client may claim: FedAvg's weights stay exact in float64 and
// their sum cannot wrap (2^20 clients of 2^40 samples).
constexpr uint64_t kMaxDataSize = uint64_t{1} << 40;

struct ClientState {
  std::string token;
  std::unordered_set<uint64_t> nonces;
  std::deque<uint64_t> order;
};

void check_config(const ServerConfig& c) {
  auto need = [](bool ok, const char* key, const std::string& why) {
    MC_CHECK(ok, Value, "FLServer: '", key, "' ", why, ".");
  };
  need(c.fl_iteration_num >= 1, "fl_iteration_num", "must be at least 1");
  need(c.start_fl_job_threshold >= 1, "start_fl_job_threshold", "must be at least 1");
  need(c.start_fl_job_time_window_ms > 0, "start_fl_job_time_window", "must be positive");
  need(c.update_model_time_window_ms > 0, "update_model_time_window", "must be positive");
  need(c.update_model_ratio > 0 && c.update_model_ratio <= 1, "update_model_ratio",
       str("must be in (0, 1], got ", c.update_model_ratio));
  need(!c.checkpoint_dir.empty(), "checkpoint_dir", "is required");
  need(c.port >= 0 && c.port < 65536, "http_server_address", str("has a bad port ", c.port));
  need(c.max_body_bytes >= 1024, "max_body_bytes", "must be at least 1024");
  need(c.ssl_cert_path.empty() == c.ssl_key_path.empty(), "ssl",
       "needs both server_cert_path and server_key_path");
  if (c.pw_encrypt) {
    need(c.reconstruct_secrets_threshold >= 2, "reconstruct_secrets_threshold",
         "must be at least 2");
    need(c.reconstruct_secrets_threshold <= c.start_fl_job_threshold,
         "reconstruct_secrets_threshold", "must not exceed start_fl_job_threshold");
    need(c.share_secrets_ratio > 0 && c.share_secrets_ratio <= 1, "share_secrets_ratio",
         str("must be in (0, 1], got ", c.share_secrets_ratio));
    need(c.cipher_time_window_ms > 0, "cipher_time_window", "must be positive");
  }
  need(c.server_learning_rate > 0 && std::isfinite(c.server_learning_rate), "server_learning_rate",
       str("must be positive, got ", c.server_learning_rate));
  need(c.server_momentum >= 0 && c.server_momentum < 1, "server_momentum",
       str("must be in [0, 1), got ", c.server_momentum));
  need(!(c.pw_encrypt && c.dp_encrypt), "encrypt_type", "is one of PW_ENCRYPT and DP_ENCRYPT");
  need(c.upload_sparse_rate >= 0 && c.upload_sparse_rate <= 1, "upload_sparse_rate",
       "must be in (0, 1]");
  need(!(c.pw_encrypt && (c.upload_sparse_rate > 0 || c.download_quant)), "compression",
       "is not available with PW_ENCRYPT (masked updates are ring elements)");
  if (c.dp_encrypt) {
    need(c.dp_noise_multiplier > 0 && std::isfinite(c.dp_noise_multiplier), "dp_eps",
         "must give a positive noise multiplier");
    need(c.dp_norm_clip > 0 && std::isfinite(c.dp_norm_clip), "dp_norm_clip", "must be positive");
    need(c.dp_epsilons.size() >= c.fl_iteration_num, "dp_epsilons",
         "must give the epsilon of every round");
  }
}

// Secure aggregation's phases after admission (PW_ENCRYPT), in order.
enum class Phase { Keys, Shares, Upload, Unmask };

}  // namespace

struct Server::State {
  ServerConfig cfg;
  std::unique_ptr<httplib::Server> http;  // an SSLServer with TLS
  std::thread listener, ticker;
  int port = 0;

  mutable std::mutex mu;
  std::condition_variable cv;  // round closed, or stopping
  bool stopping = false;
  std::deque<std::string> log;
  std::unordered_map<std::string, ClientState> clients;
  // The round.
  uint64_t iteration = 1;  // the round open now
  bool finished = false;
  std::shared_ptr<const Weights> global;
  // The model as clients get it this round (8-bit codes with download QUANT) and as they see
  // it (the codes dequantized: the base of compressed uploads).
  std::shared_ptr<const Weights> sent, base;
  Clock::time_point opened, update_deadline;
  bool admission_closed = false;
  std::map<std::string, uint64_t> admitted;  // client -> samples it announced
  std::set<std::string> uploaded;
  std::unique_ptr<FedAvg> sum;
  uint64_t bytes_in = 0, bytes_out = 0;  // request and reply bodies while the round is open
  // PW_ENCRYPT: the round's secure aggregation, its phase and the phase's deadline.
  std::unique_ptr<secagg::ServerRound> pw;
  Phase phase = Phase::Keys;
  Clock::time_point phase_deadline;
  std::string last_failure;  // why the last round kept the model ("" when it averaged)
  std::unique_ptr<ServerMomentum> momentum;  // FedAvgM; null for plain FedAvg

  void event(const std::string& line) {  // with mu held
    if (cfg.log_to_stderr) std::cerr << "[mycel.federated " << cfg.fl_name << "] " << line << "\n";
    log.push_back(line);
    if (log.size() > kMaxEvents) log.pop_front();
  }
  size_t required() const {
    double want = std::ceil(cfg.update_model_ratio * static_cast<double>(admitted.size()) - 1e-9);
    return std::max<size_t>(1, static_cast<size_t>(want));
  }
  void open_round(Clock::time_point now) {
    opened = now;
    admission_closed = false;
    admitted.clear();
    uploaded.clear();
    sum = std::make_unique<FedAvg>(*global);
    bytes_in = bytes_out = 0;
    sent = base = global;
    if (cfg.download_quant) {
      sent = std::make_shared<const Weights>(compress::quantize(*global));
      base = std::make_shared<const Weights>(compress::dequantize(*sent));
    }
    if (cfg.pw_encrypt) {
      pw = std::make_unique<secagg::ServerRound>(cfg.reconstruct_secrets_threshold, *global);
      phase = Phase::Keys;
    }
  }
  void close_admission(Clock::time_point now) {
    admission_closed = true;
    update_deadline = now + Ms(cfg.update_model_time_window_ms);
    phase_deadline = now + Ms(cfg.cipher_time_window_ms);
    event(str("round ", iteration, ": admission closed with ", admitted.size(), " client(s)"));
  }
  void close_round(Clock::time_point now);
  // Ends the round: `model` becomes the global model (null: it is kept, `note` says why), the
  // metrics line, the checkpoint, the next round.
  void end_round(Clock::time_point now, std::shared_ptr<const Weights> model, uint64_t samples,
                 const std::string& note);
  // PW_ENCRYPT: moves the round through its phases at `now` (mu held).
  void advance_secure(Clock::time_point now);
  // Appends the round's line to cfg.metrics_file (JSON lines, MindSpore's metrics key names).
  void write_metrics(Clock::time_point now, bool averaged, uint64_t samples);
  // Applies the windows' deadlines and the round-closing rule at `now` (mu held).
  void advance(Clock::time_point now) {
    if (finished) return;
    if (!admission_closed && now >= opened + Ms(cfg.start_fl_job_time_window_ms)) {
      if (admitted.empty()) {
        opened = now;  // nobody came: the window starts again
      } else {
        close_admission(now);
      }
    }
    if (admission_closed && cfg.pw_encrypt) return advance_secure(now);
    if (admission_closed && (uploaded.size() >= required() || now >= update_deadline))
      close_round(now);
  }

  void reply(httplib::Response& res, const Reply& r, int http_status) {
    res.status = http_status;
    res.set_content(encode(r), "application/octet-stream");
  }
  // Logs the refusal of `what` and answers it with status `s` and the reason (mu held).
  void refuse_locked(httplib::Response& res, Status s, int http_status, const std::string& what,
                     const std::string& why) {
    event(str("refused ", what, ": ", why));
    Reply r;
    r.status = s;
    r.reason = why;
    reply(res, r, http_status);
  }
  void refuse(httplib::Response& res, Status s, int http_status, const std::string& what,
              const std::string& why) {
    std::lock_guard<std::mutex> l(mu);
    refuse_locked(res, s, http_status, what, why);
  }
  // Decodes the body and authenticates the client; false (the reply sent) when refused.
  bool admit_request(const httplib::Request& req, httplib::Response& res, MsgKind kind,
                     Request& out);
  void handle(const httplib::Request& req, httplib::Response& res, MsgKind kind);
  void on_register(const Request& r, httplib::Response& res);
  void on_start(const Request& r, httplib::Response& res);
  void on_update(const Request& r, httplib::Response& res);
  void on_get(const Request& r, const httplib::Request& req, httplib::Response& res);
  // The secure-aggregation messages but updateModel (PW_ENCRYPT); server_pw.cc.
  void on_secure(MsgKind kind, const Request& r, const httplib::Request& req,
                 httplib::Response& res);
  std::string add_secure_update(const Request& r);  // updateModel's masked upload (mu held)
};

void Server::State::write_metrics(Clock::time_point now, bool averaged, uint64_t samples) {
  if (cfg.metrics_file.empty()) return;
  std::ofstream f(cfg.metrics_file, std::ios::app);
  f << "{\"flName\": \"" << printable(cfg.fl_name) << "\", \"currentIteration\": " << iteration
    << ", \"flIterationNum\": " << cfg.fl_iteration_num << ", \"iterationResult\": \""
    << (averaged ? "success" : "fail") << "\", \"startFlJobClients\": " << admitted.size()
    << ", \"updateModelClients\": " << uploaded.size() << ", \"samples\": " << samples
    << ", \"iterationTime\": " << std::chrono::duration_cast<Ms>(now - opened).count()
    << ", \"uploadBytes\": " << bytes_in << ", \"downloadBytes\": " << bytes_out;
  if (cfg.dp_encrypt) f << ", \"epsilon\": " << cfg.dp_epsilons[iteration - 1];
  f << "}\n";
  f.flush();
  if (!f) event(str("round ", iteration, ": cannot append to the metrics file ", cfg.metrics_file));
}

void Server::State::close_round(Clock::time_point now) {
  if (uploaded.size() >= required() && sum->count() > 0) {
    end_round(now, std::make_shared<const Weights>(sum->mean()), sum->samples(),
              str("FedAvg of ", sum->count(), " update(s), ", sum->samples(), " sample(s)"));
  } else {
    end_round(now, nullptr, sum->samples(),
              str("closed with ", uploaded.size(), " of ", required(), " required update(s)"));
  }
}

void Server::State::end_round(Clock::time_point now, std::shared_ptr<const Weights> model,
                              uint64_t samples, const std::string& note) {
  const uint64_t t = iteration;
  write_metrics(now, model != nullptr, samples);
  if (cfg.dp_encrypt)  // the round's uploads were released, averaged or not
    event(str("round ", t, ": epsilon: ", cfg.dp_epsilons[t - 1]));
  if (model) {
    if (momentum) model = std::make_shared<const Weights>(momentum->step(*global, *model));
    global = std::move(model);
    last_failure.clear();
    event(str("round ", t, " closed: ", note));
  } else {
    last_failure = str("round ", t, " ", note, ": the global model is kept");
    event(last_failure);
  }
  try {
    save_round(cfg.checkpoint_dir, t, *global, momentum ? momentum->velocity() : Weights{});
  } catch (const std::exception& e) {
    event(str("round ", t, ": the checkpoint failed: ", e.what()));
  }
  if (t >= cfg.fl_iteration_num) {
    finished = true;
    event(str("finished: ", t, " round(s)"));
  } else {
    iteration = t + 1;
  }
  open_round(now);
  cv.notify_all();
}

bool Server::State::admit_request(const httplib::Request& req, httplib::Response& res, MsgKind kind,
                                  Request& out) {
  const std::string what = std::string(req.path);
  try {
    out = decode_request(req.body);
  } catch (const Error& e) {
    refuse(res, Status::Malformed, 400, what, e.message());
    return false;
  }
  if (out.kind != kind) {
    refuse(res, Status::Malformed, 400, what, "the message's kind does not match the endpoint");
    return false;
  }
  if (kind == MsgKind::Register) return true;
  std::lock_guard<std::mutex> l(mu);
  auto it = clients.find(out.client_id);
  std::string why;
  if (it == clients.end()) {
    why = str("unknown client '", printable(out.client_id), "' (register first)");
  } else if (out.token.size() != it->second.token.size() ||
             sodium_memcmp(out.token.data(), it->second.token.data(), out.token.size()) != 0) {
    why = str("wrong token for client '", printable(out.client_id), "'");
  }
  if (!why.empty()) {
    refuse_locked(res, Status::Unauthorized, 401, what, why);
    return false;
  }
  ClientState& c = it->second;
  if (!c.nonces.insert(out.nonce).second) {
    refuse_locked(
        res, Status::Rejected, 409, what,
        str("replayed message from client '", printable(out.client_id), "' (nonce seen)"));
    return false;
  }
  c.order.push_back(out.nonce);
  if (c.order.size() > kNoncesPerClient) {
    c.nonces.erase(c.order.front());
    c.order.pop_front();
  }
  return true;
}

void Server::State::on_register(const Request& r, httplib::Response& res) {
  std::string why;
  Reply out;
  {
    std::lock_guard<std::mutex> l(mu);
    if (r.client_id.empty()) {
      why = "the client_id is empty";
    } else if (clients.count(r.client_id)) {
      why = str("client '", printable(r.client_id), "' is already registered");
    } else if (clients.size() >= cfg.max_clients) {
      why = str("the server has its ", cfg.max_clients, " clients");
    } else {
      unsigned char raw[32];
      randombytes_buf(raw, sizeof raw);
      char hex[2 * sizeof raw + 1];
      sodium_bin2hex(hex, sizeof hex, raw, sizeof raw);
      out.token = hex;
      clients[r.client_id].token = out.token;
      out.iteration = iteration;
      event(str("registered client '", printable(r.client_id), "'"));
    }
  }
  if (!why.empty()) return refuse(res, Status::Rejected, 409, "/register", why);
  reply(res, out, 200);
}

void Server::State::on_start(const Request& r, httplib::Response& res) {
  Reply out;
  int code = 200;
  {
    std::lock_guard<std::mutex> l(mu);
    advance(Clock::now());
    out.iteration = iteration;
    if (finished) {
      out.status = Status::Finished;
      out.reason = str("the server has finished its ", cfg.fl_iteration_num, " rounds");
    } else if (r.iteration != 0 && r.iteration != iteration) {
      out.status = Status::Rejected;
      out.reason = str("stale iteration ", r.iteration, " (the round is ", iteration, ")");
    } else if (r.data_size == 0 || r.data_size > kMaxDataSize) {
      out.status = Status::Rejected;
      out.reason = str("data_size must be in [1, ", kMaxDataSize, "], got ", r.data_size);
    } else if (admitted.count(r.client_id)) {
      out.weights = *sent;  // asked again: the same answer
    } else if (admission_closed) {
      out.status = Status::Rejected;
      out.reason =
          str("round ", iteration, " admits no more clients (",
              admitted.size() >= cfg.start_fl_job_threshold ? "threshold reached" : "window over",
              "); join the next round");
    } else {
      admitted[r.client_id] = r.data_size;
      if (admitted.size() >= cfg.start_fl_job_threshold) close_admission(Clock::now());
      out.weights = *sent;
    }
    if ((cfg.dp_encrypt || cfg.upload_sparse_rate > 0) && !out.weights.empty()) {
      Param plan{kPlanEntry, DType::Float64, {3}, std::string(24, '\0')};
      const double v[3] = {cfg.dp_encrypt ? cfg.dp_noise_multiplier : 0.0,
                           cfg.dp_encrypt ? cfg.dp_norm_clip : 0.0, cfg.upload_sparse_rate};
      std::memcpy(plan.bytes.data(), v, sizeof v);
      out.weights.push_back(std::move(plan));
    }
    if (out.status != Status::Ok) {
      code = out.status == Status::Finished ? 200 : 409;
      if (out.status == Status::Rejected) event(str("refused /startFLJob: ", out.reason));
    }
  }
  reply(res, out, code);
}

void Server::State::on_update(const Request& r, httplib::Response& res) {
  std::shared_ptr<const Weights> g;
  std::string why;
  auto check_round = [&]() -> std::string {  // mu held
    if (finished) return "the server has finished";
    if (r.iteration != iteration)
      return str("stale iteration ", r.iteration, " (the round is ", iteration, ")");
    if (!admitted.count(r.client_id))
      return str("client '", printable(r.client_id), "' was not admitted to round ", iteration);
    if (uploaded.count(r.client_id))
      return str("client '", printable(r.client_id), "' already uploaded in round ", iteration);
    if (r.data_size != admitted[r.client_id])
      return str("data_size ", r.data_size, " differs from the ", admitted[r.client_id],
                 " announced at startFLJob");
    return "";
  };
  if (cfg.pw_encrypt) {  // a masked upload: checked and summed by the secure round
    {
      std::lock_guard<std::mutex> l(mu);
      advance(Clock::now());
      why = check_round();
      if (why.empty()) why = add_secure_update(r);
    }
    if (!why.empty()) return refuse(res, Status::Rejected, 409, "/updateModel", why);
    return reply(res, Reply{}, 200);
  }
  std::shared_ptr<const Weights> b;
  {
    std::lock_guard<std::mutex> l(mu);
    advance(Clock::now());
    why = check_round();
    g = global;
    b = base;
  }
  const Weights* update = &r.weights;
  Weights rebuilt;  // a compressed upload: base + its difference
  if (why.empty() && cfg.upload_sparse_rate > 0) {
    try {
      rebuilt = compress::apply_sparse_diff(r.weights, *b, cfg.upload_sparse_rate);
      update = &rebuilt;
    } catch (const Error& e) {
      why = e.message();
    }
  }
  if (why.empty()) why = update_problem(*g, *update);  // outside the lock: the long part
  if (why.empty()) {
    std::lock_guard<std::mutex> l(mu);
    why = check_round();  // the round may have closed meanwhile
    if (why.empty()) {
      sum->add(*update, r.data_size);
      uploaded.insert(r.client_id);
      advance(Clock::now());
    }
  }
  if (!why.empty()) return refuse(res, Status::Rejected, 409, "/updateModel", why);
  reply(res, Reply{}, 200);
}

void Server::State::on_get(const Request& r, const httplib::Request& req, httplib::Response& res) {
  int64_t wait = 0;
  const std::string h = req.get_header_value("X-Mycel-Wait-Ms");
  if (!h.empty()) wait = std::clamp<int64_t>(std::atoll(h.c_str()), 0, kMaxServerWaitMs);
  Reply out;
  {
    std::unique_lock<std::mutex> l(mu);
    auto ready = [&] { return stopping || finished || iteration > r.iteration; };
    cv.wait_for(l, Ms(wait), ready);
    if (!ready() || stopping) {
      out.status = Status::NotReady;
      out.reason = str("round ", r.iteration, " has not closed");
      out.iteration = iteration - 1;
    } else {
      out.iteration = finished ? iteration : iteration - 1;
      out.weights = *sent;
    }
  }
  reply(res, out, 200);
}

void Server::State::advance_secure(Clock::time_point now) {
  const size_t t = cfg.reconstruct_secrets_threshold;
  uint64_t samples = 0;  // of the masked uploads
  for (const auto& [id, n] : admitted)
    if (pw->in_u3(id)) samples += n;
  auto fail = [&](const std::string& why) { end_round(now, nullptr, samples, why); };
  auto next = [&](Phase p, int64_t window_ms) {
    phase = p;
    phase_deadline = now + Ms(window_ms);
    cv.notify_all();
  };
  const bool late = now >= phase_deadline;
  switch (phase) {
    case Phase::Keys:
      if (pw->keyed() < admitted.size() && !late) return;
      if (pw->keyed() < t)
        return fail(str("failed: ", pw->keyed(),
                        " client(s) sent keys, fewer than the "
                        "reconstruct_secrets_threshold ",
                        t));
      event(str("round ", iteration, ": ", pw->keyed(), " client(s) exchanged keys"));
      return next(Phase::Shares, cfg.cipher_time_window_ms);
    case Phase::Shares: {
      if (pw->shared() < pw->keyed() && !late) return;
      const auto want = std::max<size_t>(
          t, static_cast<size_t>(std::ceil(cfg.share_secrets_ratio * pw->keyed() - 1e-9)));
      if (pw->shared() < want)
        return fail(str("failed: ", pw->shared(), " client(s) shared secrets, fewer than the ",
                        want, " required"));
      event(str("round ", iteration, ": ", pw->shared(), " client(s) shared secrets"));
      return next(Phase::Upload, cfg.update_model_time_window_ms);
    }
    case Phase::Upload: {
      const auto want = std::max<size_t>(
          t, static_cast<size_t>(std::ceil(cfg.update_model_ratio * pw->shared() - 1e-9)));
      if (pw->uploaded() < want && !late) return;
      if (pw->uploaded() < t)
        return fail(str("failed: ", pw->uploaded(),
                        " client(s) uploaded, fewer than the "
                        "reconstruct_secrets_threshold ",
                        t));
      event(str("round ", iteration, ": ", pw->uploaded(), " masked update(s), ",
                pw->shared() - pw->uploaded(), " dropped"));
      return next(Phase::Unmask, cfg.cipher_time_window_ms);
    }
    case Phase::Unmask: {
      if (pw->revealed() < pw->uploaded() && !late) return;
      try {
        auto model = std::make_shared<const Weights>(pw->unmask());
        return end_round(now, std::move(model), samples,
                         str("secure aggregation of ", pw->uploaded(), " update(s), ", samples,
                             " sample(s), shares from ", pw->revealed(), " client(s)"));
      } catch (const Error& e) {
        return fail(str("failed: ", e.message()));
      }
    }
  }
}

std::string Server::State::add_secure_update(const Request& r) {
  if (phase != Phase::Upload) return str("round ", iteration, " is not taking masked updates now");
  std::string why = pw->add_masked(r.client_id, r.weights);
  if (!why.empty()) return why;
  uploaded.insert(r.client_id);
  advance(Clock::now());
  return "";
}

void Server::State::on_secure(MsgKind kind, const Request& r, const httplib::Request& req,
                              httplib::Response& res) {
  const std::string what = endpoint(kind);
  int64_t wait = 0;
  const std::string h = req.get_header_value("X-Mycel-Wait-Ms");
  if (!h.empty()) wait = std::clamp<int64_t>(std::atoll(h.c_str()), 0, kMaxServerWaitMs);
  // The phase a get* waits to be over, and the phase a send belongs to.
  Phase after = Phase::Keys;
  if (kind == MsgKind::GetSecrets || kind == MsgKind::ShareSecrets) after = Phase::Shares;
  if (kind == MsgKind::GetClientList) after = Phase::Upload;
  if (kind == MsgKind::ReconstructSecrets) after = Phase::Unmask;
  const bool is_get =
      kind == MsgKind::GetKeys || kind == MsgKind::GetSecrets || kind == MsgKind::GetClientList;
  Reply out;
  std::string why;
  std::unique_lock<std::mutex> l(mu);
  advance(Clock::now());
  out.iteration = iteration;
  auto moved_on = [&] { return finished || iteration != r.iteration; };
  if (!cfg.pw_encrypt) {
    why = "the server's encrypt_type is not PW_ENCRYPT";
  } else if (moved_on()) {
    why = str("stale iteration ", r.iteration, " (the round is ", iteration, ")",
              last_failure.empty() ? "" : "; " + last_failure);
  } else if (!admitted.count(r.client_id)) {
    why = str("client '", printable(r.client_id), "' was not admitted to round ", iteration);
  } else if (is_get) {
    auto ready = [&] { return stopping || moved_on() || (admission_closed && phase > after); };
    cv.wait_for(l, Ms(wait), ready);
    if (moved_on()) {
      why = str("round ", r.iteration, " ended", last_failure.empty() ? "" : ": " + last_failure);
    } else if (!ready() || stopping) {
      out.status = Status::NotReady;
      out.reason = str("round ", iteration, ": the phase before ", what, " has not ended");
    } else if (kind == MsgKind::GetKeys) {
      if (!pw->in_u1(r.client_id))
        why = "the client sent no keys in time";
      else
        out.weights = pw->key_list();
    } else if (kind == MsgKind::GetSecrets) {
      if (!pw->in_u2(r.client_id))
        why = "the client shared no secrets in time";
      else
        out.weights = pw->sealed_for(r.client_id);
    } else {
      if (!pw->in_u3(r.client_id))
        why = "the client uploaded no masked update in time";
      else
        out.weights = pw->client_list();
    }
  } else if (kind == MsgKind::ExchangeKeys ? admission_closed && phase != Phase::Keys
                                           : !admission_closed || phase != after) {
    why = str("round ", iteration, " is not taking ", what, " now");
  } else {
    const uint64_t n = admitted[r.client_id];
    why = kind == MsgKind::ExchangeKeys   ? pw->add_keys(r.client_id, n, r.weights)
          : kind == MsgKind::ShareSecrets ? pw->add_shares(r.client_id, r.weights)
                                          : pw->add_reveal(r.client_id, r.weights);
    if (why.empty()) advance(Clock::now());
  }
  if (!why.empty()) return refuse_locked(res, Status::Rejected, 409, what, why);
  l.unlock();
  reply(res, out, 200);
}

void Server::State::handle(const httplib::Request& req, httplib::Response& res, MsgKind kind) {
  {
    std::lock_guard<std::mutex> l(mu);
    bytes_in += req.body.size();
  }
  struct CountReply {  // the reply's bytes, however the handler returns
    State* s;
    const httplib::Response& res;
    ~CountReply() {
      std::lock_guard<std::mutex> l(s->mu);
      s->bytes_out += res.body.size();
    }
  } count{this, res};
  try {
    Request r;
    if (!admit_request(req, res, kind, r)) return;
    switch (kind) {
      case MsgKind::Register:
        return on_register(r, res);
      case MsgKind::StartFLJob:
        return on_start(r, res);
      case MsgKind::UpdateModel:
        return on_update(r, res);
      case MsgKind::GetModel:
        return on_get(r, req, res);
      case MsgKind::Reply:
        break;
      default:
        return on_secure(kind, r, req, res);
    }
  } catch (const std::exception& e) {  // a bug, not the client's: logged, the server goes on
    refuse(res, Status::Rejected, 500, req.path, str("internal error: ", e.what()));
  }
}

Server::Server(ServerConfig config) : s_(std::make_unique<State>()) {
  check_config(config);
  MC_CHECK(sodium_init() >= 0, Runtime, "FLServer: libsodium failed to initialise.");
  State* s = s_.get();
  s->cfg = std::move(config);
  if (s->cfg.server_learning_rate != 1.0 || s->cfg.server_momentum != 0.0)
    s->momentum =
        std::make_unique<ServerMomentum>(s->cfg.server_learning_rate, s->cfg.server_momentum);
  Weights velocity;
  if (auto resumed = load_round(s->cfg.checkpoint_dir, &velocity)) {
    s->global = std::make_shared<const Weights>(std::move(resumed->second));
    if (s->momentum) s->momentum->restore(*s->global, std::move(velocity));
    s->iteration = resumed->first + 1;
    if (resumed->first >= s->cfg.fl_iteration_num) {
      s->iteration = resumed->first;
      s->finished = true;
    }
    s->event(str("resumed from ", round_checkpoint_path(s->cfg.checkpoint_dir), " after round ",
                 resumed->first));
  } else {
    MC_CHECK(!s->cfg.feature_map.empty(), Value,
             "FLServer: 'feature_map' (the initial model) is required when checkpoint_dir ",
             s->cfg.checkpoint_dir, " holds no round checkpoint.");
    s->global = std::make_shared<const Weights>(load_model(s->cfg.feature_map));
  }
  s->open_round(Clock::now());

  if (s->cfg.ssl_cert_path.empty()) {
    s->http = std::make_unique<httplib::Server>();
  } else {
    auto tls = std::make_unique<httplib::SSLServer>(s->cfg.ssl_cert_path.c_str(),
                                                    s->cfg.ssl_key_path.c_str());
    MC_CHECK(tls->is_valid(), Value, "FLServer: the TLS certificate ", s->cfg.ssl_cert_path,
             " or key ", s->cfg.ssl_key_path, " cannot be loaded (PEM files expected).");
    s->http = std::move(tls);
  }
  s->http->new_task_queue = [] { return new httplib::ThreadPool(16); };
  s->http->set_payload_max_length(s->cfg.max_body_bytes);
  s->http->set_read_timeout(std::chrono::seconds(30));
  s->http->set_write_timeout(std::chrono::seconds(30));
  s->http->set_keep_alive_timeout(1);  // stop() waits for idle connections at most this long
  s->http->set_tcp_nodelay(true);      // small replies are not held back by Nagle's algorithm
  s->http->set_socket_options([](socket_t sock) {  // no SO_REUSEPORT (comm/store.cc)
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof(yes));
  });
  const std::pair<const char*, MsgKind> routes[] = {
      {"/register", MsgKind::Register},
      {"/startFLJob", MsgKind::StartFLJob},
      {"/updateModel", MsgKind::UpdateModel},
      {"/getModel", MsgKind::GetModel},
      {"/exchangeKeys", MsgKind::ExchangeKeys},
      {"/getKeys", MsgKind::GetKeys},
      {"/shareSecrets", MsgKind::ShareSecrets},
      {"/getSecrets", MsgKind::GetSecrets},
      {"/getClientList", MsgKind::GetClientList},
      {"/reconstructSecrets", MsgKind::ReconstructSecrets}};
  for (auto [path, kind] : routes) {
    s->http->Post(path, [s, kind = kind](const httplib::Request& req, httplib::Response& res) {
      s->handle(req, res, kind);
    });
  }
  // Requests refused before a handler runs (HTTP 413 over max_body_bytes, unknown paths).
  s->http->set_error_handler([s](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::lock_guard<std::mutex> l(s->mu);
    s->event(str("refused ", req.path, ": HTTP ", res.status,
                 res.status == 413
                     ? str(" (the body is over max_body_bytes ", s->cfg.max_body_bytes, ")")
                     : std::string()));
  });
  const ServerConfig& c = s->cfg;
  s->port = c.port == 0 ? s->http->bind_to_any_port(c.host) : c.port;
  MC_CHECK(s->port > 0 && (c.port == 0 || s->http->bind_to_port(c.host, c.port)), Runtime,
           "FLServer: cannot listen on ", c.host, ":", c.port,
           " (the port is in use, or the address is not this machine's).");
  s->listener = std::thread([s] { s->http->listen_after_bind(); });
  s->ticker = std::thread([s] {
    std::unique_lock<std::mutex> l(s->mu);
    while (!s->stopping) {
      s->cv.wait_for(l, Ms(50));
      if (!s->stopping) s->advance(Clock::now());
    }
  });
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (!s->http->is_running() && Clock::now() < deadline) std::this_thread::sleep_for(Ms(1));
  if (!s->http->is_running()) {
    stop();
    MC_THROW(Runtime, "FLServer on ", c.host, ":", s->port, " did not start.");
  }
  std::lock_guard<std::mutex> l(s->mu);
  s->event(str("serving on ", c.host, ":", s->port, ", round ", s->iteration));
}

Server::~Server() { stop(); }

void Server::stop() {
  {
    std::lock_guard<std::mutex> l(s_->mu);
    s_->stopping = true;
  }
  s_->cv.notify_all();
  s_->http->stop();
  if (s_->listener.joinable()) s_->listener.join();
  if (s_->ticker.joinable()) s_->ticker.join();
}

int Server::port() const { return s_->port; }

uint64_t Server::iteration() const {
  std::lock_guard<std::mutex> l(s_->mu);
  return s_->iteration;
}

uint64_t Server::completed() const {
  std::lock_guard<std::mutex> l(s_->mu);
  return s_->finished ? s_->iteration : s_->iteration - 1;
}

bool Server::finished() const {
  std::lock_guard<std::mutex> l(s_->mu);
  return s_->finished;
}

Weights Server::global_model() const {
  std::lock_guard<std::mutex> l(s_->mu);
  return *s_->global;
}

std::vector<std::string> Server::events() const {
  std::lock_guard<std::mutex> l(s_->mu);
  return {s_->log.begin(), s_->log.end()};
}

}  // namespace mycel::federated
