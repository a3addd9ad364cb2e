// The quantization config: MindSpore Lite's INI sections and keys (converter/quant.h), and
// the calibration samples it names.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "base/error.h"
#include "converter/quant.h"

namespace mycel::converter {

namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// One key's parse: where (for errors) and its value.
struct Entry {
  std::string where;  // "quant config 'f', line 3: [section] key"
  std::string value;
};

bool parse_bool(const Entry& e) {
  MC_CHECK(e.value == "true" || e.value == "false", Value, e.where, "=", e.value,
           ": expected true or false");
  return e.value == "true";
}

int64_t parse_int(const Entry& e, int64_t lo, int64_t hi) {
  size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(e.value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  MC_CHECK(used == e.value.size() && !e.value.empty() && v >= lo && v <= hi, Value, e.where, "=",
           e.value, ": expected an integer in [", lo, ", ", hi, "]");
  return v;
}

void set_key(QuantConfig& c, const std::string& section, const std::string& key, const Entry& e) {
  if (section == "common_quant_param" && key == "quant_type") {
    MC_CHECK(e.value == "FULL_QUANT" || e.value == "WEIGHT_QUANT", Value, e.where, "=", e.value,
             ": expected FULL_QUANT or WEIGHT_QUANT");
    c.type = e.value == "FULL_QUANT" ? QuantConfig::Type::Full : QuantConfig::Type::Weight;
  } else if (section == "common_quant_param" && key == "bit_num") {
    c.bit_num = static_cast<int>(parse_int(e, 8, 8));
  } else if (section == "common_quant_param" && key == "min_quant_weight_size") {
    c.min_weight_size = parse_int(e, 0, int64_t{1} << 40);
  } else if (section == "common_quant_param" && key == "min_quant_weight_channel") {
    c.min_weight_channel = parse_int(e, 0, int64_t{1} << 40);
  } else if (section == "data_preprocess_param" && key == "calibrate_path") {
    std::stringstream items(e.value);
    std::string item;
    while (std::getline(items, item, ',')) {
      const size_t colon = item.find(':');
      MC_CHECK(colon != std::string::npos && colon > 0 && colon + 1 < item.size(), Value, e.where,
               "=", e.value, ": expected <input name>:<folder>[,<input name>:<folder>]");
      c.calibrate_path.emplace_back(trim(item.substr(0, colon)), trim(item.substr(colon + 1)));
    }
    MC_CHECK(!c.calibrate_path.empty(), Value, e.where, ": expected <input name>:<folder>");
  } else if (section == "data_preprocess_param" && key == "calibrate_size") {
    c.calibrate_size = parse_int(e, 1, int64_t{1} << 30);
  } else if (section == "data_preprocess_param" && key == "input_type") {
    MC_CHECK(e.value == "BIN", Value, e.where, "=", e.value, ": expected BIN");
  } else if (section == "full_quant_param" && key == "activation_quant_method") {
    MC_CHECK(e.value == "MAX_MIN" || e.value == "KL", Value, e.where, "=", e.value,
             ": expected MAX_MIN or KL");
    c.method = e.value == "KL" ? QuantConfig::Method::KL : QuantConfig::Method::MaxMin;
  } else if (section == "full_quant_param" && key == "per_channel") {
    c.per_channel = parse_bool(e);
  } else if (section == "full_quant_param" && key == "bias_correction") {
    c.bias_correction = parse_bool(e);
  } else {
    MC_THROW(Value, e.where, ": unknown key");
  }
}

}  // namespace

QuantConfig parse_quant_config(const std::string& text, const std::string& what) {
  static const std::set<std::string> kSections = {"common_quant_param", "data_preprocess_param",
                                                  "full_quant_param"};
  QuantConfig c;
  std::string section;
  std::set<std::string> seen;
  std::istringstream lines(text);
  std::string line;
  for (int no = 1; std::getline(lines, line); ++no) {
    line = trim(line);
    const std::string at = str(what, ", line ", no);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      MC_CHECK(line.back() == ']', Value, at, ": '", line, "' is not a [section]");
      section = trim(line.substr(1, line.size() - 2));
      MC_CHECK(kSections.count(section), Value, at, ": unknown section [", section,
               "] (known: [common_quant_param], [data_preprocess_param], [full_quant_param])");
      continue;
    }
    const size_t eq = line.find('=');
    MC_CHECK(eq != std::string::npos, Value, at, ": '", line, "' is not key=value");
    const std::string key = trim(line.substr(0, eq));
    MC_CHECK(!section.empty(), Value, at, ": key '", key, "' outside any [section]");
    const Entry e{str(at, ": [", section, "] ", key), trim(line.substr(eq + 1))};
    MC_CHECK(seen.insert(section + "." + key).second, Value, e.where, ": given twice");
    set_key(c, section, key, e);
  }
  MC_CHECK(c.type != QuantConfig::Type::None, Value, what,
           ": [common_quant_param] quant_type is missing (FULL_QUANT or WEIGHT_QUANT)");
  if (c.type == QuantConfig::Type::Full) {
    MC_CHECK(!c.calibrate_path.empty(), Value, what,
             ": FULL_QUANT needs [data_preprocess_param] calibrate_path");
    MC_CHECK(c.calibrate_size > 0, Value, what,
             ": FULL_QUANT needs [data_preprocess_param] calibrate_size");
  }
  return c;
}

