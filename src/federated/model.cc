#include "federated/model.h"

#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <unordered_map>
#include <unordered_set>

#include "base/error.h"
#include "serialize/checkpoint.h"

namespace mycel::federated {

namespace {

std::string shape_str(const std::vector<int64_t>& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

float load_f32(const std::string& bytes, size_t i) {
  float v;
  std::memcpy(&v, bytes.data() + i * sizeof(float), sizeof(float));
  return v;
}

Param from_tensor(const std::string& name, const Tensor& t) {
  Param p;
  p.name = name;
  p.dtype = t.dtype();
  p.shape.assign(t.shape().begin(), t.shape().end());
  Tensor c = t.contiguous();
  p.bytes.assign(static_cast<const char*>(c.raw_data()), c.nbytes());
  return p;
}

Tensor to_tensor(const Param& p) {
  Tensor t = Tensor::empty(Shape(p.shape.begin(), p.shape.end()), p.dtype);
  if (!p.bytes.empty()) std::memcpy(t.raw_data(), p.bytes.data(), p.bytes.size());
  return t;
}

void write_all(int fd, const std::string& bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    MC_CHECK(n > 0, Runtime, "federated server: cannot write the checkpoint ", path, ": ",
             std::strerror(errno));
    done += static_cast<size_t>(n);
  }
}

}  // namespace

std::string update_problem(const Weights& global, const Weights& update) {
  std::unordered_map<std::string_view, const Param*> by_name;
  for (const Param& p : update) by_name.emplace(p.name, &p);
  std::unordered_set<std::string_view> known;
  for (const Param& g : global) known.insert(g.name);
  for (const Param& p : update)
    if (!known.count(p.name))
      return str("the update has a parameter '", printable(p.name), "' the model does not have");
  for (const Param& g : global) {
    auto it = by_name.find(g.name);
    if (it == by_name.end()) return str("the update lacks the parameter '", g.name, "'");
    const Param& p = *it->second;
    if (p.dtype != g.dtype)
      return str("parameter '", g.name, "' has dtype ", dtype_name(p.dtype), ", the model's is ",
                 dtype_name(g.dtype));
    if (p.shape != g.shape)
      return str("parameter '", g.name, "' has shape ", shape_str(p.shape), ", the model's is ",
                 shape_str(g.shape));
    for (size_t i = 0, n = static_cast<size_t>(g.numel()); i < n; ++i)
      if (!std::isfinite(load_f32(p.bytes, i)))
        return str("parameter '", g.name, "' has a non-finite value (NaN or Inf) at flat index ",
                   i);
  }
  return "";
}

FedAvg::FedAvg(const Weights& like) : layout_(like) {
  for (const Param& p : layout_) sum_.emplace_back(static_cast<size_t>(p.numel()), 0.0);
}

void FedAvg::add(const Weights& update, uint64_t samples) {
  MC_CHECK(samples > 0, Value, "FedAvg: an update needs a positive sample count.");
  std::unordered_map<std::string_view, const Param*> by_name;
  for (const Param& u : update) by_name.emplace(u.name, &u);
  for (size_t k = 0; k < layout_.size(); ++k) {
    auto it = by_name.find(layout_[k].name);
    MC_ASSERT(it != by_name.end(), "an unchecked update reached FedAvg");
    const Param* p = it->second;
    const double w = static_cast<double>(samples);
    std::vector<double>& s = sum_[k];
    for (size_t i = 0; i < s.size(); ++i) s[i] += w * load_f32(p->bytes, i);
  }
  ++count_;
  samples_ += samples;
}

Weights FedAvg::mean() const {
  MC_ASSERT(count_ > 0, "FedAvg::mean of no update");
  Weights out = layout_;
  const double total = static_cast<double>(samples_);
  for (size_t k = 0; k < out.size(); ++k) {
    std::string& b = out[k].bytes;
    for (size_t i = 0; i < sum_[k].size(); ++i) {
      float v = static_cast<float>(sum_[k][i] / total);
      std::memcpy(b.data() + i * sizeof(float), &v, sizeof(float));
    }
  }
  return out;
}

Weights ServerMomentum::step(const Weights& global, const Weights& average) {
  MC_ASSERT(global.size() == average.size(), "ServerMomentum: layouts differ");
  if (velocity_.empty()) {
    for (const Param& g : global) {
      Param v{g.name, DType::Float64, g.shape, std::string()};
      v.bytes.assign(static_cast<size_t>(g.numel()) * sizeof(double), '\0');
      velocity_.push_back(std::move(v));
    }
  }
  Weights out = global;
  for (size_t k = 0; k < out.size(); ++k) {
    MC_ASSERT(average[k].name == global[k].name, "ServerMomentum: layouts differ");
    double* v = reinterpret_cast<double*>(velocity_[k].bytes.data());
    for (size_t i = 0, n = static_cast<size_t>(global[k].numel()); i < n; ++i) {
      const double w = load_f32(global[k].bytes, i);
      v[i] = momentum_ * v[i] + (static_cast<double>(load_f32(average[k].bytes, i)) - w);
      const float next = static_cast<float>(w + lr_ * v[i]);
      std::memcpy(out[k].bytes.data() + i * sizeof(float), &next, sizeof(float));
    }
  }
  return out;
}

void ServerMomentum::restore(const Weights& global, Weights velocity) {
  if (velocity.empty()) return;  // saved before the first step, or without momentum
  MC_CHECK(velocity.size() == global.size(), Value, "FLServer: the round checkpoint has ",
           velocity.size(), " velocity entries for ", global.size(), " parameters.");
  for (size_t k = 0; k < global.size(); ++k)
    MC_CHECK(velocity[k].name == global[k].name && velocity[k].dtype == DType::Float64 &&
                 velocity[k].shape == global[k].shape,
             Value, "FLServer: the round checkpoint's entry '", kVelocityPrefix,
             printable(velocity[k].name), "' is not the float64 velocity of parameter '",
             global[k].name, "' ", shape_str(global[k].shape), ".");
  velocity_ = std::move(velocity);
}

Weights load_model(const std::string& path) {
  Weights w;
  for (const serialize::CheckpointEntry& e : serialize::load_checkpoint_file(path, "FLServer")) {
    MC_CHECK(!e.is_str && e.tensor.dtype() == DType::Float32, Value, "FLServer: the model ", path,
             " has an entry '", e.name, "' that is ",
             e.is_str ? std::string("a string") : str("of dtype ", dtype_name(e.tensor.dtype())),
             "; a federated model holds float32 parameters only.");
    MC_CHECK(e.name != kIterationKey, Value, "FLServer: the model ", path,
             " has a parameter named '", kIterationKey, "', which round checkpoints use.");
    w.push_back(from_tensor(e.name, e.tensor));
  }
  MC_CHECK(!w.empty(), Value, "FLServer: the model ", path, " has no parameters.");
  return w;
}

std::string round_checkpoint_path(const std::string& dir) { return dir + "/fl_global.ckpt"; }

void save_round(const std::string& dir, uint64_t iteration, const Weights& global,
                const Weights& velocity) {
  std::vector<serialize::CheckpointEntry> entries;
  auto add = [&](const std::string& name, Tensor t) {
    serialize::CheckpointEntry e;
    e.name = name;
    e.tensor = std::move(t);
    entries.push_back(std::move(e));
  };
  for (const Param& p : global) add(p.name, to_tensor(p));
  for (const Param& v : velocity) add(kVelocityPrefix + v.name, to_tensor(v));
  Tensor it = Tensor::empty({}, DType::Int64);
  *it.data<int64_t>() = static_cast<int64_t>(iteration);
  add(kIterationKey, it);
  const std::string bytes = serialize::encode_checkpoint(entries);
  const std::string path = round_checkpoint_path(dir), tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  MC_CHECK(fd >= 0, Runtime, "federated server: cannot create ", tmp, ": ", std::strerror(errno));
  try {
    write_all(fd, bytes, tmp);
    MC_CHECK(::fsync(fd) == 0, Runtime, "federated server: fsync of ", tmp,
             " failed: ", std::strerror(errno));
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  MC_CHECK(::rename(tmp.c_str(), path.c_str()) == 0, Runtime, "federated server: cannot rename ",
           tmp, " to ", path, ": ", std::strerror(errno));
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {  // the rename made durable
    ::fsync(dfd);
    ::close(dfd);
  }
}

std::optional<std::pair<uint64_t, Weights>> load_round(const std::string& dir, Weights* velocity) {
  const std::string path = round_checkpoint_path(dir);
  if (!std::filesystem::exists(path)) return std::nullopt;
  std::optional<uint64_t> iteration;
  Weights w;
  for (const serialize::CheckpointEntry& e : serialize::load_checkpoint_file(path, "FLServer")) {
    if (e.name == kIterationKey && !e.is_str && e.tensor.dtype() == DType::Int64 &&
        e.tensor.numel() == 1) {
      iteration = static_cast<uint64_t>(e.tensor.item().to_int());
      continue;
    }
    const size_t prefix = std::strlen(kVelocityPrefix);
    if (e.name.compare(0, prefix, kVelocityPrefix) == 0 && !e.is_str &&
        e.tensor.dtype() == DType::Float64) {
      if (velocity) velocity->push_back(from_tensor(e.name.substr(prefix), e.tensor));
      continue;
    }
    MC_CHECK(!e.is_str && e.tensor.dtype() == DType::Float32, Value,
             "FLServer: the round checkpoint ", path, " has an entry '", e.name,
             "' that is not a float32 parameter.");
    w.push_back(from_tensor(e.name, e.tensor));
  }
  MC_CHECK(iteration.has_value() && !w.empty(), Value, "FLServer: the round checkpoint ", path,
           " lacks its '", kIterationKey, "' entry or its parameters.");
  return std::make_pair(*iteration, std::move(w));
}

}  // namespace mycel::federated
