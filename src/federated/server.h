// The federated aggregation server (mycel.federated.FLServer, python -m mycel.federated.server):
// rounds of FedAvg over HTTP (cpp-httplib) with MindSpore Federated's round messages. The
// protocol and its state are described in docs/architecture.md, "Federated".
//
// Endpoints (POST, bodies in wire.h's form; the reply is a Reply):
//   /register     a client id -> a random token (libsodium) that later requests carry
//   /startFLJob   join the current round with a sample count -> the round and the global model
//   /updateModel  the client's trained weights and sample count, for the round it joined
//   /getModel     the global model once the round asked for has closed (the header
//                 X-Mycel-Wait-Ms lets the server hold the request up to 1 s for it)
//   /exchangeKeys, /getKeys, /shareSecrets, /getSecrets, /getClientList, /reconstructSecrets
//                 secure aggregation's phases (PW_ENCRYPT; the get* wait as getModel does)
//
// A round t admits clients until start_fl_job_threshold have joined or the
// start_fl_job_time_window ends (a window in which nobody joined simply restarts). It closes
// when ceil(update_model_ratio * admitted) of them uploaded, or update_model_time_window
// after admission closed. Closing averages the uploads (FedAvg, weights = sample counts;
// with server momentum the average moves the model through a velocity, FedAvgM);
// with too few uploads the model is kept and the round still ends (logged). Then the model
// is checkpointed atomically (model.h, save_round) and round t + 1 opens; after
// fl_iteration_num rounds the server answers Finished. A server started on a checkpoint_dir
// that holds a round checkpoint resumes after its round.
//
// Every request is checked before it can touch the model: a malformed body, an unknown client
// or wrong token, a replayed nonce, a stale round, a client not admitted or uploading twice,
// an update whose names, dtypes or shapes differ from the model's or that holds NaN/Inf, and a
// body over max_body_bytes (HTTP 413) are each refused with a reason that is logged (events())
// and sent to the client. Concurrency: all state sits behind one mutex; decoding and update
// checks run outside it; a ticker thread closes windows on time. Every wait is bounded.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "federated/wire.h"

namespace mycel::federated {

struct ServerConfig {
  std::string fl_name = "mycel";
  std::string host = "127.0.0.1";
  int port = 0;  // 0: any free port (port() says which)
  uint64_t fl_iteration_num = 10;
  uint64_t start_fl_job_threshold = 1;
  int64_t start_fl_job_time_window_ms = 30000;
  double update_model_ratio = 1.0;
  int64_t update_model_time_window_ms = 30000;
  std::string checkpoint_dir;  // required: the round checkpoints
  std::string feature_map;     // the initial model (a checkpoint file), unless resuming
  uint64_t max_body_bytes = 256ull << 20;
  uint64_t max_clients = 1 << 20;  // registrations beyond it are refused
  bool log_to_stderr = true;
  // TLS (enable_ssl): the server's certificate chain and private key, PEM files; both empty:
  // plain HTTP.
  std::string ssl_cert_path, ssl_key_path;
  // summary.metrics_file: one JSON line appended per closed round (flName, currentIteration,
  // flIterationNum, iterationResult "success" (averaged) or "fail" (model kept),
  // startFlJobClients, updateModelClients, samples, iterationTime in ms, and uploadBytes and
  // downloadBytes: the request and reply bodies of the round's time); empty: none.
  std::string metrics_file;
  // encrypt_type PW_ENCRYPT: secure aggregation (secagg.h). After admission closes a round
  // runs its phases (exchangeKeys, shareSecrets, updateModel, reconstructSecrets); the keys,
  // shares and reconstruction phases each end when every client expected did its part or
  // cipher_time_window after the phase began, the upload phase as a plain round's. A phase left
  // with fewer than reconstruct_secrets_threshold clients (or, for the shares, fewer than
  // share_secrets_ratio of those that sent keys) fails the round: the model is kept, the reason
  // logged and given to the clients that ask.
  bool pw_encrypt = false;
  // encrypt_type DP_ENCRYPT: clients clip their update to dp_norm_clip and add Gaussian noise
  // of std dp_noise_multiplier * dp_norm_clip (python/mycel/federated/privacy.py); the
  // startFLJob reply tells them both (wire.h, kPlanEntry). dp_epsilons[t - 1] is the epsilon spent
  // after round t (an RDP accountant's, computed by the config loader): logged as "epsilon: X" when
  // the round closes and written in its metrics line.
  bool dp_encrypt = false;
  double dp_noise_multiplier = 0, dp_norm_clip = 0;
  std::vector<double> dp_epsilons;
  // compression (compress.h): download_compress_type QUANT sends the model as 8-bit codes;
  // upload_compress_type DIFF_SPARSE_QUANT (upload_sparse_rate > 0) takes sparse 8-bit
  // differences from the model as sent. The startFLJob reply tells clients the rate (wire.h).
  bool download_quant = false;
  double upload_sparse_rate = 0;  // 0: plain uploads
  // aggregation: FedAvgM server momentum (model.h, ServerMomentum): each round's average moves
  // the model through a velocity, v = server_momentum * v + (average - w), w += lr * v. The
  // defaults (lr 1, momentum 0) are plain FedAvg; the velocity is checkpointed with the model.
  double server_learning_rate = 1.0, server_momentum = 0.0;
  uint32_t reconstruct_secrets_threshold = 2;
  double share_secrets_ratio = 1.0;
  int64_t cipher_time_window_ms = 30000;
};

class Server {
 public:
  // Checks the config (a ValueError naming the key), loads the model or the round checkpoint,
  // and serves from threads of its own until stop() or destruction. A port in use is a
  // RuntimeError naming it.
  explicit Server(ServerConfig config);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  void stop();

  int port() const;
  uint64_t iteration() const;  // the round now open (completed() + 1 unless finished)
  uint64_t completed() const;  // the last closed round (0: none)
  bool finished() const;
  Weights global_model() const;
  std::vector<std::string> events() const;  // the log (the latest 10,000 lines)

  struct State;

 private:
  std::unique_ptr<State> s_;
};

}  // namespace mycel::federated
