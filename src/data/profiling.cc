#include "data/profiling.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "base/env.h"
#include "base/error.h"
#include "data/ops.h"
#include "data/pipeline.h"

namespace mycel::data {

namespace {

int64_t now_ms() {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  return duration_cast<milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double ticks_per_second() {
  static const double hz = [] {
    long t = ::sysconf(_SC_CLK_TCK);
    return t > 0 ? static_cast<double>(t) : 100.0;
  }();
  return hz;
}

// utime and stime (fields 14 and 15) of a /proc/.../stat file; false when unreadable.
bool read_stat_ticks(const std::string& path, Profiler::Ticks* out) {
  std::ifstream f(path);
  std::string line;
  if (!f || !std::getline(f, line)) return false;
  // The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
  size_t close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream in(line.substr(close + 1));
  std::string field;
  // fields 3..13, then utime (14) and stime (15)
  for (int i = 3; i <= 13; ++i) {
    if (!(in >> field)) return false;
  }
  uint64_t u = 0, s = 0;
  if (!(in >> u >> s)) return false;
  *out = {u, s};
  return true;
}

// The value (kB) of `key:` in a /proc file of "Key: value kB" lines; -1 when absent.
int64_t read_kb(const std::string& path, const std::string& key) {
  std::ifstream f(path);
  std::string k;
  int64_t v = 0;
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream in(line);
    if (in >> k >> v && k == key + ":") return v;
  }
  return -1;
}

// Sum of `key:` over every mapping of /proc/self/smaps (kernels without smaps_rollup).
int64_t sum_kb(const std::string& path, const std::string& key) {
  std::ifstream f(path);
  std::string line, k;
  int64_t v = 0, total = 0;
  bool found = false;
  while (std::getline(f, line)) {
    if (line.compare(0, key.size() + 1, key + ":") != 0) continue;
    std::istringstream in(line);
    if (in >> k >> v) {
      total += v;
      found = true;
    }
  }
  return found ? total : -1;
}

double pct(uint64_t part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }
uint64_t diff(uint64_t now, uint64_t before) { return now > before ? now - before : 0; }

void write_numbers(std::ostream& o, const std::vector<double>& v) {
  o.precision(10);  // MB of a large machine to 1/1000
  o << '[';
  for (size_t i = 0; i < v.size(); ++i) o << (i ? ", " : "") << v[i];
  o << ']';
}
void write_numbers(std::ostream& o, const std::vector<int64_t>& v) {
  o << '[';
  for (size_t i = 0; i < v.size(); ++i) o << (i ? ", " : "") << v[i];
  o << ']';
}
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

std::string source_type(std::string name) {
  const std::string suffix = "Dataset";
  if (name.size() > suffix.size() &&
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
    name.resize(name.size() - suffix.size());
  }
  if (name == "TFRecord") return "TFReaderOp";
  if (name == "Mind") return "MindRecordOp";
  if (name == "NumpySlices" || name == "Padded") return "GeneratorOp";
  if (name == "Random") return "RandomDataOp";
  return name + "Op";
}

}  // namespace

std::string op_type(const Node& n) {
  switch (n.kind) {
    case Node::Kind::Source:
      return source_type(std::string(n.source->name()));
    case Node::Kind::Stream:
      return source_type(std::string(n.stream->name()));
    case Node::Kind::Project: {
      // rename() is a projection onto every column in order under new names
      const auto& child = n.children[0]->columns;
      bool identity = n.project.size() == child.size();
      for (size_t i = 0; identity && i < n.project.size(); ++i) {
        identity = n.project[i] == static_cast<int>(i);
      }
      return identity && n.columns != child ? "RenameOp" : "ProjectOp";
    }
    default:
      return n.kind_name() + "Op";
  }
}

Profiler& Profiler::instance() {
  static Profiler* p = new Profiler();  // never destroyed: no teardown order at exit
  return *p;
}

Profiler::State Profiler::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

bool Profiler::armed() const {
  std::lock_guard lock(mu_);
  return armed_;
}

Profiler::Claim Profiler::claim() const {
  std::lock_guard lock(mu_);
  if (!armed_) return Claim::Off;
  return registered_ ? Claim::Taken : Claim::Free;
}

void Profiler::tuning(bool on) {
  std::lock_guard lock(mu_);
  tuned_ += on ? 1 : -1;
}

void Profiler::init() {
  std::unique_lock lock(mu_);
  MC_CHECK(tuned_ == 0, Runtime, "Stop MD Autotune before initializing the MD Profiler.");
  MC_CHECK(state_ != State::Running, Runtime, "Stop MD Profiler before reinitializing it.");
  stop_monitor(lock);
  registered_ = false;
  pipeline_ = nullptr;
  probe_.reset();
  ops_.clear();
  reset_data();
  state_ = State::Unbegun;
  armed_ = true;
}

void Profiler::start() {
  std::lock_guard lock(mu_);
  MC_CHECK(state_ != State::Running, Runtime, "MD ProfilingManager is already running.");
  reset_data();
  state_ = State::Running;
  armed_ = true;
  if (pipeline_) {
    baseline();
    sample();
    wake_.notify_all();
  }
}

bool Profiler::stop() {
  std::lock_guard lock(mu_);
  MC_CHECK(state_ != State::Unbegun, Runtime, "MD ProfilingManager has not started yet.");
  if (state_ == State::Finished) return false;
  if (pipeline_) sample();
  state_ = State::Finished;
  armed_ = false;
  return true;
}

void Profiler::reset_data() {
  for (OpRecord& r : ops_) {
    r.sizes.clear();
    r.user.clear();
    r.sys.clear();
  }
  for (auto* v : {&stamps_, &ctx_switches_, &runnable_}) v->clear();
  for (auto* v : {&sys_user_, &sys_sys_, &sys_idle_, &sys_io_, &proc_user_, &proc_sys_, &vss_,
                  &rss_, &pss_, &mem_total_, &mem_avail_, &mem_used_}) {
    v->clear();
  }
  trace_.clear();
}

bool Profiler::attach(const Pipeline* p, const Node& root,
                      const std::vector<std::unique_ptr<Op>>& ops, int64_t num_epochs,
                      int64_t interval_ms) {
  std::unique_lock lock(mu_);
  if (!armed_ || registered_) return false;
  registered_ = true;
  pipeline_ = p;
  interval_ms_ = interval_ms > 0 ? interval_ms : 1000;
  probe_ = std::make_unique<QueueProbe>(ops);
  ops_.clear();
  reset_data();
  // The entries, root first; an op per node: the node's ThreadedOp when it has one.
  auto probe_of = [&](const Node* n) {
    for (size_t i = 0; i < probe_->ops().size(); ++i) {
      if (&probe_->ops()[i]->node() == n) return static_cast<int>(i);
    }
    return -1;
  };
  if (num_epochs != 1) {
    OpRecord r;
    r.type = "EpochCtrlOp";
    r.children = {1};
    ops_.push_back(std::move(r));
  }
  std::vector<const Node*> order;
  auto visit = [&](auto& self, const Node* n) -> void {
    const int id = static_cast<int>(ops_.size());
    order.push_back(n);
    ops_.emplace_back();
    ops_[static_cast<size_t>(id)].type = op_type(*n);
    const int q = probe_of(n);
    ops_[static_cast<size_t>(id)].probe = q;
    if (q >= 0) {
      ops_[static_cast<size_t>(id)].workers = probe_->ops()[static_cast<size_t>(q)]->workers();
      ops_[static_cast<size_t>(id)].capacity = probe_->ops()[static_cast<size_t>(q)]->capacity();
    }
    for (const auto& c : n->children) {
      ops_[static_cast<size_t>(id)].children.push_back(static_cast<int>(ops_.size()));
      self(self, c.get());
    }
  };
  visit(visit, &root);
  // The queue the iterator reads through: the root's, else the first below it.
  root_queue_ = -1;
  for (const Node* n = &root; root_queue_ < 0; n = n->children[0].get()) {
    root_queue_ = probe_of(n);
    if (n->children.empty()) break;
  }
  if (state_ == State::Running) {
    baseline();
    sample();
  }
  quit_ = false;
  monitor_ = std::thread([this] { monitor(); });
  return true;
}

void Profiler::detach(const Pipeline* p) {
  std::unique_lock lock(mu_);
  if (p != pipeline_ || p == nullptr) return;
  if (state_ == State::Running) sample();
  stop_monitor(lock);
  pipeline_ = nullptr;
  probe_.reset();
  for (OpRecord& r : ops_) r.probe = -1;  // the ops are about to go
}

void Profiler::stop_monitor(std::unique_lock<std::mutex>& lock) {
  if (!monitor_.joinable()) return;
  quit_ = true;
  wake_.notify_all();
  std::thread t = std::move(monitor_);
  lock.unlock();
  t.join();
  lock.lock();
}

void Profiler::monitor() {
  std::unique_lock lock(mu_);
  while (!quit_) {
    wake_.wait_for(lock, std::chrono::milliseconds(interval_ms_));
    if (!quit_ && state_ == State::Running && pipeline_) sample();
  }
}

void Profiler::record_batch(const Pipeline* p, int64_t batch, int64_t ms) {
  std::lock_guard lock(mu_);
  if (p != pipeline_ || state_ != State::Running) return;
  int64_t size = 0, cap = 0;
  if (root_queue_ >= 0) {
    const ThreadedOp* q = probe_->ops()[static_cast<size_t>(root_queue_)];
    size = q->queued();
    cap = q->capacity();
  }
  const std::string b = " " + std::to_string(batch) + " ";
  const std::string t = " " + std::to_string(now_ms());
  trace_.push_back("0 1" + b + "0" + t);
  trace_.push_back("0 2" + b + std::to_string(ms) + t);
  trace_.push_back("0 0" + b + std::to_string(ms) + t);
  trace_.push_back("1 " + std::to_string(cap) + b + std::to_string(size) + t);
}

Profiler::Ticks Profiler::op_ticks(OpRecord& r, const ThreadedOp* op) {
  Ticks sum;
  for (int tid : op->thread_ids()) {
    size_t k = 0;
    while (k < r.threads.size() && r.threads[k].first != tid) ++k;
    if (k == r.threads.size()) r.threads.emplace_back(tid, Ticks{});
    Ticks now;
    // an ended thread keeps its last reading
    if (read_stat_ticks("/proc/self/task/" + std::to_string(tid) + "/stat", &now)) {
      r.threads[k].second = now;
    }
  }
  for (const auto& [tid, t] : r.threads) {
    sum.user += t.user;
    sum.sys += t.sys;
  }
  return sum;
}

void Profiler::baseline() {
  last_ms_ = now_ms();
  read_stat_ticks("/proc/self/stat", &proc_last_);
  read_sys(&sys_last_);
  for (OpRecord& r : ops_) {
    r.threads.clear();
    r.last = r.probe >= 0 ? op_ticks(r, probe_->ops()[static_cast<size_t>(r.probe)]) : Ticks{};
  }
}

void Profiler::sample() {
  const int64_t now = now_ms();
  // at least one tick of wall time, so that back-to-back samples don't divide by zero
  const double wall =
      std::max(1.0, static_cast<double>(now - last_ms_)) / 1000.0 * ticks_per_second();
  last_ms_ = now;
  stamps_.push_back(now);
  probe_->read(&queued_);
  for (OpRecord& r : ops_) {
    Ticks t = r.last;
    if (r.probe >= 0) {
      r.sizes.push_back(queued_[static_cast<size_t>(r.probe)]);
      t = op_ticks(r, probe_->ops()[static_cast<size_t>(r.probe)]);
    }
    r.user.push_back(pct(diff(t.user, r.last.user), wall));
    r.sys.push_back(pct(diff(t.sys, r.last.sys), wall));
    r.last = t;
  }
  Ticks proc = proc_last_;
  read_stat_ticks("/proc/self/stat", &proc);
  proc_user_.push_back(pct(diff(proc.user, proc_last_.user), wall));
  proc_sys_.push_back(pct(diff(proc.sys, proc_last_.sys), wall));
  proc_last_ = proc;
  Sys sys = sys_last_;
  read_sys(&sys);
  const double total = static_cast<double>(diff(sys.total, sys_last_.total));
  sys_user_.push_back(pct(diff(sys.user, sys_last_.user), total));
  sys_sys_.push_back(pct(diff(sys.sys, sys_last_.sys), total));
  sys_idle_.push_back(pct(diff(sys.idle, sys_last_.idle), total));
  sys_io_.push_back(pct(diff(sys.io, sys_last_.io), total));
  ctx_switches_.push_back(static_cast<int64_t>(sys.ctxt));
  runnable_.push_back(static_cast<int64_t>(sys.running));
  sys_last_ = sys;
  // memory, in MB
  std::ifstream statm("/proc/self/statm");
  uint64_t vss_pages = 0, rss_pages = 0;
  statm >> vss_pages >> rss_pages;
  const double page_mb = static_cast<double>(::sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
  vss_.push_back(static_cast<double>(vss_pages) * page_mb);
  rss_.push_back(static_cast<double>(rss_pages) * page_mb);
  int64_t pss = read_kb("/proc/self/smaps_rollup", "Pss");
  if (pss < 0) pss = sum_kb("/proc/self/smaps", "Pss");
  pss_.push_back(pss < 0 ? 0.0 : static_cast<double>(pss) / 1024.0);
  const int64_t mem_total = read_kb("/proc/meminfo", "MemTotal");
  const int64_t mem_avail = read_kb("/proc/meminfo", "MemAvailable");
  mem_total_.push_back(static_cast<double>(mem_total) / 1024.0);
  mem_avail_.push_back(static_cast<double>(mem_avail) / 1024.0);
  mem_used_.push_back(static_cast<double>(mem_total - mem_avail) / 1024.0);
}

void Profiler::read_sys(Sys* out) {
  std::ifstream f("/proc/stat");
  std::string line, key;
  while (std::getline(f, line)) {
    std::istringstream in(line);
    in >> key;
    if (key == "cpu") {
      uint64_t v[8] = {0, 0, 0, 0, 0, 0, 0, 0};  // user nice system idle iowait irq softirq steal
      for (uint64_t& x : v) in >> x;
      out->user = v[0] + v[1];
      out->sys = v[2] + v[5] + v[6];
      out->idle = v[3];
      out->io = v[4];
      out->total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
    } else if (key == "ctxt") {
      in >> out->ctxt;
    } else if (key == "procs_running") {
      in >> out->running;
    }
  }
}

std::vector<std::string> Profiler::save(const std::string& dir) {
  std::lock_guard lock(mu_);
  MC_CHECK(!dir.empty(), Value, "Invalid parameter, Profiling directory is not set.");
  char real[PATH_MAX];
  MC_CHECK(::realpath(dir.c_str(), real) != nullptr, Runtime,
           "Invalid file, can not get realpath of Profiling directory: ", dir, ".");
  if (!registered_) return {};
  std::string rank = env_string("RANK_ID");
  if (rank.empty()) rank = "0";
  const std::string base = std::string(real) + "/";
  std::vector<std::string> written;
  auto open = [&](const std::string& name) {
    written.push_back(base + name + "_" + rank + (name[0] == 'd' ? ".txt" : ".json"));
    std::ofstream f(written.back(), std::ios::trunc);
    MC_CHECK(f.good(), Runtime, "MD Profiler: cannot write ", written.back(), ".");
    return f;
  };
  {
    std::ofstream f = open("pipeline_profiling");
    f << "{\"sampling_interval\": " << interval_ms_ << ", \"op_info\": [";
    for (size_t i = 0; i < ops_.size(); ++i) {
      const OpRecord& r = ops_[i];
      f << (i ? ", " : "") << "{\"op_id\": " << i << ", \"op_type\": " << quoted(r.type)
        << ", \"num_workers\": " << r.workers << ", \"metrics\": ";
      if (r.capacity > 0) {
        f << "{\"output_queue\": {\"size\": ";
        write_numbers(f, r.sizes);
        f << ", \"length\": " << r.capacity << "}}";
      } else {
        f << "null";
      }
      if (!r.children.empty()) {
        f << ", \"children\": ";
        write_numbers(f, std::vector<int64_t>(r.children.begin(), r.children.end()));
      }
      f << "}";
    }
    f << "]}\n";
  }
  {
    std::ofstream f = open("minddata_cpu_utilization");
    f << "{\"cpu_processor_num\": " << std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN))
      << ", \"sampling_interval\": " << interval_ms_ << ", \"time_stamp\": ";
    write_numbers(f, stamps_);
    f << ", \"device_info\": {\"user_utilization\": ";
    write_numbers(f, sys_user_);
    f << ", \"sys_utilization\": ";
    write_numbers(f, sys_sys_);
    f << ", \"idle_utilization\": ";
    write_numbers(f, sys_idle_);
    f << ", \"io_utilization\": ";
    write_numbers(f, sys_io_);
    f << ", \"context_switch_count\": ";
    write_numbers(f, ctx_switches_);
    f << ", \"runnable_process\": ";
    write_numbers(f, runnable_);
    f << "}, \"op_info\": [";
    for (size_t i = 0; i < ops_.size(); ++i) {
      f << (i ? ", " : "") << "{\"op_id\": " << i << ", \"metrics\": {\"user_utilization\": ";
      write_numbers(f, ops_[i].user);
      f << ", \"sys_utilization\": ";
      write_numbers(f, ops_[i].sys);
      f << "}}";
    }
    f << "], \"process_info\": {\"user_utilization\": ";
    write_numbers(f, proc_user_);
    f << ", \"sys_utilization\": ";
    write_numbers(f, proc_sys_);
    f << "}, \"process_memory_info\": {\"vss_mbytes\": ";
    write_numbers(f, vss_);
    f << ", \"rss_mbytes\": ";
    write_numbers(f, rss_);
    f << ", \"pss_mbytes\": ";
    write_numbers(f, pss_);
    f << "}, \"system_memory_info\": {\"total_sys_memory_mbytes\": ";
    write_numbers(f, mem_total_);
    f << ", \"available_sys_memory_mbytes\": ";
    write_numbers(f, mem_avail_);
    f << ", \"used_sys_memory_mbytes\": ";
    write_numbers(f, mem_used_);
    f << "}}\n";
  }
  {
    std::ofstream f = open("dataset_iterator_profiling");
    for (const std::string& line : trace_) f << line << "\n";
  }
  return written;
}

}  // namespace mycel::data
