// Python binding of federated learning (src/federated), as _mycel._federated; the public
// API is mycel.federated (python/mycel/federated/):
//
//   _Server(config: dict)            the aggregation server (server.h), serving until stop()
//   _Client(host, port, client_id, timeout_s, ca_cert_path="")   (HTTPS with a CA file)
//       .call(kind, iteration, data_size, weights, wait_ms) -> (status, reason, iteration,
//             token, weights)     one round message; weights are {name: ndarray}
//       .post(path, body, wait_ms), .last_request     raw exchanges, for the security tests
//   _SecAggClient(client_id)          a client's secure-aggregation round (secagg.h): keys(),
//       shares(key_list, data_size), accept_shares(sealed), mask(update), reveal(survivors)
//   _VflCommunicator(name, host, port, peer_name, timeout[, secret_key, peer_public_key,
//                    replay_attack_time_diff])   vertical FL's endpoint (keys: authenticated)
//   _generate_party_keys() -> (public key, secret key)   a vertical party's crypto_kx keys
//       (vertical.h): port, send(peer_host, peer_port, tensors), receive(), events(), stop()
//   _run_psi(comm, peer_host, peer_port, ids, bucket_id, threads) -> sorted common ids (psi.h)
//   _encode_reply(status, reason, iteration, token, weights) -> bytes   a reply's wire form
//       (the seed corpus of fuzz/fuzz_federated.cc)
//
// Network waits and encoding run without the GIL.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>

#include "federated/client.h"
#include "federated/compress.h"
#include "federated/psi.h"
#include "federated/secagg.h"
#include "federated/server.h"
#include "federated/vertical.h"
#include "frontend/py_convert.h"
#include "python/module.h"

namespace pyb = pybind11;

