// RandomApply, RandomChoice, RandomOrder, RandomSelectSubpolicy and the augmentation
// policies AutoAugment, RandAugment and TrivialAugmentWide (declared in
// transforms_vision_policy.h).
#include "data/transforms_vision_policy.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "data/transforms_vision_ext.h"

namespace mycel::data {

namespace {

std::vector<Array> run_chain(const Chain& chain, std::vector<Array> in, int lead, RowRandom* rng) {
  for (const auto& t : chain) in = t->apply(std::move(in), lead, rng);
  return in;
}

void check_chains(const std::vector<Chain>& ops, std::string_view op) {
  MC_CHECK(!ops.empty(), Value, op, ": transforms must not be empty.");
  for (const auto& chain : ops) {
    for (const auto& t : chain) MC_CHECK(t != nullptr, Value, op, ": a transform is None.");
  }
}

class RandomApplyChain final : public Transform {
 public:
  RandomApplyChain(Chain ops, double prob) : ops_(std::move(ops)), prob_(prob) {
    check_chains({ops_}, name());
    MC_CHECK(prob >= 0 && prob <= 1, Value, "RandomApply: prob must be in [0, 1], but got ", prob,
             ".");
  }
  std::string_view name() const override { return "RandomApply"; }
  bool random() const override { return true; }
  std::vector<Array> apply(std::vector<Array> in, int lead, RowRandom* rng) const override {
    if (!rng->bernoulli(prob_)) return in;
    return run_chain(ops_, std::move(in), lead, rng);
  }

 private:
  Chain ops_;
  double prob_;
};

class RandomChoice final : public Transform {
 public:
  explicit RandomChoice(std::vector<Chain> ops) : ops_(std::move(ops)) {
    check_chains(ops_, name());
  }
  std::string_view name() const override { return "RandomChoice"; }
  bool random() const override { return true; }
  std::vector<Array> apply(std::vector<Array> in, int lead, RowRandom* rng) const override {
    auto i = rng->randint(0, static_cast<int64_t>(ops_.size()) - 1);
    return run_chain(ops_[static_cast<size_t>(i)], std::move(in), lead, rng);
  }

 private:
  std::vector<Chain> ops_;
};

class RandomOrder final : public Transform {
 public:
  explicit RandomOrder(std::vector<Chain> ops) : ops_(std::move(ops)) {
    check_chains(ops_, name());
  }
  std::string_view name() const override { return "RandomOrder"; }
  bool random() const override { return true; }
  std::vector<Array> apply(std::vector<Array> in, int lead, RowRandom* rng) const override {
    std::vector<size_t> order(ops_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    for (size_t i = order.size(); i > 1; --i) {  // Fisher-Yates
      auto j = static_cast<size_t>(rng->randint(0, static_cast<int64_t>(i) - 1));
      std::swap(order[i - 1], order[j]);
    }
    for (size_t i : order) in = run_chain(ops_[i], std::move(in), lead, rng);
    return in;
  }

 private:
  std::vector<Chain> ops_;
};

class RandomSelectSubpolicy final : public Transform {
 public:
  explicit RandomSelectSubpolicy(std::vector<std::vector<std::pair<Chain, double>>> policy)
      : policy_(std::move(policy)) {
    MC_CHECK(!policy_.empty(), Value, "RandomSelectSubpolicy: policy must not be empty.");
    for (const auto& sub : policy_) {
      MC_CHECK(!sub.empty(), Value, "RandomSelectSubpolicy: a sub-policy must not be empty.");
      for (const auto& [chain, prob] : sub) {
        check_chains({chain}, name());
        MC_CHECK(prob >= 0 && prob <= 1, Value,
                 "RandomSelectSubpolicy: prob must be in [0, 1], but got ", prob, ".");
      }
    }
  }
  std::string_view name() const override { return "RandomSelectSubpolicy"; }
  bool random() const override { return true; }
  std::vector<Array> apply(std::vector<Array> in, int lead, RowRandom* rng) const override {
    auto i = rng->randint(0, static_cast<int64_t>(policy_.size()) - 1);
    for (const auto& [chain, prob] : policy_[static_cast<size_t>(i)]) {
      if (rng->bernoulli(prob)) in = run_chain(chain, std::move(in), lead, rng);
    }
    return in;
  }

