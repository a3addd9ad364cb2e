// The engine core against sequences computed here: the Connector (order whatever the producer
// threads, bounded capacity, close() waking waiters) and Pipelines over an ArraySource built
// with pipeline.h's smart constructors (samplers, batch, repeat, skip, take, map on workers,
// resume by set_init_step), compared with the rows a plain loop predicts.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <thread>

#include "data/array_source.h"
#include "data/connector.h"
#include "data/pipeline.h"
#include "data/profiling.h"

namespace mycel::data {
namespace {

using std::chrono::milliseconds;

Msg row_msg(int64_t v, uint64_t id) { return Msg::make_row({Array::scalar<int64_t>(v)}, id); }

// ----- Connector -----

TEST(DataConnector, DeliversInSequenceOrderFromOutOfOrderProducers) {
  constexpr int kThreads = 4, kPerThread = 50;
  Connector c(3);
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t) {
    producers.emplace_back([&c, t] {
      // thread t owns the sequence numbers t, t + 4, ...; a varying delay makes them arrive
      // out of order
      for (int k = 0; k < kPerThread; ++k) {
        uint64_t seq = static_cast<uint64_t>(t + k * kThreads);
        std::this_thread::sleep_for(std::chrono::microseconds((seq * 37) % 200));
        c.push(seq, row_msg(static_cast<int64_t>(seq) * 10, seq));
      }
    });
  }
  for (int i = 0; i < kThreads * kPerThread; ++i) {
    Msg m = c.pop();
    ASSERT_TRUE(m.is_row());
    EXPECT_EQ(m.id, static_cast<uint64_t>(i));
    EXPECT_EQ(*m.row[0].data<int64_t>(), i * 10);
  }
  for (auto& t : producers) t.join();
}

TEST(DataConnector, PushWaitsWhileCapacityIsFull) {
  Connector c(2);
  c.push(0, row_msg(0, 0));
  c.push(1, row_msg(1, 1));
  std::atomic<bool> pushed{false};
  std::thread producer([&] {
    c.push(2, row_msg(2, 2));  // 2 ahead of the consumer at position 0: must wait
    pushed = true;
  });
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(pushed.load());
  EXPECT_EQ(c.pop().id, 0u);  // frees one slot
  producer.join();
  EXPECT_TRUE(pushed.load());
  EXPECT_EQ(c.pop().id, 1u);
  EXPECT_EQ(c.pop().id, 2u);
}

TEST(DataConnector, PopWaitsForTheNextSequenceNumberNotAnyMessage) {
  Connector c(4);
  c.push(1, row_msg(1, 1));  // seq 0 is missing: pop must not return seq 1
  std::atomic<bool> popped{false};
  std::thread consumer([&] {
    EXPECT_EQ(c.pop().id, 0u);
    popped = true;
  });
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(popped.load());
  c.push(0, row_msg(0, 0));
  consumer.join();
  EXPECT_EQ(c.pop().id, 1u);
}

TEST(DataConnector, CloseWakesBlockedProducersAndConsumers) {
  Connector full(1), empty(1);
  full.push(0, row_msg(0, 0));
  std::atomic<int> cancelled{0};
  std::thread producer([&] {
    try {
      full.push(1, row_msg(1, 1));
    } catch (const Cancelled&) {
      ++cancelled;
    }
  });
  std::thread consumer([&] {
    try {
      empty.pop();
    } catch (const Cancelled&) {
      ++cancelled;
    }
  });
  std::this_thread::sleep_for(milliseconds(30));
  EXPECT_EQ(cancelled.load(), 0);
  full.close();
  empty.close();
  producer.join();
  consumer.join();
  EXPECT_EQ(cancelled.load(), 2);
  // and every later call
  EXPECT_THROW(full.pop(), Cancelled);
  EXPECT_THROW(empty.push(0, row_msg(0, 0)), Cancelled);
}

// ----- Pipelines over an ArraySource -----

// Column "x" = 0..n-1 (int64) and column "y" = 100 + x (int32), counting reads.
class CountingSource : public RandomAccessSource {
 public:
  explicit CountingSource(int64_t n) : n_(n) {
    Array x = Array::empty(DataType::Int64, {n}), y = Array::empty(DataType::Int32, {n});
    for (int64_t i = 0; i < n; ++i) {
      x.mutable_data<int64_t>()[i] = i;
      y.mutable_data<int32_t>()[i] = static_cast<int32_t>(100 + i);
    }
    inner_ = std::make_shared<ArraySource>("TestSource", std::vector<Array>{x, y},
                                           std::vector<std::string>{"x", "y"});
  }
  std::string_view name() const override { return "TestSource"; }
  int64_t size() const override { return n_; }
  std::vector<std::string> columns() const override { return inner_->columns(); }
  Row read(int64_t i) const override {
    ++reads;
    return inner_->read(i);
  }
  mutable std::atomic<int64_t> reads{0};

