#include "data/sampler.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "base/error.h"
#include "data/random.h"
#include "data/source.h"

namespace mycel::data {
namespace {

int64_t limit(int64_t n, int64_t num_samples) {
  return num_samples < 0 ? n : std::min(n, num_samples);
}

// Fisher-Yates over v with the pass's stream.
void shuffle(std::vector<int64_t>& v, RowRandom& rng) {
  for (int64_t i = static_cast<int64_t>(v.size()) - 1; i > 0; --i) {
    std::swap(v[static_cast<size_t>(i)], v[static_cast<size_t>(rng.randint(0, i))]);
  }
}

// Entries first, first + shards, ... of all, wrapped around: ceil(n / shards) of them.
std::vector<int64_t> round_robin(const std::vector<int64_t>& all, int64_t shards, int64_t first) {
  std::vector<int64_t> v;
  auto n = static_cast<int64_t>(all.size());
  if (n == 0) return v;
  int64_t per = (n + shards - 1) / shards;
  v.reserve(static_cast<size_t>(per));
  for (int64_t k = 0; k < per; ++k) v.push_back(all[static_cast<size_t>((first + k * shards) % n)]);
  return v;
}

class Sequential : public Sampler {
 public:
  Sequential(int64_t start, int64_t num) : start_(start), num_(num) {}
  std::string name() const override { return "SequentialSampler"; }
  int64_t size(int64_t n) const override { return limit(std::max<int64_t>(n - start_, 0), num_); }
  std::vector<int64_t> order(int64_t n, uint64_t, uint64_t, uint64_t) const override {
    std::vector<int64_t> v(static_cast<size_t>(size(n)));
    std::iota(v.begin(), v.end(), start_);
    return v;
  }

 private:
  int64_t start_, num_;
};

class Random : public Sampler {
 public:
  Random(bool replacement, int64_t num) : replacement_(replacement), num_(num) {}
  std::string name() const override { return "RandomSampler"; }
  bool random() const override { return true; }
  int64_t size(int64_t n) const override { return limit(n, num_); }
  std::vector<int64_t> order(int64_t n, uint64_t seed, uint64_t key, uint64_t pass) const override {
    RowRandom rng(seed, key, pass, 0);
    if (replacement_) {
      std::vector<int64_t> v(static_cast<size_t>(size(n)));
      for (auto& x : v) x = rng.randint(0, n - 1);
      return v;
    }
    std::vector<int64_t> v(static_cast<size_t>(n));
    std::iota(v.begin(), v.end(), 0);
    shuffle(v, rng);
    v.resize(static_cast<size_t>(size(n)));
    return v;
  }

 private:
  bool replacement_;
  int64_t num_;
};

class Distributed : public Sampler {
 public:
  Distributed(int64_t shards, int64_t id, bool shuffle, int64_t num, int64_t offset)
      : shards_(shards), id_(id), shuffle_(shuffle), num_(num), offset_(offset) {}
  std::string name() const override { return "DistributedSampler"; }
  bool random() const override { return shuffle_; }
  int64_t size(int64_t n) const override { return limit((n + shards_ - 1) / shards_, num_); }
  std::vector<int64_t> order(int64_t n, uint64_t seed, uint64_t key, uint64_t pass) const override {
    std::vector<int64_t> all(static_cast<size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    if (shuffle_) {
      RowRandom rng(seed, key, pass, 0);
      shuffle(all, rng);
    }
    int64_t first = offset_ >= 0 ? (id_ - offset_ + shards_) % shards_ : id_;
    std::vector<int64_t> v = round_robin(all, shards_, first);
    v.resize(static_cast<size_t>(size(n)));
    return v;
  }

 private:
  int64_t shards_, id_;
  bool shuffle_;
  int64_t num_, offset_;
};

void check_indices(const std::string& who, const std::vector<int64_t>& idx, int64_t n) {
  for (int64_t i : idx) {
    MC_CHECK(i >= 0 && i < n, Index, who, ": sampler index ", i, " is out of range for ", n,
             " rows (Sample ID (", i, ") is out of bound, expected range [0, ", n - 1, "]).");
  }
}

class Subset : public Sampler {
 public:
  Subset(std::vector<int64_t> idx, int64_t num, bool random)
      : idx_(std::move(idx)), num_(num), random_(random) {}
  std::string name() const override { return random_ ? "SubsetRandomSampler" : "SubsetSampler"; }
  bool random() const override { return random_; }
  int64_t size(int64_t) const override { return limit(static_cast<int64_t>(idx_.size()), num_); }
  std::vector<int64_t> order(int64_t n, uint64_t seed, uint64_t key, uint64_t pass) const override {
    check_indices(name(), idx_, n);
    std::vector<int64_t> v = idx_;
    if (random_) {
      RowRandom rng(seed, key, pass, 0);
      shuffle(v, rng);
    }
    v.resize(static_cast<size_t>(size(n)));
    return v;
  }