namespace mycel::py {

namespace {

using federated::Param;
using federated::Weights;

Weights weights_from_py(const pyb::dict& d) {
  Weights w;
  pyb::module_& np = numpy_module();
  for (auto [k, v] : d) {
    Param p;
    p.name = pyb::cast<std::string>(k);
    pyb::array a = np.attr("ascontiguousarray")(v);
    MC_CHECK(dtype_from_numpy(a.dtype(), &p.dtype), Type, "FederatedClient: parameter '", p.name,
             "' has dtype ", std::string(pyb::str(a.dtype())), ", which mycel cannot send.");
    for (pyb::ssize_t i = 0; i < a.ndim(); ++i) p.shape.push_back(a.shape(i));
    p.bytes.assign(static_cast<const char*>(a.data()), static_cast<size_t>(a.nbytes()));
    w.push_back(std::move(p));
  }
  return w;
}

// Text from the network (names, reasons) as a str; bytes that are not UTF-8 as \xNN escapes.
pyb::str text(const std::string& s) {
  PyObject* u =
      PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "backslashreplace");
  if (u == nullptr) throw pyb::error_already_set();
  return pyb::reinterpret_steal<pyb::str>(u);
}

pyb::dict weights_to_py(const Weights& w) {
  pyb::dict d;
  for (const Param& p : w) {
    std::vector<pyb::ssize_t> shape(p.shape.begin(), p.shape.end());
    pyb::array a(numpy_dtype(p.dtype), shape);
    if (!p.bytes.empty()) std::memcpy(a.mutable_data(), p.bytes.data(), p.bytes.size());
    d[text(p.name)] = a;
  }
  return d;
}

pyb::tuple reply_to_py(const federated::Reply& r) {
  return pyb::make_tuple(std::string(federated::status_name(r.status)), text(r.reason), r.iteration,
                         text(r.token), weights_to_py(r.weights));
}

template <class T>
T get(const pyb::dict& c, const char* key, T fallback) {
  return c.contains(key) ? pyb::cast<T>(c[key]) : fallback;
}

federated::ServerConfig config_from_py(const pyb::dict& c) {
  federated::ServerConfig s;
  s.fl_name = get<std::string>(c, "fl_name", s.fl_name);
  s.host = get<std::string>(c, "host", s.host);
  s.port = get<int>(c, "port", s.port);
  s.fl_iteration_num = get<uint64_t>(c, "fl_iteration_num", s.fl_iteration_num);
  s.start_fl_job_threshold = get<uint64_t>(c, "start_fl_job_threshold", s.start_fl_job_threshold);
  s.start_fl_job_time_window_ms =
      get<int64_t>(c, "start_fl_job_time_window", s.start_fl_job_time_window_ms);
  s.update_model_ratio = get<double>(c, "update_model_ratio", s.update_model_ratio);
  s.update_model_time_window_ms =
      get<int64_t>(c, "update_model_time_window", s.update_model_time_window_ms);
  s.checkpoint_dir = get<std::string>(c, "checkpoint_dir", s.checkpoint_dir);
  s.feature_map = get<std::string>(c, "feature_map", s.feature_map);
  s.max_body_bytes = get<uint64_t>(c, "max_body_bytes", s.max_body_bytes);
  s.max_clients = get<uint64_t>(c, "max_clients", s.max_clients);
  s.log_to_stderr = get<bool>(c, "log_to_stderr", s.log_to_stderr);
  s.ssl_cert_path = get<std::string>(c, "server_cert_path", s.ssl_cert_path);
  s.ssl_key_path = get<std::string>(c, "server_key_path", s.ssl_key_path);
  s.metrics_file = get<std::string>(c, "metrics_file", s.metrics_file);
  s.pw_encrypt = get<std::string>(c, "encrypt_type", "NOT_ENCRYPT") == "PW_ENCRYPT";
  s.server_learning_rate = get<double>(c, "server_learning_rate", s.server_learning_rate);
  s.server_momentum = get<double>(c, "server_momentum", s.server_momentum);
  s.reconstruct_secrets_threshold =
      get<uint32_t>(c, "reconstruct_secrets_threshold", s.reconstruct_secrets_threshold);
  s.share_secrets_ratio = get<double>(c, "share_secrets_ratio", s.share_secrets_ratio);
  s.cipher_time_window_ms = get<int64_t>(c, "cipher_time_window", s.cipher_time_window_ms);
  s.dp_encrypt = get<std::string>(c, "encrypt_type", "NOT_ENCRYPT") == "DP_ENCRYPT";
  s.dp_noise_multiplier = get<double>(c, "dp_noise_multiplier", s.dp_noise_multiplier);
  s.dp_norm_clip = get<double>(c, "dp_norm_clip", s.dp_norm_clip);
  s.dp_epsilons = get<std::vector<double>>(c, "dp_epsilons", s.dp_epsilons);
  s.download_quant = get<std::string>(c, "download_compress_type", "NO_COMPRESS") == "QUANT";
  s.upload_sparse_rate =
      get<std::string>(c, "upload_compress_type", "NO_COMPRESS") == "DIFF_SPARSE_QUANT"
          ? get<double>(c, "upload_sparse_rate", 0.4)
          : 0.0;
  return s;
}

// A request kind by its endpoint's name ("startFLJob").
federated::MsgKind kind_from_name(const std::string& k) {
  for (uint8_t i = 1; i <= federated::kLastKind; ++i) {
    auto kind = static_cast<federated::MsgKind>(i);
    if (kind != federated::MsgKind::Reply && k == federated::endpoint(kind) + 1) return kind;
  }
  MC_THROW(Value, "federated: unknown message kind '", k, "'.");
}

// The FL server, the client and the reply encoding (federated/server.h, client.h).
void bind_server_and_client(pyb::module_& m) {
  pyb::class_<federated::Server>(m, "_Server")
      .def(pyb::init([](const pyb::dict& c) {
        federated::ServerConfig cfg = config_from_py(c);
        pyb::gil_scoped_release nogil;
        return std::make_unique<federated::Server>(std::move(cfg));
      }))
      .def("stop", &federated::Server::stop, pyb::call_guard<pyb::gil_scoped_release>())
      .def_property_readonly("port", &federated::Server::port)
      .def_property_readonly("iteration", &federated::Server::iteration)
      .def_property_readonly("completed", &federated::Server::completed)
      .def_property_readonly("finished", &federated::Server::finished)
      .def("global_model",
           [](const federated::Server& s) { return weights_to_py(s.global_model()); })
      .def("events", [](const federated::Server& s) {
        pyb::list out;
        for (const std::string& e : s.events()) out.append(text(e));
        return out;
      });

  m.def("_encode_reply", [](int status, const std::string& reason, uint64_t iteration,
                            const std::string& token, const pyb::dict& weights) {
    MC_CHECK(status >= 0 && status <= static_cast<int>(federated::Status::Finished), Value,
             "_encode_reply: unknown status ", status, ".");
    federated::Reply r;
    r.status = static_cast<federated::Status>(status);
    r.reason = reason;
    r.iteration = iteration;
    r.token = token;
    r.weights = weights_from_py(weights);
    return pyb::bytes(federated::encode(r));
  });
  pyb::class_<federated::Client>(m, "_Client")
      .def(pyb::init([](const std::string& host, int port, const std::string& id, double timeout,
                        const std::string& ca_cert_path) {
             MC_CHECK(timeout > 0, Value, "FederatedClient: timeout must be positive, got ",
                      timeout, ".");
             return std::make_unique<federated::Client>(
                 host, port, id, std::chrono::milliseconds(static_cast<int64_t>(timeout * 1000)),
                 ca_cert_path);
           }),
           pyb::arg("host"), pyb::arg("port"), pyb::arg("client_id"), pyb::arg("timeout"),
           pyb::arg("ca_cert_path") = "")
      .def_property_readonly("client_id", &federated::Client::client_id)
      .def("set_token", &federated::Client::set_token)
      .def(
          "call",
          [](federated::Client& c, const std::string& kind, uint64_t iteration, uint64_t data_size,
             const pyb::dict& weights, int64_t wait_ms) {
            federated::Request r;
            r.kind = kind_from_name(kind);
            r.iteration = iteration;
            r.data_size = data_size;
            r.weights = weights_from_py(weights);
            federated::Reply reply;
            {
              pyb::gil_scoped_release nogil;
              reply = c.call(std::move(r), wait_ms);
            }
            return reply_to_py(reply);
          },
          pyb::arg("kind"), pyb::arg("iteration") = 0, pyb::arg("data_size") = 0,
          pyb::arg("weights") = pyb::dict(), pyb::arg("wait_ms") = 0)
      .def(
          "post",
          [](federated::Client& c, const std::string& path, const pyb::bytes& body,
             int64_t wait_ms) {
            std::string b = body;
            federated::Reply reply;
            {
              pyb::gil_scoped_release nogil;
              reply = c.post(path, b, wait_ms);
            }
            return reply_to_py(reply);
          },
          pyb::arg("path"), pyb::arg("body"), pyb::arg("wait_ms") = 0)
      .def_property_readonly(
          "last_request", [](const federated::Client& c) { return pyb::bytes(c.last_request()); });
}

// Compression (federated/compress.h): a downloaded model's codes to float32, and an update
// to its sparse 8-bit difference from the model as downloaded (a fresh random seed).
void bind_compression(pyb::module_& m) {
  m.def("_dequantize", [](const pyb::dict& message) {
    return weights_to_py(federated::compress::dequantize(weights_from_py(message)));
  });
  m.def("_sparse_diff", [](const pyb::dict& update, const pyb::dict& base, double rate) {
    const std::string seed = federated::compress::fresh_seed();
    Weights u = weights_from_py(update), b = weights_from_py(base), out;
    {
      pyb::gil_scoped_release nogil;
      out = federated::compress::sparse_diff(u, b, rate, seed);
    }
    return weights_to_py(out);
  });
}

// A client's secure-aggregation state for one round (federated/secagg.h); each method takes
// the server's reply of the step before and returns the next request's payload.
void bind_secagg(pyb::module_& m) {
  using SecAgg = federated::secagg::Client;
  pyb::class_<SecAgg>(m, "_SecAggClient")
      .def(pyb::init<std::string>(), pyb::arg("client_id"))
      .def("keys", [](const SecAgg& c) { return weights_to_py(c.keys()); })
      .def("shares",
           [](SecAgg& c, const pyb::dict& key_list, uint64_t data_size) {
             return weights_to_py(c.shares(weights_from_py(key_list), data_size));
           })
      .def("accept_shares",
           [](SecAgg& c, const pyb::dict& sealed) { c.accept_shares(weights_from_py(sealed)); })
      .def("mask",
           [](const SecAgg& c, const pyb::dict& update) {
             Weights w = weights_from_py(update), out;
             {
               pyb::gil_scoped_release nogil;
               out = c.mask(w);
             }
             return weights_to_py(out);
           })
      .def("reveal", [](const SecAgg& c, const pyb::dict& survivors) {
        return weights_to_py(c.reveal(weights_from_py(survivors)));
      });
}

// Vertical federated learning (federated/vertical.h, psi.h): a party's endpoint and the
// private set intersection over it. Waits run without the GIL.
void bind_vertical(pyb::module_& m) {
  using Vfl = federated::vertical::Communicator;
  pyb::class_<Vfl>(m, "_VflCommunicator")
      .def(pyb::init([](const std::string& name, const std::string& host, int port,
                        const std::string& peer, double timeout, const pyb::bytes& secret_key,
                        const pyb::bytes& peer_public_key, int64_t replay_attack_time_diff) {
             MC_CHECK(timeout > 0, Value,
                      "VerticalFederatedCommunicator: timeout must be positive, got ", timeout,
                      ".");
             federated::vertical::PartyKeys keys;
             keys.secret_key = secret_key;
             keys.peer_public_key = peer_public_key;
             keys.replay_attack_time_diff_ms = replay_attack_time_diff;
             return std::make_unique<Vfl>(
                 name, host, port, peer,
                 std::chrono::milliseconds(static_cast<int64_t>(timeout * 1000)), keys);
           }),
           pyb::arg("name"), pyb::arg("host"), pyb::arg("port"), pyb::arg("peer_name"),
           pyb::arg("timeout"), pyb::arg("secret_key") = pyb::bytes(),
           pyb::arg("peer_public_key") = pyb::bytes(), pyb::arg("replay_attack_time_diff") = 600000)
      .def_property_readonly("port", &Vfl::port)
      .def("send",
           [](Vfl& c, const std::string& host, int port, const pyb::dict& tensors) {
             Weights w = weights_from_py(tensors);
             pyb::gil_scoped_release nogil;
             c.send(host, port, std::move(w));
           })
      .def("receive",
           [](Vfl& c) {
             Weights w;
             {
               pyb::gil_scoped_release nogil;
               w = c.receive();
             }
             return weights_to_py(w);
           })
      .def("events", &Vfl::events)
      .def("stop", [](Vfl& c) {
        pyb::gil_scoped_release nogil;
        c.stop();
      });
  m.def("_generate_party_keys", [] {
    auto [pk, sk] = federated::vertical::generate_party_keys();
    return pyb::make_tuple(pyb::bytes(pk), pyb::bytes(sk));
  });
  m.def("_run_psi", [](Vfl& comm, const std::string& host, int port,
                       const std::vector<std::string>& ids, uint64_t bucket, int threads) {
    std::vector<std::string> out;
    {
      pyb::gil_scoped_release nogil;
      out = federated::psi::run(comm, host, port, ids, bucket, threads);
    }
    pyb::list l;
    for (const std::string& s : out) l.append(pyb::bytes(s));
    return l;
  });
}

}  // namespace

void bind_federated(pyb::module_& parent) {
  pyb::module_ m = parent.def_submodule("_federated", "mycel.federated internals");
  bind_server_and_client(m);
  bind_compression(m);
  bind_secagg(m);
  bind_vertical(m);
}

}  // namespace mycel::py
