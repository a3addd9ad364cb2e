// The global model of a federated server: checks of client updates against it, FedAvg, and
// its round checkpoints (src/federated/server.h uses them; the wire form is wire.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "federated/wire.h"

namespace mycel::federated {

// The reason `update` cannot be averaged into `global` ("" when it can): a parameter missing,
// unknown, or of another dtype or shape than the global one, or a NaN or infinite value. The
// global model is float32 only (load_model checks it).
std::string update_problem(const Weights& global, const Weights& update);

// FedAvg: the mean of updates weighted by their sample counts, accumulated in float64 so the
// result does not depend on the order updates came in beyond rounding to float32.
class FedAvg {
 public:
  explicit FedAvg(const Weights& like);  // the layout (names, shapes) of the sum
  // Adds `update` (checked by update_problem) with weight `samples` > 0.
  void add(const Weights& update, uint64_t samples);
  uint64_t count() const { return count_; }
  uint64_t samples() const { return samples_; }
  Weights mean() const;  // in the layout of `like`; needs count() > 0

 private:
  Weights layout_;
  std::vector<std::vector<double>> sum_;
  uint64_t count_ = 0, samples_ = 0;
};

// FedAvgM (Hsu et al. 2019, "Measuring the Effects of Non-Identical Data Distribution for
// Federated Visual Classification"): server momentum over the rounds' averaged updates. With a
// round's FedAvg average a and the global model w, v <- momentum * v + (a - w) and
// w <- w + lr * v; v starts at zero and is kept in float64 (a Float64 Param per parameter,
// named as it). lr 1 and momentum 0 is plain FedAvg. Averaging the last ~1 / (1 - momentum)
// rounds' updates damps the swing that a round's random non-IID clients give the model.
class ServerMomentum {
 public:
  ServerMomentum(double lr, double momentum) : lr_(lr), momentum_(momentum) {}
  // The next global model from `global` and the round's `average` (same layout, float32).
  Weights step(const Weights& global, const Weights& average);
  const Weights& velocity() const { return velocity_; }  // empty before the first step
  // Continues from a checkpoint's velocity: Float64 and the layout of `global`, or a
  // ValueError naming the checkpoint entry that differs.
  void restore(const Weights& global, Weights velocity);

 private:
  double lr_, momentum_;
  Weights velocity_;
};

// The float32 parameters of a checkpoint file (mycel.save_checkpoint's format): any other
// entry (a string, another dtype) is a ValueError naming it.
Weights load_model(const std::string& path);

// The round checkpoint in `dir`: <dir>/fl_global.ckpt, the global model plus the entry
// kIterationKey (int64, the completed round) and, with server momentum, its velocity as
// float64 entries named kVelocityPrefix + the parameter's name. save_round writes a temporary file
// beside it, fsyncs it, renames it over the old one and fsyncs the directory, so a crash leaves
// either the old checkpoint or the new one, never a torn file.
inline constexpr const char* kIterationKey = "fl_iteration";
inline constexpr const char* kVelocityPrefix = "fl_velocity/";
std::string round_checkpoint_path(const std::string& dir);
void save_round(const std::string& dir, uint64_t iteration, const Weights& global,
                const Weights& velocity = {});
// The (completed round, model) of dir's checkpoint, or nullopt when there is none; its
// velocity entries (prefix stripped) go to `velocity` when given.
std::optional<std::pair<uint64_t, Weights>> load_round(const std::string& dir,
                                                       Weights* velocity = nullptr);

}  // namespace mycel::federated