 private:
  std::vector<int64_t> idx_;
  int64_t num_;
  bool random_;
};

class Weighted : public Sampler {
 public:
  Weighted(std::vector<double> w, int64_t num, bool replacement)
      : w_(std::move(w)), num_(num), replacement_(replacement) {}
  std::string name() const override { return "WeightedRandomSampler"; }
  bool random() const override { return true; }
  int64_t size(int64_t) const override { return num_; }
  std::vector<int64_t> order(int64_t n, uint64_t seed, uint64_t key, uint64_t pass) const override {
    int64_t k = static_cast<int64_t>(w_.size());
    MC_CHECK(k <= n, Index, name(), ": ", k, " weights for a source of ", n,
             " rows; there must be one weight per row at most.");
    RowRandom rng(seed, key, pass, 0);
    std::vector<int64_t> v;
    v.reserve(static_cast<size_t>(num_));
    if (replacement_) {  // inverse CDF over the prefix sums
      std::vector<double> cdf(w_.size());
      std::partial_sum(w_.begin(), w_.end(), cdf.begin());
      for (int64_t s = 0; s < num_; ++s) {
        double r = rng.uniform() * cdf.back();
        auto it = std::upper_bound(cdf.begin(), cdf.end(), r);
        int64_t pick = std::min<int64_t>(it - cdf.begin(), k - 1);
        while (w_[static_cast<size_t>(pick)] <= 0) --pick;  // r rounded onto a zero-weight end
        v.push_back(pick);
      }
      return v;
    }
    // Without replacement: Efraimidis-Spirakis, the num_ smallest keys -log(u) / w.
    std::vector<std::pair<double, int64_t>> keys;
    for (int64_t i = 0; i < k; ++i) {
      double u = rng.uniform();
      double wi = w_[static_cast<size_t>(i)];
      if (wi > 0) keys.emplace_back(-std::log1p(-u) / wi, i);
    }
    std::partial_sort(keys.begin(), keys.begin() + num_, keys.end());
    for (int64_t s = 0; s < num_; ++s) v.push_back(keys[static_cast<size_t>(s)].second);
    return v;
  }

 private:
  std::vector<double> w_;
  int64_t num_;
  bool replacement_;
};

// Shuffle.FILES: the files in a random order, each file's rows in their order; Shuffle.INFILE:
// the files in order, each file's rows in a random order. Then shard as Distributed.
class FileShuffle : public Sampler {
 public:
  FileShuffle(const std::vector<int32_t>& file_of_row, bool infile, int64_t shards, int64_t id,
              int64_t num)
      : rows_(static_cast<int64_t>(file_of_row.size())),
        infile_(infile),
        shards_(shards),
        id_(id),
        num_(num) {
    for (int64_t i = 0; i < rows_; ++i) {
      auto f = static_cast<size_t>(file_of_row[static_cast<size_t>(i)]);
      if (f >= files_.size()) files_.resize(f + 1);
      files_[f].push_back(i);
    }
  }
  std::string name() const override { return infile_ ? "Shuffle.INFILE" : "Shuffle.FILES"; }
  bool random() const override { return true; }
  int64_t size(int64_t n) const override { return limit((n + shards_ - 1) / shards_, num_); }
  std::vector<int64_t> order(int64_t n, uint64_t seed, uint64_t key, uint64_t pass) const override {
    MC_CHECK(n == rows_, Value, name(), ": the source has ", n, " rows but its file map has ",
             rows_, ".");
    RowRandom rng(seed, key, pass, 0);
    std::vector<int64_t> file_order(files_.size());
    std::iota(file_order.begin(), file_order.end(), 0);
    if (!infile_) shuffle(file_order, rng);
    std::vector<int64_t> all;
    all.reserve(static_cast<size_t>(n));
    for (int64_t f : file_order) {
      std::vector<int64_t> r = files_[static_cast<size_t>(f)];
      if (infile_) shuffle(r, rng);
      all.insert(all.end(), r.begin(), r.end());
    }
    std::vector<int64_t> v = round_robin(all, shards_, id_);
    v.resize(static_cast<size_t>(size(n)));
    return v;
  }

