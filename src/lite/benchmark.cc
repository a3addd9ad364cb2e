#include "lite/benchmark.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <map>
#include <random>
#include <sstream>

#include "base/error.h"
#include "lite/flags.h"
#include "lite/model.h"

namespace mycel::lite {

namespace {

constexpr const char* kTool = "mycel_benchmark";

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  MC_CHECK(f.good(), Value, kTool, ": cannot open '", path, "'");
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Reference {
  Dims shape;
  std::vector<float> values;
};

// MindSpore Lite's benchmark data: per output "name ndim d0 d1 ..." then a line of values.
std::map<std::string, Reference> read_reference(const std::string& path) {
  std::istringstream in(read_file(path));
  std::map<std::string, Reference> refs;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream head(line);
    std::string name;
    int64_t ndim = -1;
    head >> name >> ndim;
    MC_CHECK(!head.fail() && ndim >= 0 && ndim <= 8, Value, kTool, ": '", path,
             "': bad header line '", line, "' (want: name ndim dims...)");
    Reference r;
    for (int64_t i = 0; i < ndim; ++i) {
      int64_t d = -1;
      head >> d;
      MC_CHECK(!head.fail() && d >= 0, Value, kTool, ": '", path, "': bad dims in '", line, "'");
      r.shape.push_back(d);
    }
    const int64_t n = dims_numel(r.shape, path);
    MC_CHECK(std::getline(in, line), Value, kTool, ": '", path, "': no values for '", name, "'");
    std::istringstream vals(line);
    float v;
    while (vals >> v) r.values.push_back(v);
    MC_CHECK(static_cast<int64_t>(r.values.size()) == n, Value, kTool, ": '", path, "': '", name,
             "' has ", r.values.size(), " values; its shape ", dims_str(r.shape), " needs ", n);
    refs[name] = std::move(r);
  }
  return refs;
}

double peak_rss_mb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0.0;
}

// --timeProfiling=true: `loops` more runs timing each node; per node its mean and minimum in
// us (on a busy machine the minima are the steadier measure), its share of the nodes' total
// mean, its op and output (dtype and shape), slowest first.
void print_profile(Model& model, const std::vector<Tensor>& inputs, int64_t loops,
                   std::ostream& out) {
  const Graph& g = model.exec_graph();
  std::vector<double> sum(g.nodes.size(), 0.0), best(g.nodes.size(), 1e30), run;
  std::vector<Tensor> outputs;
  for (int64_t i = 0; i < loops; ++i) {
    run.assign(g.nodes.size(), 0.0);
    model.Predict(inputs, &outputs, &run);
    for (size_t k = 0; k < run.size(); ++k) sum[k] += run[k], best[k] = std::min(best[k], run[k]);
  }
  double total = 0, total_min = 0;
  for (size_t k = 0; k < sum.size(); ++k) total += sum[k], total_min += best[k];
  std::vector<size_t> order(sum.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sum[a] > sum[b]; });
  const double per = 1e6 / static_cast<double>(loops);
  out << std::fixed << std::setprecision(1) << "Per node, over " << loops
      << " runs (us): mean, min, share of the mean; nodes' total " << total * per << " mean, "
      << total_min * 1e6 << " of minima\n";
  for (size_t k : order) {
    const NodeDesc& n = g.nodes[k];
    const TensorDesc& y = g.tensors[n.outputs[0]];
    out << "  " << std::setw(9) << sum[k] * per << std::setw(9) << best[k] * 1e6 << std::setw(6)
        << (total > 0 ? 100.0 * sum[k] / total : 0.0) << "%  " << op_type_name(n.op) << " '"
        << n.name << "' -> " << dtype_name(y.dtype) << " " << dims_str(y.shape) << "\n";
  }
}

}  // namespace

