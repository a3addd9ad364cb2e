// SearchPlan's text and JSON (search.h): the plan as the planner and the golden files print
// it, apart from the search that makes it.
#include <cmath>
#include <cstdio>
#include <string>

#include "base/error.h"
#include "parallel/search.h"

namespace mycel::parallel {

std::string SearchPlan::to_string() const {
  std::string s = str("auto_parallel plan (", mode, ", ", devices, " devices)\n");
  for (const PlannedOp& op : ops) {
    s += op.op;
    for (const Shape& sh : op.shapes) {
      s += ' ';
      s += shape_str(sh);
    }
    s += ' ';
    s += strategy_str(op.strategy);
    s += op.user ? " user\n" : "\n";
  }
  char buf[300], zero[100] = "";
  if (opt_shard_weights > 0)
    std::snprintf(zero, sizeof zero, ", optimizer shard %.4g (%lld weights)", opt_shard_s * 1e3,
                  static_cast<long long>(opt_shard_weights));
  std::snprintf(buf, sizeof buf,
                "step %.4g ms (compute %.4g, redistribution %.4g, gradient all-reduce %.4g%s); "
                "memory %.4g MB per device\n",
                step_s() * 1e3, compute_s * 1e3, comm_s * 1e3, grad_s * 1e3, zero,
                memory_bytes / (1 << 20));
  return s + buf;
}

namespace {

std::string json_str(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", std::isfinite(v) ? v : 0.0);
  return buf;
}

// Appends v as a JSON array of ints.
void json_ints(std::string& out, const std::vector<int64_t>& v) {
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(v[i]);
  }
  out += ']';
}

// Appends m as a JSON object of numbers, each times `scale`.
void json_map(std::string& out, const std::map<std::string, double>& m, double scale) {
  out += '{';
  bool first = true;
  for (const auto& [k, v] : m) {
    if (!first) out += ',';
    first = false;
    out += json_str(k);
    out += ':';
    out += num(v * scale);
  }
  out += '}';
}

}  // namespace

std::string SearchPlan::to_json() const {
  std::string s = "{\"mode\":";
  s += json_str(mode);
  s += ",\"devices\":";
  s += std::to_string(devices);
  s += ",\"mesh\":";
  json_ints(s, mesh);
  s += ",\"ops\":[";
  for (size_t i = 0; i < ops.size(); ++i) {
    const PlannedOp& op = ops[i];
    if (i) s += ',';
    s += "{\"op\":";
    s += json_str(op.op);
    s += ",\"shapes\":[";
    for (size_t j = 0; j < op.shapes.size(); ++j) {
      if (j) s += ',';
      json_ints(s, op.shapes[j]);
    }
    s += "],\"strategy\":[";
    for (size_t j = 0; j < op.strategy.size(); ++j) {
      if (j) s += ',';
      json_ints(s, op.strategy[j]);
    }
    s += op.user ? "],\"user\":true}" : "],\"user\":false}";
  }
  const std::pair<const char*, double> parts[] = {{"],\"step_ms\":", step_s() * 1e3},
                                                  {",\"compute_ms\":", compute_s * 1e3},
                                                  {",\"redistribution_ms\":", comm_s * 1e3},
                                                  {",\"gradient_allreduce_ms\":", grad_s * 1e3},
                                                  {",\"optimizer_shard_ms\":", opt_shard_s * 1e3},
                                                  {",\"memory_bytes\":", memory_bytes},
                                                  {",\"weight_bytes\":", weight_bytes}};
  for (const auto& [key, v] : parts) {
    s += key;
    s += num(v);
  }
  s += ",\"collectives_ms\":";
  json_map(s, collective_s, 1e3);
  s += ",\"axis_bytes\":";
  json_map(s, axis_bytes, 1);
  s +=
      str(",\"optimizer_shard\":{\"weights\":", opt_shard_weights, ",\"all_gathers\":", opt_gathers,
          ",\"all_gather_bytes\":", num(opt_gather_bytes), ",\"reduce_scatters\":", opt_scatters,
          ",\"reduce_scatter_bytes\":", num(opt_scatter_bytes), "}}");
  return s;
}

}  // namespace mycel::parallel