 private:
  int64_t rows_;
  std::vector<std::vector<int64_t>> files_;  // the rows of each file, in order
  bool infile_;
  int64_t shards_, id_, num_;
};

}  // namespace

SamplerPtr make_file_shuffle_sampler(const std::vector<int32_t>& file_of_row, bool infile,
                                     int64_t num_shards, int64_t shard_id, int64_t num_samples) {
  MC_CHECK(num_shards >= 1 && shard_id >= 0 && shard_id < num_shards, Value,
           "file shuffle: shard_id must be in [0, ", num_shards - 1, "], but got ", shard_id, ".");
  for (int32_t f : file_of_row) {
    MC_CHECK(f >= 0, Value, "file shuffle: file numbers must be >= 0, but got ", f, ".");
  }
  return std::make_shared<FileShuffle>(file_of_row, infile, num_shards, shard_id, num_samples);
}

SamplerPtr make_sequential_sampler(int64_t start_index, int64_t num_samples) {
  MC_CHECK(start_index >= 0, Value, "SequentialSampler: start_index must be >= 0, but got ",
           start_index, ".");
  return std::make_shared<Sequential>(start_index, num_samples);
}
SamplerPtr make_random_sampler(bool replacement, int64_t num_samples) {
  return std::make_shared<Random>(replacement, num_samples);
}
SamplerPtr make_distributed_sampler(int64_t num_shards, int64_t shard_id, bool shuffle,
                                    int64_t num_samples, int64_t offset) {
  MC_CHECK(num_shards >= 1, Value, "DistributedSampler: num_shards must be >= 1, but got ",
           num_shards, ".");
  MC_CHECK(shard_id >= 0 && shard_id < num_shards, Value,
           "DistributedSampler: shard_id must be in [0, ", num_shards - 1, "], but got ", shard_id,
           ".");
  return std::make_shared<Distributed>(num_shards, shard_id, shuffle, num_samples, offset);
}
SamplerPtr make_subset_sampler(std::vector<int64_t> indices, int64_t num_samples) {
  return std::make_shared<Subset>(std::move(indices), num_samples, false);
}
SamplerPtr make_subset_random_sampler(std::vector<int64_t> indices, int64_t num_samples) {
  return std::make_shared<Subset>(std::move(indices), num_samples, true);
}
SamplerPtr make_weighted_random_sampler(std::vector<double> weights, int64_t num_samples,
                                        bool replacement) {
  MC_CHECK(!weights.empty(), Value, "WeightedRandomSampler: weights must not be empty.");
  double total = 0;
  for (double w : weights) {
    MC_CHECK(w >= 0 && w == w, Value,
             "WeightedRandomSampler: weights must be non-negative numbers, but got ", w, ".");
    total += w;
  }
  MC_CHECK(total > 0, Value, "WeightedRandomSampler: the weights are all zero.");
  MC_CHECK(num_samples >= 1, Value, "WeightedRandomSampler: num_samples must be >= 1, but got ",
           num_samples, ".");
  int64_t positive = 0;
  for (double w : weights) positive += w > 0;
  MC_CHECK(replacement || num_samples <= positive, Value, "WeightedRandomSampler: num_samples (",
           num_samples, ") exceeds the rows with positive weight (", positive,
           ") without replacement.");
  return std::make_shared<Weighted>(std::move(weights), num_samples, replacement);
}

namespace {

// PKSampler: per class (sorted, or shuffled each pass), num_val draws of its rows.
class PK : public Sampler {
 public:
  PK(std::map<int64_t, std::vector<int64_t>> rows, int64_t num_val, bool shuffle, int64_t num)
      : num_val_(num_val), shuffle_(shuffle), num_(num) {
    for (auto& [cls, r] : rows) {
      classes_.push_back(cls);
      rows_.push_back(std::move(r));
    }
  }
  std::string name() const override { return "PKSampler"; }
  bool random() const override { return true; }  // draws within a class even without shuffle
  int64_t size(int64_t) const override {
    return limit(num_val_ * static_cast<int64_t>(rows_.size()), num_);
  }
  std::vector<int64_t> order(int64_t n, uint64_t seed, uint64_t key, uint64_t pass) const override {
    RowRandom rng(seed, key, pass, 0);
    std::vector<int64_t> which(rows_.size());
    std::iota(which.begin(), which.end(), 0);
    if (shuffle_) shuffle(which, rng);
    std::vector<int64_t> v;
    const int64_t total = size(n);
    v.reserve(static_cast<size_t>(total));
    for (int64_t k = 0; k < total; ++k) {
      const auto& rows = rows_[static_cast<size_t>(which[static_cast<size_t>(k / num_val_)])];
      const int64_t row =
          rows[static_cast<size_t>(rng.randint(0, static_cast<int64_t>(rows.size()) - 1))];
      MC_CHECK(row >= 0 && row < n, Index, "PKSampler: row ", row, " of a class is outside the ", n,
               " rows of the source.");
      v.push_back(row);
    }
    return v;
  }