 private:
  int64_t n_;
  std::shared_ptr<ArraySource> inner_;
};

// x + 1000 * (a uniform draw in [0, 9] from the row's random stream), so a random transform
// whose output shows which (seed, op, pass, row) it drew from.
class NoisyAdd : public UnaryTransform {
 public:
  std::string_view name() const override { return "NoisyAdd"; }
  bool random() const override { return true; }

 protected:
  Array apply1(const Array& x, int, RowRandom* rng) const override {
    Array out = Array::empty(DataType::Int64, x.shape());
    int64_t noise = 1000 * rng->randint(0, 9);
    for (int64_t i = 0; i < x.numel(); ++i) {
      out.mutable_data<int64_t>()[i] = x.data<int64_t>()[i] + noise;
    }
    return out;
  }
};

class FailsOn : public UnaryTransform {
 public:
  explicit FailsOn(int64_t bad) : bad_(bad) {}
  std::string_view name() const override { return "FailsOn"; }

 protected:
  Array apply1(const Array& x, int, RowRandom*) const override {
    MC_CHECK(*x.data<int64_t>() != bad_, Value, "FailsOn: got ", bad_, ".");
    return x;
  }

 private:
  int64_t bad_;
};

// Every epoch of a pipeline: for each row, the int64 values of column `col` (all elements).
using Epochs = std::vector<std::vector<std::vector<int64_t>>>;

Epochs run(const NodePtr& root, int64_t epochs, int64_t init_step = 0, uint64_t seed = 42,
           int col = 0) {
  PipelineOptions o;
  o.seed = seed;
  o.num_epochs = epochs;
  o.init_step = init_step;
  o.prefetch = 2;
  Pipeline p(root, o);
  Epochs out;
  while (!p.ended() && static_cast<int64_t>(out.size()) < epochs) {
    std::vector<std::vector<int64_t>> rows;
    Row r;
    while (p.next(&r)) {
      const Array& a = r[static_cast<size_t>(col)];
      rows.emplace_back(a.data<int64_t>(), a.data<int64_t>() + a.numel());
    }
    if (!rows.empty() || !p.ended()) out.push_back(std::move(rows));
  }
  return out;
}

std::vector<std::vector<int64_t>> flat(const Epochs& e) {
  std::vector<std::vector<int64_t>> out;
  for (const auto& rows : e) out.insert(out.end(), rows.begin(), rows.end());
  return out;
}

NodePtr source(const std::shared_ptr<CountingSource>& src, SamplerPtr sampler, int workers = 3) {
  return source_node(src, std::move(sampler), workers);
}

NodePtr batch(NodePtr child, int64_t size, bool drop = false, int workers = 2) {
  return batch_node(std::move(child), size, drop, workers, {}, nullptr, {}, {});
}

TEST(DataPipeline, SequentialBatchesWithRemainderOverEpochs) {
  auto src = std::make_shared<CountingSource>(10);
  Epochs e = run(batch(source(src, make_sequential_sampler(0, -1)), 4), 2);
  Epochs want = {{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}, {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}};
  EXPECT_EQ(e, want);
  e = run(batch(source(src, make_sequential_sampler(3, 5)), 2, /*drop=*/true), 1);
  EXPECT_EQ(e, Epochs({{{3, 4}, {5, 6}}}));
}

TEST(DataPipeline, RandomSamplerPermutesEachEpochAlikeForAnyWorkerCount) {
  auto src = std::make_shared<CountingSource>(50);
  Epochs one = run(source(src, make_random_sampler(false, -1), 1), 3);
  Epochs four = run(source(src, make_random_sampler(false, -1), 4), 3);
  ASSERT_EQ(one.size(), 3u);
  EXPECT_EQ(one, four);
  for (const auto& epoch : one) {
    std::vector<int64_t> seen;
    for (const auto& r : epoch) seen.push_back(r[0]);
    std::sort(seen.begin(), seen.end());
    std::vector<int64_t> all(50);
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(seen, all);
  }
  EXPECT_NE(one[0], one[1]);
  EXPECT_NE(one, run(source(src, make_random_sampler(false, -1), 1), 3, 0, /*seed=*/43));
}

TEST(DataPipeline, RepeatSkipTakeAgainstAPlainLoop) {
  auto src = std::make_shared<CountingSource>(7);
  // skip(2).take(4) of each pass, repeated 3 times, in batches of 5 (batches span repeats)
  NodePtr root = batch(
      repeat_node(take_node(skip_node(source(src, make_sequential_sampler(0, -1)), 2), 4), 3), 5);
  std::vector<int64_t> rows;
  for (int r = 0; r < 3; ++r) {
    for (int64_t i = 2; i < 6; ++i) rows.push_back(i);
  }
  std::vector<std::vector<int64_t>> want;
  for (size_t i = 0; i < rows.size(); i += 5) {
    want.emplace_back(rows.begin() + static_cast<int64_t>(i),
                      rows.begin() + static_cast<int64_t>(std::min(i + 5, rows.size())));
  }
  Epochs e = run(root, 2);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0], want);
  EXPECT_EQ(e[1], want);
  EXPECT_EQ(root->size(), 3);
}