int benchmark_main(const std::vector<std::string>& args, std::ostream& out) {
  Flags f = parse_flags(kTool, args,
                        {"modelFile", "loopCount", "warmUpLoopCount", "numThreads", "inDataFile",
                         "benchmarkDataFile", "accuracyThreshold", "enableFp16", "timeProfiling"});
  Context ctx;
  ctx.thread_num = static_cast<int>(f.get_int("numThreads", 1, 1, 1024));
  const std::string half = f.get("enableFp16", "false");
  MC_CHECK(half == "true" || half == "false", Value, kTool, ": --enableFp16=", half,
           ": expected true or false");
  if (half == "true") ctx.precision = Precision::BFloat16;
  const std::string profile = f.get("timeProfiling", "false");
  MC_CHECK(profile == "true" || profile == "false", Value, kTool, ": --timeProfiling=", profile,
           ": expected true or false");
  const int64_t loops = f.get_int("loopCount", 10, 1, 1000000);
  const int64_t warm = f.get_int("warmUpLoopCount", 3, 0, 1000000);
  double threshold = 0.5;
  if (f.has("accuracyThreshold")) {
    char* end = nullptr;
    const std::string& s = f.get("accuracyThreshold");
    threshold = std::strtod(s.c_str(), &end);
    MC_CHECK(!s.empty() && *end == '\0' && threshold >= 0, Value, kTool,
             ": --accuracyThreshold=", s, " is not a non-negative number");
  }
  Model model;
  model.Build(f.get("modelFile"), ctx);
  std::vector<Tensor> inputs = model.GetInputs();
  if (f.has("inDataFile")) {
    auto files = split_commas(f.get("inDataFile"));
    MC_CHECK(files.size() == inputs.size(), Value, kTool, ": --inDataFile names ", files.size(),
             " file(s); the model has ", inputs.size(), " input(s)");
    for (size_t i = 0; i < files.size(); ++i) {
      std::string bytes = read_file(files[i]);
      MC_CHECK(bytes.size() == inputs[i].DataSize(), Value, kTool, ": '", files[i], "' holds ",
               bytes.size(), " bytes; input '", inputs[i].Name(), "' ", dims_str(inputs[i].Shape()),
               " needs ", inputs[i].DataSize());
      if (!bytes.empty()) std::memcpy(inputs[i].MutableData(), bytes.data(), bytes.size());
    }
  } else {
    std::mt19937 gen(0);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (Tensor& t : inputs) {
      float* p = static_cast<float*>(t.MutableData());
      for (int64_t i = 0; i < t.ElementNum(); ++i) p[i] = u(gen);
    }
  }
  std::vector<Tensor> outputs;
  for (int64_t i = 0; i < warm; ++i) model.Predict(inputs, &outputs);
  std::vector<double> ms;
  for (int64_t i = 0; i < loops; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    model.Predict(inputs, &outputs);
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  double mean = 0;
  for (double v : ms) mean += v;
  mean /= static_cast<double>(ms.size());
  size_t p99 = static_cast<size_t>(std::ceil(0.99 * static_cast<double>(ms.size()))) - 1;
  out << std::fixed << std::setprecision(4);
  out << "Model: " << f.get("modelFile") << ", threads: " << ctx.thread_num << ", runs: " << loops
      << (half == "true" ? ", bf16 convolutions" : "") << "\n";
  out << "Latency (ms): min " << ms.front() << ", mean " << mean << ", p99 " << ms[p99] << "\n";
  if (profile == "true") print_profile(model, inputs, loops, out);
  out << std::setprecision(2) << "Peak memory: arena " << model.arena_bytes() / 1048576.0
      << " MB, process peak RSS " << peak_rss_mb() << " MB\n";
  if (!f.has("benchmarkDataFile")) return 0;
  auto refs = read_reference(f.get("benchmarkDataFile"));
  int status = 0;
  out << std::setprecision(6);
  for (const Tensor& o : outputs) {
    auto it = refs.find(o.Name());
    MC_CHECK(it != refs.end(), Value, kTool, ": the reference file has no output '", o.Name(), "'");
    MC_CHECK(it->second.shape == o.Shape(), Value, kTool, ": output '", o.Name(), "' is ",
             dims_str(o.Shape()), "; the reference is ", dims_str(it->second.shape));
    const float* p = static_cast<const float*>(o.Data());
    double diff = 0, norm = 0, worst = 0;
    for (int64_t i = 0; i < o.ElementNum(); ++i) {
      double d = std::fabs(double(p[i]) - it->second.values[i]);
      diff += d, norm += std::fabs(double(it->second.values[i])), worst = std::max(worst, d);
    }
    if (std::isnan(diff)) worst = diff;
    double err = norm > 0 ? 100.0 * diff / norm : (diff > 0 ? 100.0 : 0.0);
    if (!(err <= threshold)) status = 1;
    out << "Output '" << o.Name() << "': mean relative error " << err << "%, max abs diff " << worst
        << (err <= threshold ? "" : "  (over the threshold)") << "\n";
  }
  out << (status ? "Accuracy check FAILED" : "Accuracy check passed") << " (threshold " << threshold
      << "%)\n";
  return status;
}

}  // namespace mycel::lite