 private:
  std::vector<int64_t> classes_;
  std::vector<std::vector<int64_t>> rows_;
  int64_t num_val_;
  bool shuffle_;
  int64_t num_;
};

}  // namespace

std::vector<std::pair<int64_t, int64_t>> class_rows_of(const RandomAccessSource& source,
                                                       const std::string& column) {
  std::vector<std::pair<int64_t, int64_t>> out = source.class_rows();
  if (!out.empty()) return out;
  const std::vector<std::string> names = source.columns();
  const auto it = std::find(names.begin(), names.end(), column);
  MC_CHECK(it != names.end(), Value, "PKSampler: ", source.name(),
           " has no classes to sample from: class_column '", column, "' is not one of its ",
           "columns.");
  const auto c = static_cast<size_t>(it - names.begin());
  std::vector<std::string> strings;  // string classes, numbered in sorted order below
  for (int64_t i = 0; i < source.size(); ++i) {
    const Array a = source.read(i)[c];
    MC_CHECK(a.numel() == 1, Value, "PKSampler: class_column '", column, "' of ", source.name(),
             " must hold one value per row, but row ", i, " has ", describe(a), ".");
    if (a.dtype() == DataType::String) {
      strings.push_back(a.str()[0]);
      out.emplace_back(-1, i);
      continue;
    }
    MC_CHECK(!is_float(a.dtype()), Value, "PKSampler: class_column '", column, "' of ",
             source.name(), " must hold integers or strings, but row ", i, " has ", describe(a),
             ".");
    const int64_t v = dispatch_data(a.dtype(), "PKSampler", [&](auto tag) {
      using T = typename decltype(tag)::type;
      return static_cast<int64_t>(*a.data<T>());
    });
    out.emplace_back(v, i);
  }
  if (!strings.empty()) {
    std::vector<std::string> sorted = strings;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    size_t k = 0;
    for (auto& [cls, row] : out) {
      if (cls != -1) continue;
      cls = std::lower_bound(sorted.begin(), sorted.end(), strings[k++]) - sorted.begin();
    }
  }
  return out;
}

SamplerPtr make_pk_sampler(const std::vector<std::pair<int64_t, int64_t>>& class_rows,
                           int64_t num_val, bool shuffle, int64_t num_samples,
                           std::string_view source) {
  MC_CHECK(num_val >= 1, Value, "PKSampler: num_val must be >= 1, but got ", num_val, ".");
  MC_CHECK(!class_rows.empty(), Value, "PKSampler: ", source,
           " has no classes to sample from (PKSampler needs a dataset with a label per row).");
  std::map<int64_t, std::vector<int64_t>> rows;
  for (const auto& [cls, row] : class_rows) rows[cls].push_back(row);
  return std::make_shared<PK>(std::move(rows), num_val, shuffle, num_samples);
}

namespace {

// A sampler over another's output: the parent picks positions in the child's order of the
// pass (MindSpore's add_child).
class Chained : public Sampler {
 public:
  Chained(SamplerPtr parent, SamplerPtr child)
      : parent_(std::move(parent)), child_(std::move(child)) {}
  std::string name() const override { return parent_->name(); }
  bool random() const override { return parent_->random() || child_->random(); }
  int64_t size(int64_t n) const override { return parent_->size(child_->size(n)); }
  std::vector<int64_t> order(int64_t n, uint64_t seed, uint64_t key, uint64_t pass) const override {
    const std::vector<int64_t> inner = child_->order(n, seed, key ^ 0x9e3779b97f4a7c15ULL, pass);
    std::vector<int64_t> outer =
        parent_->order(static_cast<int64_t>(inner.size()), seed, key, pass);
    for (int64_t& i : outer) {
      MC_CHECK(i >= 0 && i < static_cast<int64_t>(inner.size()), Index, name(), ": position ", i,
               " is outside the ", inner.size(), " rows its child sampler ", child_->name(),
               " gives.");
      i = inner[static_cast<size_t>(i)];
    }
    return outer;
  }

 private:
  SamplerPtr parent_, child_;
};

}  // namespace

SamplerPtr make_chained_sampler(SamplerPtr parent, SamplerPtr child) {
  MC_CHECK(parent && child, Value, "add_child: both samplers must be given.");
  return std::make_shared<Chained>(std::move(parent), std::move(child));
}

}  // namespace mycel::data