 private:
  std::vector<std::vector<std::pair<Chain, double>>> policy_;
};

// ----- augmentation ops -----

// MindSpore's ValidateImage for the policies: uint8, rank 3, 3 channels (RuntimeErrors).
void check_policy_image(const Array& x, std::string_view op) {
  MC_CHECK(x.dtype() == DataType::UInt8, Runtime, op,
           ": the data type of image tensor does not match the requirement of operator. "
           "Expecting tensor in type of (uint8). But got ",
           describe(x), ".");
  MC_CHECK(x.ndim() == 3, Runtime, op,
           ": the dimension of image tensor does not match the requirement of operator. "
           "Expecting tensor in dimension of (3). But got dimension ",
           x.ndim(), ".");
  MC_CHECK(x.shape()[2] == 3, Runtime, op,
           ": the channel of image tensor does not match the requirement of operator. "
           "Expecting tensor in channel of (3). But got channel ",
           x.shape()[2], ".");
}

Array map_bytes(const Array& x, const std::array<uint8_t, 256>& table) {
  Array out = Array::empty(DataType::UInt8, x.shape());
  const uint8_t* src = x.data<uint8_t>();
  uint8_t* dst = out.mutable_data<uint8_t>();
  for (int64_t i = 0; i < x.numel(); ++i) dst[i] = table[src[i]];
  return out;
}

Array run1(const TransformPtr& t, const Array& x) { return t->apply({x}, 0, nullptr)[0]; }

// Round half to even in float, MindSpore's Round.
float round_even(float v) { return std::nearbyint(v); }

// MindSpore's Linspace: n values from start to end, each then * scale + offset (rounded).
std::vector<float> linspace(float start, float end, int64_t n, float scale = 1.0f,
                            float offset = 0.0f, bool round = false) {
  std::vector<float> out(static_cast<size_t>(n));
  float step = n == 1 ? 0.0f : (end - start) / static_cast<float>(n - 1);
  for (int64_t i = 0; i < n; ++i) {
    float v = (start + static_cast<float>(i) * step) * scale + offset;
    out[static_cast<size_t>(i)] = round ? round_even(v) : v;
  }
  return out;
}

// An op of a policy's space: its magnitudes (empty: none) and whether its sign is drawn.
struct SpaceOp {
  const char* name;
  std::vector<float> magnitudes;
  bool signed_;
};

enum class SpaceKind { AutoAugment, RandAugment, TrivialAugmentWide };

// The ops and magnitude bins of a policy, in MindSpore's order (its std::map: by name).
std::vector<SpaceOp> space(SpaceKind kind, int64_t bins, int64_t h, int64_t w) {
  bool wide = kind == SpaceKind::TrivialAugmentWide;
  float shear = wide ? 0.99f : 0.3f, enhance = wide ? 0.99f : 0.9f, rotate = wide ? 135.0f : 30.0f;
  float tx = wide ? 32.0f : 150.0f / 331 * static_cast<float>(w);
  float ty = wide ? 32.0f : 150.0f / 331 * static_cast<float>(h);
  float bins_f = static_cast<float>(bins);
  std::vector<float> posterize =
      linspace(0.0f, bins_f - 1.0f, bins, (wide ? -6.0f : -4.0f) / (bins_f - 1.0f), 8, true);
  float solarize_top = kind == SpaceKind::AutoAugment ? 256.0f : 255.0f;
  std::vector<SpaceOp> ops = {
      {"AutoContrast", {}, false},
      {"Brightness", linspace(0, enhance, bins), true},
      {"Color", linspace(0, enhance, bins), true},
      {"Contrast", linspace(0, enhance, bins), true},
      {"Equalize", {}, false},
      {"Posterize", posterize, false},
      {"Rotate", linspace(0, rotate, bins), true},
      {"Sharpness", linspace(0, enhance, bins), true},
      {"ShearX", linspace(0, shear, bins), true},
      {"ShearY", linspace(0, shear, bins), true},
      {"Solarize", linspace(solarize_top, 0, bins), false},
      {"TranslateX", linspace(0, tx, bins), true},
      {"TranslateY", linspace(0, ty, bins), true},
  };
  if (kind == SpaceKind::AutoAugment) {
    ops.push_back({"Invert", {}, false});
  } else {
    ops.insert(ops.begin() + 5, SpaceOp{"Identity", {}, false});
  }
  return ops;
}

const SpaceOp& find_op(const std::vector<SpaceOp>& ops, std::string_view name) {
  for (const auto& op : ops) {
    if (name == op.name) return op;
  }
  MC_THROW(Value, "AutoAugment: unknown augmentation op '", name, "'.");
}

// ----- AutoAugment's policies: 25 sub-policies of two (op, probability, magnitude bin) -----

struct Step {
  const char* op;
  float prob;
  int bin;  // -1: the op takes no magnitude
};
using SubPolicy = std::array<Step, 2>;

const std::vector<SubPolicy>& policy_table(AutoAugmentPolicy p) {
  static const std::vector<SubPolicy> imagenet = {
      {{{"Posterize", 0.4f, 8}, {"Rotate", 0.6f, 9}}},
      {{{"Solarize", 0.6f, 5}, {"AutoContrast", 0.6f, -1}}},
      {{{"Equalize", 0.8f, -1}, {"Equalize", 0.6f, -1}}},
      {{{"Posterize", 0.6f, 7}, {"Posterize", 0.6f, 6}}},
      {{{"Equalize", 0.4f, -1}, {"Solarize", 0.2f, 4}}},
      {{{"Equalize", 0.4f, -1}, {"Rotate", 0.8f, 8}}},
      {{{"Solarize", 0.6f, 3}, {"Equalize", 0.6f, -1}}},
      {{{"Posterize", 0.8f, 5}, {"Equalize", 1.0f, -1}}},
      {{{"Rotate", 0.2f, 3}, {"Solarize", 0.6f, 8}}},
      {{{"Equalize", 0.6f, -1}, {"Posterize", 0.4f, 6}}},
      {{{"Rotate", 0.8f, 8}, {"Color", 0.4f, 0}}},
      {{{"Rotate", 0.4f, 9}, {"Equalize", 0.6f, -1}}},
      {{{"Equalize", 0.0f, -1}, {"Equalize", 0.8f, -1}}},
      {{{"Invert", 0.6f, -1}, {"Equalize", 1.0f, -1}}},
      {{{"Color", 0.6f, 4}, {"Contrast", 1.0f, 8}}},
      {{{"Rotate", 0.8f, 8}, {"Color", 1.0f, 2}}},
      {{{"Color", 0.8f, 8}, {"Solarize", 0.8f, 7}}},
      {{{"Sharpness", 0.4f, 7}, {"Invert", 0.6f, -1}}},
      {{{"ShearX", 0.6f, 5}, {"Equalize", 1.0f, -1}}},
      {{{"Color", 0.4f, 0}, {"Equalize", 0.6f, -1}}},
      {{{"Equalize", 0.4f, -1}, {"Solarize", 0.2f, 4}}},
      {{{"Solarize", 0.6f, 5}, {"AutoContrast", 0.6f, -1}}},
      {{{"Invert", 0.6f, -1}, {"Equalize", 1.0f, -1}}},
      {{{"Color", 0.6f, 4}, {"Contrast", 1.0f, 8}}},
      {{{"Equalize", 0.8f, -1}, {"Equalize", 0.6f, -1}}},
  };
  static const std::vector<SubPolicy> cifar10 = {
      {{{"Invert", 0.1f, -1}, {"Contrast", 0.2f, 6}}},
      {{{"Rotate", 0.7f, 2}, {"TranslateX", 0.3f, 9}}},
      {{{"Sharpness", 0.8f, 1}, {"Sharpness", 0.9f, 3}}},
      {{{"ShearY", 0.5f, 8}, {"TranslateY", 0.7f, 9}}},
      {{{"AutoContrast", 0.5f, -1}, {"Equalize", 0.9f, -1}}},
      {{{"ShearY", 0.2f, 7}, {"Posterize", 0.3f, 7}}},
      {{{"Color", 0.4f, 3}, {"Brightness", 0.6f, 7}}},
      {{{"Sharpness", 0.3f, 9}, {"Brightness", 0.7f, 9}}},
      {{{"Equalize", 0.6f, -1}, {"Equalize", 0.5f, -1}}},
      {{{"Contrast", 0.6f, 7}, {"Sharpness", 0.6f, 5}}},
      {{{"Color", 0.7f, 7}, {"TranslateX", 0.5f, 8}}},
      {{{"Equalize", 0.3f, -1}, {"AutoContrast", 0.4f, -1}}},
      {{{"TranslateY", 0.4f, 3}, {"Sharpness", 0.2f, 6}}},
      {{{"Brightness", 0.9f, 6}, {"Color", 0.2f, 8}}},
      {{{"Solarize", 0.5f, 2}, {"Invert", 0.0f, -1}}},
      {{{"Equalize", 0.2f, -1}, {"AutoContrast", 0.6f, -1}}},
      {{{"Equalize", 0.2f, -1}, {"Equalize", 0.6f, -1}}},
      {{{"Color", 0.9f, 9}, {"Equalize", 0.6f, -1}}},
      {{{"AutoContrast", 0.8f, -1}, {"Solarize", 0.2f, 8}}},
      {{{"Brightness", 0.1f, 3}, {"Color", 0.7f, 0}}},
      {{{"Solarize", 0.4f, 5}, {"AutoContrast", 0.9f, -1}}},
      {{{"TranslateY", 0.9f, 9}, {"TranslateY", 0.7f, 9}}},
      {{{"AutoContrast", 0.9f, -1}, {"Solarize", 0.8f, 3}}},
      {{{"Equalize", 0.8f, -1}, {"Invert", 0.1f, -1}}},
      {{{"TranslateY", 0.7f, 9}, {"AutoContrast", 0.9f, -1}}},
  };
  static const std::vector<SubPolicy> svhn = {
      {{{"ShearX", 0.9f, 4}, {"Invert", 0.2f, -1}}},
      {{{"ShearY", 0.9f, 8}, {"Invert", 0.7f, -1}}},
      {{{"Equalize", 0.6f, -1}, {"Solarize", 0.6f, 6}}},
      {{{"Invert", 0.9f, -1}, {"Equalize", 0.6f, -1}}},
      {{{"Equalize", 0.6f, -1}, {"Rotate", 0.9f, 3}}},
      {{{"ShearX", 0.9f, 4}, {"AutoContrast", 0.8f, -1}}},
      {{{"ShearY", 0.9f, 8}, {"Invert", 0.4f, -1}}},
      {{{"ShearY", 0.9f, 5}, {"Solarize", 0.2f, 6}}},
      {{{"Invert", 0.9f, -1}, {"AutoContrast", 0.8f, -1}}},
      {{{"Equalize", 0.6f, -1}, {"Rotate", 0.9f, 3}}},
      {{{"ShearX", 0.9f, 4}, {"Solarize", 0.3f, 3}}},
      {{{"ShearY", 0.8f, 8}, {"Invert", 0.7f, -1}}},
      {{{"Equalize", 0.9f, -1}, {"TranslateY", 0.6f, 6}}},
      {{{"Invert", 0.9f, -1}, {"Equalize", 0.6f, -1}}},
      {{{"Contrast", 0.3f, 3}, {"Rotate", 0.8f, 4}}},
      {{{"Invert", 0.8f, -1}, {"TranslateY", 0.0f, 2}}},
      {{{"ShearY", 0.7f, 6}, {"Solarize", 0.4f, 8}}},
      {{{"Invert", 0.6f, -1}, {"Rotate", 0.8f, 4}}},
      {{{"ShearY", 0.3f, 7}, {"TranslateX", 0.9f, 3}}},
      {{{"ShearX", 0.1f, 6}, {"Invert", 0.6f, -1}}},
      {{{"Solarize", 0.7f, 2}, {"TranslateY", 0.6f, 7}}},
      {{{"ShearY", 0.8f, 4}, {"Invert", 0.8f, -1}}},
      {{{"ShearX", 0.7f, 9}, {"TranslateY", 0.8f, 3}}},
      {{{"ShearY", 0.8f, 5}, {"AutoContrast", 0.7f, -1}}},
      {{{"ShearX", 0.7f, 2}, {"Invert", 0.1f, -1}}},
  };
  switch (p) {
    case AutoAugmentPolicy::ImageNet:
      return imagenet;
    case AutoAugmentPolicy::Cifar10:
      return cifar10;
    case AutoAugmentPolicy::Svhn:
      return svhn;
  }
  return imagenet;
}

class AutoAugment final : public UnaryTransform {
 public:
  AutoAugment(AutoAugmentPolicy policy, Interp interp, std::vector<double> fill)
      : policy_(policy), interp_(interp), fill_(std::move(fill)) {}
  std::string_view name() const override { return "AutoAugment"; }
  bool random() const override { return true; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom* rng) const override {
    MC_CHECK(lead == 0, Value, "AutoAugment cannot run on a batch.");
    check_policy_image(x, name());
    const auto& table = policy_table(policy_);
    // MindSpore's draws: the sub-policy, two probabilities, two signs.
    const SubPolicy& sub =
        table[static_cast<size_t>(rng->randint(0, static_cast<int64_t>(table.size()) - 1))];
    double probs[2] = {rng->uniform(), rng->uniform()};
    int64_t signs[2] = {rng->randint(0, 1), rng->randint(0, 1)};
    auto ops = space(SpaceKind::AutoAugment, 10, x.shape()[0], x.shape()[1]);
    Array img = x;
    for (int i = 0; i < 2; ++i) {
      if (probs[i] > sub[i].prob) continue;
      const SpaceOp& op = find_op(ops, sub[i].op);
      float m = 0.0f;
      if (!op.magnitudes.empty() && sub[i].bin >= 0) m = op.magnitudes[sub[i].bin];
      if (op.signed_ && signs[i] == 0) m = -m;
      img = apply_augment(img, op.name, m, interp_, fill_, name());
    }
    return img;
  }