TEST(DataPipeline, RandomMapOnWorkersIsKeyedByRowNotByThread) {
  auto src = std::make_shared<CountingSource>(40);
  auto build = [&](int workers) {
    NodePtr s = source(src, make_random_sampler(false, -1), workers);
    return batch(map_node(s, {std::make_shared<NoisyAdd>()}, {0}, {"x"}, workers, 0, "['x']"), 3,
                 false, workers);
  };
  Epochs one = run(build(1), 2), four = run(build(4), 2);
  EXPECT_EQ(one, four);
  // the noise is in the thousands, the row in the units: every row appears once per epoch
  for (const auto& epoch : one) {
    std::vector<int64_t> seen;
    for (const auto& b : epoch) {
      for (int64_t v : b) seen.push_back(v % 1000);
    }
    std::sort(seen.begin(), seen.end());
    ASSERT_EQ(seen.size(), 40u);
    for (int64_t i = 0; i < 40; ++i) EXPECT_EQ(seen[static_cast<size_t>(i)], i);
  }
  EXPECT_NE(one[0], one[1]);
}

TEST(DataPipeline, ResumePushesTheStepDownToTheSampler) {
  constexpr int64_t kRows = 24, kBatch = 4, kEpochs = 3;
  auto build = [&](const std::shared_ptr<CountingSource>& src) {
    NodePtr s = source(src, make_random_sampler(false, -1));
    return batch(map_node(s, {std::make_shared<NoisyAdd>()}, {0}, {"x"}, 3, 0, "['x']"), kBatch);
  };
  auto full_src = std::make_shared<CountingSource>(kRows);
  auto full = flat(run(build(full_src), kEpochs));
  ASSERT_EQ(full.size(), static_cast<size_t>(kEpochs * kRows / kBatch));
  EXPECT_EQ(full_src->reads.load(), kEpochs * kRows);
  for (int64_t step : {2, 6, 9, 15}) {  // inside the first epoch and in later ones
    auto src = std::make_shared<CountingSource>(kRows);
    auto resumed = flat(run(build(src), kEpochs, step));
    EXPECT_EQ(resumed, decltype(full)(full.begin() + step, full.end())) << "step " << step;
    // the skipped rows are never read
    EXPECT_EQ(src->reads.load(), kEpochs * kRows - step * kBatch) << "step " << step;
  }
}

TEST(DataPipeline, ResumeThroughRepeatAndSkip) {
  auto src = std::make_shared<CountingSource>(9);
  auto build = [&] {
    return batch(repeat_node(skip_node(source(src, make_random_sampler(false, -1)), 2), 2), 3);
  };
  auto full = flat(run(build(), 2));
  ASSERT_EQ(full.size(), 10u);  // 2 x 7 rows in batches of 3: 3, 3, 3, 3, 2 per epoch
  for (int64_t step : {1, 3, 5, 8}) {
    EXPECT_EQ(flat(run(build(), 2, step)), decltype(full)(full.begin() + step, full.end()))
        << "step " << step;
  }
}

