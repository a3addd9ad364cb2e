// CommOrderRecorder (comm/exec_order.h): rows kept in memory while on, one CSV per rank on stop.
#include "comm/exec_order.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/error.h"

namespace mycel {

namespace {

std::string shape_text(const Tensor& t) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < t.shape().size(); ++i) s << (i ? ", " : "") << t.shape()[i];
  s << "]";
  return s.str();
}

// A CSV field, always quoted (shapes hold commas), quotes doubled.
std::string field(const std::string& v) {
  std::string out = "\"";
  for (char ch : v) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

}  // namespace

CommOrderRecorder& CommOrderRecorder::instance() {
  static CommOrderRecorder r;
  return r;
}

void CommOrderRecorder::start() {
  std::lock_guard<std::mutex> lock(mu_);
  rows_.clear();
  on_.store(true, std::memory_order_relaxed);
}

size_t CommOrderRecorder::rows() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rows_.size();
}

void CommOrderRecorder::set_group(const Communicator& c, const std::string& name,
                                  const std::vector<int>& world_ranks, int world_rank) {
  std::lock_guard<std::mutex> lock(mu_);
  groups_[c.group()] = Group{name, world_ranks};
  world_rank_ = world_rank;
}

std::string CommOrderRecorder::world_rank_of(const std::string& group, int group_rank) const {
  if (group_rank < 0) return "";
  auto it = groups_.find(group);
  if (it == groups_.end() || group_rank >= static_cast<int>(it->second.ranks.size()))
    return std::to_string(group_rank);  // a communicator made outside ProcessGroups (tests)
  return std::to_string(it->second.ranks[static_cast<size_t>(group_rank)]);
}

void CommOrderRecorder::record(const Communicator& c, const std::string& op, const Tensor* in,
                               const Tensor* out, int src, int dest, int root) {
  if (!recording()) return;
  std::lock_guard<std::mutex> lock(mu_);
  CommOrderRow r;
  auto it = groups_.find(c.group());
  r.group = it != groups_.end() ? it->second.name : c.group();
  for (int g = 0; g < c.size(); ++g) {
    if (g) r.comm_rank.push_back(' ');
    r.comm_rank.append(world_rank_of(c.group(), g));
  }
  r.primitive = op;
  r.src_rank = world_rank_of(c.group(), src);
  r.dest_rank = world_rank_of(c.group(), dest);
  r.root_rank = world_rank_of(c.group(), root);
  if (in) {
    r.input_shape = shape_text(*in);
    r.input_type = std::string(dtype_name(in->dtype()));
    r.input_size = in->nbytes();
  }
  if (out) {
    r.output_shape = shape_text(*out);
    r.output_type = std::string(dtype_name(out->dtype()));
    r.output_size = out->nbytes();
  }
  rows_.push_back(std::move(r));
}

std::string CommOrderRecorder::stop(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mu_);
  on_.store(false, std::memory_order_relaxed);
  if (rows_.empty()) return "";
  namespace fs = std::filesystem;
  const fs::path folder =
      fs::path(dir.empty() ? "." : dir) / ("rank_" + std::to_string(world_rank_)) / "execute_order";
  std::error_code ec;
  fs::create_directories(folder, ec);
  MC_CHECK(!ec, Runtime, "comm_exec_order_check: cannot make the folder ", folder.string(), ": ",
           ec.message());
  const std::string path = (folder / "comm_execute_order.csv").string();
  std::ofstream f(path, std::ios::out | std::ios::trunc);
  MC_CHECK(f.is_open(), Runtime, "comm_exec_order_check: cannot write ", path);
  f << "index,group,comm_rank,primitive,src_rank,dest_rank,root_rank,input_shape,input_type,"
       "output_shape,output_type,input_size,output_size\n";
  for (size_t i = 0; i < rows_.size(); ++i) {
    const CommOrderRow& r = rows_[i];
    f << (i + 1) << ',' << field(r.group) << ',' << field(r.comm_rank) << ',' << field(r.primitive)
      << ',' << field(r.src_rank) << ',' << field(r.dest_rank) << ',' << field(r.root_rank) << ','
      << field(r.input_shape) << ',' << field(r.input_type) << ',' << field(r.output_shape) << ','
      << field(r.output_type) << ',' << r.input_size << ',' << r.output_size << '\n';
  }
  f.close();
  MC_CHECK(!f.fail(), Runtime, "comm_exec_order_check: writing ", path, " failed");
  rows_.clear();
  return path;
}

}  // namespace mycel
