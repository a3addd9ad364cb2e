// Samplers: which rows of a random-access source one pass reads, and in which order
// (MindSpore's SequentialSampler, RandomSampler, DistributedSampler, SubsetSampler,
// SubsetRandomSampler, WeightedRandomSampler, PKSampler). A sampler is an immutable description:
// the order of pass p is a pure function of (source size, seed, sampler key, p), so every shard of
// a distributed job draws the same permutation from the same seed, and a resumed pipeline
// recomputes the order of the pass it resumes in.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mycel::data {

class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual std::string name() const = 0;
  // How many indices one pass yields over a source of n rows.
  virtual int64_t size(int64_t n) const = 0;
  // The indices of pass `pass` over a source of n rows (each in [0, n)). Random samplers draw
  // from RowRandom(seed, key, pass, 0). Errors (an index out of range) name the sampler.
  virtual std::vector<int64_t> order(int64_t n, uint64_t seed, uint64_t key,
                                     uint64_t pass) const = 0;
  virtual bool random() const { return false; }
};

using SamplerPtr = std::shared_ptr<Sampler>;  // non-const for pybind11 holders

// num_samples < 0 means "all".
SamplerPtr make_sequential_sampler(int64_t start_index, int64_t num_samples);
SamplerPtr make_random_sampler(bool replacement, int64_t num_samples);
// Rows shard_id, shard_id + num_shards, ... of the (shuffled) order, the order wrapped around
// so every shard gets ceil(n / num_shards) rows; offset >= 0 starts the round-robin at
// shard `offset` instead (MindSpore's concat of sharded datasets).
SamplerPtr make_distributed_sampler(int64_t num_shards, int64_t shard_id, bool shuffle,
                                    int64_t num_samples, int64_t offset);
SamplerPtr make_subset_sampler(std::vector<int64_t> indices, int64_t num_samples);
SamplerPtr make_subset_random_sampler(std::vector<int64_t> indices, int64_t num_samples);
// Shuffle.FILES (infile false: the files in a new random order each pass, every file's rows in
// their order) or Shuffle.INFILE (infile true: the files in order, every file's rows in a new
// random order), then rows shard_id, shard_id + num_shards, ... as the distributed sampler
// takes them. file_of_row[i] is the file of row i (RandomAccessSource::file_of_rows).
SamplerPtr make_file_shuffle_sampler(const std::vector<int32_t>& file_of_row, bool infile,
                                     int64_t num_shards, int64_t shard_id, int64_t num_samples);
SamplerPtr make_weighted_random_sampler(std::vector<double> weights, int64_t num_samples,
                                        bool replacement);
// MindSpore's PKSampler: for each class (sorted, or in a new random order each pass when
// shuffle), num_val rows drawn uniformly (with replacement) from the class's rows; num_samples
// caps the total. class_rows: (class, row) pairs, RandomAccessSource::class_rows(); empty is a
// ValueError naming `source`.
// MindSpore's Sampler.add_child: the parent samples positions of the child's order of the
// same pass (child drawn from its own stream); size(n) = parent.size(child.size(n)).
SamplerPtr make_chained_sampler(SamplerPtr parent, SamplerPtr child);
// The (class, row) pairs of a source for PKSampler: its class_rows(), or, when it has none,
// the value of column `column` in every row (read once here): a 0-d integer gives its value,
// a 0-d string its position among the sorted distinct strings. A missing column or a value
// that is not a scalar is a ValueError naming the source.
class RandomAccessSource;
std::vector<std::pair<int64_t, int64_t>> class_rows_of(const RandomAccessSource& source,
                                                       const std::string& column);
SamplerPtr make_pk_sampler(const std::vector<std::pair<int64_t, int64_t>>& class_rows,
                           int64_t num_val, bool shuffle, int64_t num_samples,
                           std::string_view source);

}  // namespace mycel::data