TEST(DataPipeline, RandomMapAboveRepeatDrawsAnewEachRepetition) {
  auto src = std::make_shared<CountingSource>(20);
  NodePtr root = map_node(repeat_node(source(src, make_sequential_sampler(0, -1)), 3),
                          {std::make_shared<NoisyAdd>()}, {0}, {"x"}, 3, 0, "['x']");
  auto rows = flat(run(root, 1));
  ASSERT_EQ(rows.size(), 60u);
  int same = 0;
  for (size_t i = 0; i < 20; ++i) {
    EXPECT_EQ(rows[i][0] % 1000, static_cast<int64_t>(i));
    same += rows[i] == rows[i + 20];
  }
  EXPECT_LT(same, 8);  // 10 noise values: about 2 of 20 equal by chance
  auto full = flat(run(root, 2));
  for (int64_t step : {7, 25, 70}) {
    EXPECT_EQ(flat(run(root, 2, step)), decltype(full)(full.begin() + step, full.end()))
        << "step " << step;
  }
}

TEST(DataPipeline, TakeOfAnEndlessRepeatEndsEachEpoch) {
  auto src = std::make_shared<CountingSource>(5);
  NodePtr root = take_node(repeat_node(source(src, make_sequential_sampler(0, -1)), -1), 7);
  EXPECT_EQ(root->size(), 7);
  Epochs e = run(root, 2);
  ASSERT_EQ(e.size(), 2u);
  // each epoch continues the endless stream 0 1 2 3 4 0 1 2 3 4 ...
  std::vector<std::vector<int64_t>> first, second;
  for (int64_t i = 0; i < 7; ++i) first.push_back({i % 5});
  for (int64_t i = 7; i < 14; ++i) second.push_back({i % 5});
  EXPECT_EQ(e[0], first);
  EXPECT_EQ(e[1], second);
  auto full = flat(e);
  EXPECT_EQ(flat(run(root, 2, 9)), decltype(full)(full.begin() + 9, full.end()));
}

TEST(DataPipeline, DistributedShardsPartitionThePermutation) {
  auto src = std::make_shared<CountingSource>(10);
  std::vector<int64_t> all;
  for (int64_t shard = 0; shard < 3; ++shard) {
    Epochs e = run(source(src, make_distributed_sampler(3, shard, true, -1, -1)), 1);
    ASSERT_EQ(e[0].size(), 4u);  // ceil(10 / 3), wrapped around
    for (const auto& r : e[0]) all.push_back(r[0]);
  }
  // shard s has rows s, s + 3, ... of the one-shard permutation (read cyclically)
  std::vector<int64_t> perm;
  Epochs one_shard = run(source(src, make_distributed_sampler(1, 0, true, -1, -1)), 1);
  for (const auto& r : one_shard[0]) perm.push_back(r[0]);
  ASSERT_EQ(perm.size(), 10u);
  std::vector<int64_t> want;
  for (int64_t shard = 0; shard < 3; ++shard) {
    for (int64_t k = 0; k < 4; ++k) want.push_back(perm[static_cast<size_t>((shard + 3 * k) % 10)]);
  }
  EXPECT_EQ(all, want);
}