 private:
  AutoAugmentPolicy policy_;
  Interp interp_;
  std::vector<double> fill_;
};

// RandAugment and TrivialAugmentWide.
class RandAugment final : public UnaryTransform {
 public:
  RandAugment(bool wide, int64_t num_ops, int64_t magnitude, int64_t bins, Interp interp,
              std::vector<double> fill)
      : wide_(wide),
        num_ops_(num_ops),
        magnitude_(magnitude),
        bins_(bins),
        interp_(interp),
        fill_(std::move(fill)) {
    MC_CHECK(bins >= 2, Value, name(), ": num_magnitude_bins must be at least 2, but got ", bins,
             ".");
    MC_CHECK(num_ops >= 0 && magnitude >= 0 && magnitude < bins, Value, name(),
             ": magnitude must be in [0, ", bins, ") and num_ops >= 0, but got ", magnitude,
             " and ", num_ops, ".");
  }
  std::string_view name() const override { return wide_ ? "TrivialAugmentWide" : "RandAugment"; }
  bool random() const override { return true; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom* rng) const override {
    MC_CHECK(lead == 0, Value, name(), " cannot run on a batch.");
    check_policy_image(x, name());
    auto ops = space(wide_ ? SpaceKind::TrivialAugmentWide : SpaceKind::RandAugment, bins_,
                     x.shape()[0], x.shape()[1]);
    Array img = x;
    for (int64_t k = 0; k < num_ops_; ++k) {
      const SpaceOp& op =
          ops[static_cast<size_t>(rng->randint(0, static_cast<int64_t>(ops.size()) - 1))];
      float m = 0.0f;
      if (!op.magnitudes.empty()) {
        int64_t bin = wide_ ? rng->randint(0, bins_ - 1) : magnitude_;
        m = op.magnitudes[static_cast<size_t>(bin)];
      }
      if (rng->randint(0, 1) != 0 && op.signed_) m = -m;
      img = apply_augment(img, op.name, m, interp_, fill_, name());
    }
    return img;
  }