QuantConfig read_quant_config(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  MC_CHECK(f.good(), Value, "mycel_convert: cannot read the quantization config '", path, "'");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_quant_config(ss.str(), "quant config '" + path + "'");
}

std::vector<Sample> load_calibration(const QuantConfig& c, const lite::Graph& g) {
  namespace fs = std::filesystem;
  std::vector<std::vector<std::string>> files(g.inputs.size());
  std::vector<char> named(g.inputs.size(), 0);
  for (const auto& [name, folder] : c.calibrate_path) {
    size_t i = 0;
    while (i < g.inputs.size() && g.tensors[g.inputs[i]].name != name) ++i;
    std::string names;
    for (int t : g.inputs) names += (names.empty() ? "'" : ", '") + g.tensors[t].name + "'";
    MC_CHECK(i < g.inputs.size(), Value, "calibrate_path: the model has no input '", name,
             "' (its inputs: ", names, ")");
    MC_CHECK(!named[i], Value, "calibrate_path: input '", name, "' is named twice");
    named[i] = 1;
    std::error_code ec;
    MC_CHECK(fs::is_directory(folder, ec), Value, "calibrate_path: '", folder, "' (input '", name,
             "') is not a folder");
    for (const auto& e : fs::directory_iterator(folder))
      if (e.is_regular_file() && e.path().extension() == ".bin")
        files[i].push_back(e.path().string());
    std::sort(files[i].begin(), files[i].end());
    MC_CHECK(static_cast<int64_t>(files[i].size()) >= c.calibrate_size, Value, "calibrate_path: '",
             folder, "' holds ", files[i].size(), " .bin file(s); calibrate_size is ",
             c.calibrate_size);
  }
  for (size_t i = 0; i < g.inputs.size(); ++i)
    MC_CHECK(named[i], Value, "calibrate_path: no folder for input '", g.tensors[g.inputs[i]].name,
             "'");
  std::vector<Sample> out(static_cast<size_t>(c.calibrate_size), Sample(g.inputs.size()));
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const lite::TensorDesc& d = g.tensors[g.inputs[i]];
    const size_t n = static_cast<size_t>(lite::numel(d.shape));
    for (size_t s = 0; s < out.size(); ++s) {
      std::ifstream f(files[i][s], std::ios::binary);
      std::vector<float>& v = out[s][i];
      v.resize(n);
      f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * 4));
      MC_CHECK(f.gcount() == static_cast<std::streamsize>(n * 4) && f.peek() == EOF, Value,
               "calibration file '", files[i][s], "' must hold ", n * 4, " bytes (float32 ",
               lite::dims_str(d.shape), " for input '", d.name, "')");
    }
  }
  return out;
}

}  // namespace mycel::converter