TEST(DataPipeline, AWorkerErrorReachesNextAndStays) {
  auto src = std::make_shared<CountingSource>(30);
  NodePtr root = map_node(source(src, make_sequential_sampler(0, -1)),
                          {std::make_shared<FailsOn>(17)}, {0}, {"x"}, 4, 0, "['x']");
  PipelineOptions o;
  o.prefetch = 2;
  Pipeline p(root, o);
  Row r;
  int64_t rows = 0;
  try {
    while (p.next(&r)) ++rows;
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
    // MindSpore's words; an ArraySource has no files, so no "The corresponding data file"
    EXPECT_NE(std::string(e.what()).find("map operation: [FailsOn] failed. Column(s) ['x']: "
                                         "FailsOn: got 17."),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(rows, 17);  // the rows before the failed one, in order
  EXPECT_THROW(p.next(&r), Error);
  p.stop();
}

TEST(DataPipeline, StopMidEpochJoinsBlockedWorkers) {
  auto src = std::make_shared<CountingSource>(1000);
  NodePtr root = batch(source(src, make_random_sampler(false, -1), 4), 2, false, 3);
  PipelineOptions o;
  o.prefetch = 1;
  Pipeline p(root, o);
  Row r;
  ASSERT_TRUE(p.next(&r));
  std::this_thread::sleep_for(milliseconds(20));  // the workers fill the queues and block
  p.stop();
  p.stop();                           // idempotent
  EXPECT_LT(src->reads.load(), 100);  // bounded by the prefetch depth, not the dataset
}

TEST(DataPipeline, SmartConstructorErrors) {
  auto src = std::make_shared<CountingSource>(4);
  NodePtr s = source(src, make_sequential_sampler(0, -1));
  EXPECT_THROW(batch(s, 0), Error);
  EXPECT_THROW(shuffle_node(s, 1), Error);
  EXPECT_THROW(repeat_node(s, 0), Error);
  EXPECT_THROW(skip_node(s, -1), Error);
  EXPECT_THROW(take_node(s, 0), Error);
  EXPECT_THROW(zip_node({s, s}), Error);  // the columns clash
  EXPECT_THROW(concat_node({}), Error);
  // column names may differ when the node is built (MindSpore sizes such a concatenation);
  // reading it checks them in Python (ConcatDataset), dtypes and ranks in ConcatOp
  NodePtr renamed = project_node(s, {0}, {"z"});
  EXPECT_EQ(concat_node({s, renamed})->columns, s->columns);
  EXPECT_THROW(make_distributed_sampler(2, 2, false, -1, -1), Error);
  PipelineOptions o;
  o.num_epochs = 1;
  o.init_step = 5;  // one epoch has 4 rows
  EXPECT_THROW(Pipeline p(s, o), Error);
}

// ----- the profiler (profiling.h) -----

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(DataProfiler, RecordsTheFirstPipelineCreatedWhileArmed) {
  Profiler& prof = Profiler::instance();
  prof.init();
  EXPECT_THROW(prof.stop(), Error);  // not started
  prof.start();
  EXPECT_THROW(prof.start(), Error);  // already running
  auto src = std::make_shared<CountingSource>(10);
  NodePtr root = batch(source(src, make_sequential_sampler(0, -1)), 4);
  PipelineOptions o;
  o.num_epochs = 1;
  o.prefetch = 2;
  o.profile_interval_ms = 5;
  Pipeline p(root, o);
  Pipeline other(root, o);  // another pipeline is registered: not profiled
  EXPECT_TRUE(p.profiled());
  EXPECT_FALSE(other.profiled());
  Row r;
  int batches = 0;
  while (p.next(&r)) ++batches;
  EXPECT_EQ(batches, 3);
  EXPECT_TRUE(prof.stop());
  EXPECT_FALSE(prof.stop());  // stopping twice: MindSpore warns

  std::string tmpl = (std::filesystem::temp_directory_path() / "mycel-prof-XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  ::unsetenv("RANK_ID");
  std::vector<std::string> files = prof.save(tmpl);
  ASSERT_EQ(files.size(), 3u);
  const std::string pipeline = read_text(tmpl + "/pipeline_profiling_0.json");
  EXPECT_NE(pipeline.find("\"op_id\": 0, \"op_type\": \"BatchOp\", \"num_workers\": 2, "
                          "\"metrics\": {\"output_queue\": {\"size\": ["),
            std::string::npos)
      << pipeline;
  EXPECT_NE(pipeline.find("\"length\": 2}}, \"children\": [1]}"), std::string::npos) << pipeline;
  EXPECT_NE(pipeline.find("\"op_id\": 1, \"op_type\": \"TestSourceOp\", \"num_workers\": 3"),
            std::string::npos)
      << pipeline;
  // 4 records per batch: push time, batch time, pipeline time, the root queue's fill
  std::istringstream trace(read_text(tmpl + "/dataset_iterator_profiling_0.txt"));
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(trace, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 12u);
  EXPECT_EQ(lines[0].rfind("0 1 1 0 ", 0), 0u) << lines[0];
  EXPECT_EQ(lines[11].rfind("1 2 3 ", 0), 0u) << lines[11];
  EXPECT_NE(read_text(tmpl + "/minddata_cpu_utilization_0.json").find("\"pss_mbytes\": ["),
            std::string::npos);
  std::filesystem::remove_all(tmpl);
  EXPECT_THROW(prof.save(tmpl), Error);  // no such directory
  prof.init();                           // forgets the pipeline
  EXPECT_EQ(prof.claim(), Profiler::Claim::Free);
  prof.start();
  prof.stop();  // leaves it disarmed for the other tests
  EXPECT_EQ(prof.claim(), Profiler::Claim::Off);
}

}  // namespace
}  // namespace mycel::data