 private:
  bool wide_;
  int64_t num_ops_, magnitude_, bins_;
  Interp interp_;
  std::vector<double> fill_;
};

}  // namespace

Array apply_augment(const Array& img, std::string_view aug, float magnitude, Interp interp,
                    const std::vector<double>& fill, std::string_view op) {
  constexpr double kPi = 3.14159265358979323846;
  const double w = static_cast<double>(img.shape()[1]), h = static_cast<double>(img.shape()[0]);
  if (aug == "Identity") return img;
  if (aug == "ShearX" || aug == "ShearY") {
    double deg = static_cast<double>(magnitude) * 180.0 / kPi;
    std::array<double, 2> shear =
        aug == "ShearX" ? std::array<double, 2>{deg, 0.0} : std::array<double, 2>{0.0, deg};
    return run1(make_affine(0.0, {0.0, 0.0}, 1.0, shear, interp, fill), img);
  }
  if (aug == "TranslateX" || aug == "TranslateY") {
    // int(magnitude) pixels, given to Affine as a fraction of the width / height
    double px = static_cast<double>(static_cast<int>(magnitude));
    std::array<double, 2> t = aug == "TranslateX" ? std::array<double, 2>{px / w, 0.0}
                                                  : std::array<double, 2>{0.0, px / h};
    return run1(make_affine(0.0, t, 1.0, {0.0, 0.0}, interp, fill), img);
  }
  if (aug == "Rotate") return run1(make_rotate(magnitude, interp, false, {}, fill), img);
  if (aug == "Brightness") return adjust_color(img, ColorAdjust::Brightness, 1.0 + magnitude, op);
  if (aug == "Color") return adjust_color(img, ColorAdjust::Saturation, 1.0 + magnitude, op);
  if (aug == "Contrast") return adjust_color(img, ColorAdjust::Contrast, 1.0 + magnitude, op);
  if (aug == "Sharpness") return adjust_color(img, ColorAdjust::Sharpness, 1.0 + magnitude, op);
  if (aug == "AutoContrast") return run1(make_auto_contrast(0.0, {}), img);
  if (aug == "Equalize") return run1(make_equalize(), img);
  std::array<uint8_t, 256> table{};
  if (aug == "Posterize") {
    int bits = std::clamp(static_cast<int>(magnitude), 0, 8);
    auto mask = static_cast<uint8_t>(bits == 0 ? 0 : (0xff << (8 - bits)) & 0xff);
    for (int v = 0; v < 256; ++v) table[v] = static_cast<uint8_t>(v & mask);
  } else if (aug == "Solarize") {  // values >= magnitude inverted
    for (int v = 0; v < 256; ++v) {
      table[v] = static_cast<uint8_t>(static_cast<float>(v) >= magnitude ? 255 - v : v);
    }
  } else if (aug == "Invert") {
    for (int v = 0; v < 256; ++v) table[v] = static_cast<uint8_t>(255 - v);
  } else {
    MC_THROW(Value, op, ": unknown augmentation op '", aug, "'.");
  }
  return map_bytes(img, table);
}

TransformPtr make_random_apply_chain(Chain ops, double prob) {
  return std::make_shared<RandomApplyChain>(std::move(ops), prob);
}
TransformPtr make_random_choice(std::vector<Chain> ops) {
  return std::make_shared<RandomChoice>(std::move(ops));
}
TransformPtr make_random_order(std::vector<Chain> ops) {
  return std::make_shared<RandomOrder>(std::move(ops));
}
TransformPtr make_random_select_subpolicy(
    std::vector<std::vector<std::pair<Chain, double>>> policy) {
  return std::make_shared<RandomSelectSubpolicy>(std::move(policy));
}
TransformPtr make_auto_augment(AutoAugmentPolicy policy, Interp interp, std::vector<double> fill) {
  return std::make_shared<AutoAugment>(policy, interp, std::move(fill));
}
TransformPtr make_rand_augment(int64_t num_ops, int64_t magnitude, int64_t num_bins, Interp interp,
                               std::vector<double> fill) {
  return std::make_shared<RandAugment>(false, num_ops, magnitude, num_bins, interp,
                                       std::move(fill));
}
TransformPtr make_trivial_augment_wide(int64_t num_bins, Interp interp, std::vector<double> fill) {
  return std::make_shared<RandAugment>(true, 1, 0, num_bins, interp, std::move(fill));
}

}  // namespace mycel::data
