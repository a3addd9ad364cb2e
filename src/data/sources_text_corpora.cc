// Text corpora sources (sources_text_corpora.h): token tables, CLUE JSON lines, SQuAD JSON,
// parallel text and IMDB folders. All but IMDB parse their files at construction into rows
// held in memory (these corpora are tens of MB at most); IMDB keeps its file list and reads a
// review when its row is read.
#include "data/sources_text_corpora.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <utility>

#include "base/file.h"
#include "base/utf8.h"

namespace mycel::data {
namespace {

using nlohmann::json;

// The lines of text (without "\n" or "\r\n"), each with its 1-based line number.
std::vector<std::pair<std::string_view, int64_t>> split_lines(std::string_view text) {
  std::vector<std::pair<std::string_view, int64_t>> out;
  int64_t line = 1;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view l = text.substr(0, nl);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.emplace_back(l, line++);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

std::string_view strip(std::string_view s) {
  const char* ws = " \t\r\n\f\v";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

Array str_scalar(std::string s) { return Array::strings({std::move(s)}, {}); }

Array str_vector(std::vector<std::string> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return Array::strings(std::move(v), {n});
}

// A source whose rows were parsed at construction.
class TableSource final : public RandomAccessSource {
 public:
  TableSource(std::string_view name, std::vector<std::string> columns)
      : name_(name), columns_(std::move(columns)) {}

  std::string_view name() const override { return name_; }
  int64_t size() const override { return static_cast<int64_t>(rows_.size()); }
  std::vector<std::string> columns() const override { return columns_; }
  Row read(int64_t i) const override { return rows_[static_cast<size_t>(i)]; }
  std::vector<int32_t> file_of_rows() const override { return files_; }
  std::string file_of_row(int64_t i) const override {
    if (i < 0 || static_cast<size_t>(i) >= files_.size()) return {};
    const size_t f = static_cast<size_t>(files_[static_cast<size_t>(i)]);
    return f < paths_.size() ? paths_[f] : std::string();
  }
  // The paths of the files that add()'s file numbers count.
  void set_paths(std::vector<std::string> paths) { paths_ = std::move(paths); }

  void add(Row row, int32_t file) {
    rows_.push_back(std::move(row));
    files_.push_back(file);
  }

 private:
  std::string name_;
  std::vector<std::string> columns_;
  std::vector<Row> rows_;
  std::vector<int32_t> files_;
  std::vector<std::string> paths_;
};

void check_text(std::string_view who, const std::string& path, int64_t line, std::string_view s) {
  MC_CHECK(valid_utf8(s), Runtime, who, ": ", path, ":", line, ": the text is not valid UTF-8.");
}

// ----- token tables -----

std::vector<std::string> split_fields(std::string_view line, char delim) {
  std::vector<std::string> out;
  if (delim == ' ') {
    size_t i = 0;
    while (true) {
      i = line.find_first_not_of(" \t", i);
      if (i == std::string_view::npos) break;
      const size_t e = std::min(line.find_first_of(" \t", i), line.size());
      out.emplace_back(line.substr(i, e - i));
      i = e;
    }
    return out;
  }
  while (true) {
    const size_t e = line.find(delim);
    out.emplace_back(strip(line.substr(0, e)));
    if (e == std::string_view::npos) break;
    line.remove_prefix(e + 1);
  }
  return out;
}

// ----- JSON helpers -----

// The value at a "/"-separated key path of obj, or nullptr.
const json* find_key(const json& obj, std::string_view key) {
  const json* cur = &obj;
  while (true) {
    const size_t slash = key.find('/');
    const std::string part(key.substr(0, slash));
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(part);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    if (slash == std::string_view::npos) return cur;
    key.remove_prefix(slash + 1);
  }
}

Array json_cell(const json& v, std::string_view who, const std::string& where,
                std::string_view column) {
  if (v.is_string()) return str_scalar(v.get<std::string>());
  if (v.is_boolean()) return Array::scalar<bool>(v.get<bool>());
  if (v.is_number_integer()) return Array::scalar<int64_t>(v.get<int64_t>());
  if (v.is_number_float()) return Array::scalar<float>(v.get<float>());
  if (v.is_array()) {
    std::vector<std::string> items;
    for (const json& e : v) {
      MC_CHECK(e.is_string(), Runtime, who, ": ", where, ": column '", column,
               "' is an array holding a ", e.type_name(), "; only arrays of strings are read.");
      items.push_back(e.get<std::string>());
    }
    return str_vector(std::move(items));
  }
  MC_THROW(Runtime, who, ": ", where, ": column '", column, "' is a JSON ", v.type_name(),
           ", which is not read (strings, numbers, booleans and arrays of strings are).");
}

json parse_json(std::string_view who, const std::string& where, std::string_view text) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    MC_THROW(Runtime, who, ": ", where, ": not valid JSON: ", e.what());
  }
}

// ----- SQuAD -----

void add_squad_file(TableSource* src, const std::string& path, int32_t file) {
  constexpr std::string_view who = "SQuADDataset";
  const json doc = parse_json(who, path, read_regular_file(path, who));
  const json* data = find_key(doc, "data");
  MC_CHECK(data && data->is_array(), Runtime, who, ": ", path,
           ": the file has no 'data' array; it is not a SQuAD file.");
  auto text_of = [&](const json& obj, std::string_view key, std::string_view what) {
    const json* v = find_key(obj, key);
    MC_CHECK(v && v->is_string(), Runtime, who, ": ", path, ": a ", what, " has no string '", key,
             "'.");
    return v->get<std::string>();
  };
  for (const json& article : *data) {
    const json* paragraphs = find_key(article, "paragraphs");
    MC_CHECK(paragraphs && paragraphs->is_array(), Runtime, who, ": ", path,
             ": an article has no 'paragraphs' array.");
    for (const json& p : *paragraphs) {
      const std::string context = text_of(p, "context", "paragraph");
      const json* qas = find_key(p, "qas");
      MC_CHECK(qas && qas->is_array(), Runtime, who, ": ", path,
               ": a paragraph has no 'qas' array.");
      for (const json& q : *qas) {
        std::vector<std::string> texts;
        Array starts;
        const json* answers = find_key(q, "answers");
        const size_t n = answers && answers->is_array() ? answers->size() : 0;
        if (n == 0) {
          texts.push_back("");
          starts = Array::empty(DataType::UInt32, {1});
          starts.mutable_data<uint32_t>()[0] = 0xFFFFFFFFu;
        } else {
          starts = Array::empty(DataType::UInt32, {static_cast<int64_t>(n)});
          for (size_t k = 0; k < n; ++k) {
            const json& a = (*answers)[k];
            texts.push_back(text_of(a, "text", "answer"));
            const json* s = find_key(a, "answer_start");
            MC_CHECK(s && s->is_number_integer() && s->get<int64_t>() >= 0, Runtime, who, ": ",
                     path, ": an answer has no non-negative integer 'answer_start'.");
            starts.mutable_data<uint32_t>()[k] = static_cast<uint32_t>(s->get<int64_t>());
          }
        }
        src->add({str_scalar(context), str_scalar(text_of(q, "question", "question")),
                  str_vector(std::move(texts)), starts},
                 file);
      }
    }
  }
}

// ----- parallel text -----

std::vector<std::string> sentences(std::string_view who, const std::string& path,
                                   ParallelFormat format) {
  const std::string text = read_regular_file(path, who);
  check_text(who, path, 1, text);
  std::vector<std::string> out;
  if (format == ParallelFormat::XmlSegments) {
    size_t pos = 0;
    while ((pos = text.find("<seg", pos)) != std::string::npos) {
      const size_t open_end = text.find('>', pos);
      const size_t close = open_end == std::string::npos ? open_end : text.find("</seg>", open_end);
      MC_CHECK(close != std::string::npos, Runtime, who, ": ", path,
               ": a <seg> element is not closed.");
      out.emplace_back(strip(std::string_view(text).substr(open_end + 1, close - open_end - 1)));
      pos = close + 6;
    }
    return out;
  }
  for (auto [line, no] : split_lines(text)) {
    const std::string_view s = strip(line);
    if (s.empty()) continue;
    if (format == ParallelFormat::TagLines && s.front() == '<') continue;
    out.emplace_back(s);
  }
  return out;
}

// ----- IMDB -----

class ImdbSource final : public RandomAccessSource {
 public:
  ImdbSource(const std::string& dir, const std::string& usage) {
    std::vector<std::string> usages;
    if (usage == "all") {
      usages = {"train", "test"};
    } else {
      MC_CHECK(usage == "train" || usage == "test", Value, name(),
               ": usage must be 'train', 'test' or 'all', but got '", usage, "'.");
      usages = {usage};
    }
    for (const std::string& u : usages) {
      for (const auto& [sub, label] : {std::pair<const char*, uint32_t>{"pos", 1}, {"neg", 0}}) {
        const std::string folder = dir + "/" + u + "/" + sub;
        for (const std::string& f : list_txt(folder)) items_.push_back({folder + "/" + f, label});
      }
    }
  }

  std::string_view name() const override { return "IMDBDataset"; }
  int64_t size() const override { return static_cast<int64_t>(items_.size()); }
  std::vector<std::string> columns() const override { return {"text", "label"}; }
  Row read(int64_t i) const override {
    const Item& it = items_[static_cast<size_t>(i)];
    std::string text = read_regular_file(it.path, name());
    check_text(name(), it.path, 1, text);
    return {str_scalar(std::move(text)), Array::scalar<uint32_t>(it.label)};
  }
  std::string file_of_row(int64_t i) const override {
    return i >= 0 && i < size() ? items_[static_cast<size_t>(i)].path : std::string();
  }

 private:
  struct Item {
    std::string path;
    uint32_t label;
  };

  std::vector<std::string> list_txt(const std::string& folder) const {
    DIR* d = ::opendir(folder.c_str());
    MC_CHECK(d != nullptr, Value, name(), ": the folder ", folder,
             " does not exist or is not a directory or permission denied!");
    std::vector<std::string> out;
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n.size() > 4 && n.compare(n.size() - 4, 4, ".txt") == 0) out.push_back(n);
    }
    ::closedir(d);
    std::sort(out.begin(), out.end());
    return out;
  }

  std::vector<Item> items_;
};

// A source's rows with some of its columns.
class SelectSource final : public RandomAccessSource {
 public:
  SelectSource(SourcePtr inner, std::vector<int> keep)
      : inner_(std::move(inner)), keep_(std::move(keep)) {}
  std::string_view name() const override { return inner_->name(); }
  int64_t size() const override { return inner_->size(); }
  std::vector<std::string> columns() const override {
    const std::vector<std::string> all = inner_->columns();
    std::vector<std::string> out;
    for (int k : keep_) out.push_back(all[static_cast<size_t>(k)]);
    return out;
  }
  Row read(int64_t i) const override {
    Row all = inner_->read(i);
    Row out;
    for (int k : keep_) out.push_back(std::move(all[static_cast<size_t>(k)]));
    return out;
  }
  std::vector<int32_t> file_of_rows() const override { return inner_->file_of_rows(); }
  std::string file_of_row(int64_t i) const override { return inner_->file_of_row(i); }

 private:
  SourcePtr inner_;
  std::vector<int> keep_;
};

}  // namespace

SourcePtr token_table_source(std::string_view name, const std::vector<std::string>& files,
                             char delim, const std::vector<std::string>& columns) {
  auto src = std::make_shared<TableSource>(name, columns);
  src->set_paths(files);
  const size_t ncols = columns.size();
  for (size_t f = 0; f < files.size(); ++f) {
    const std::string text = read_regular_file(files[f], name);
    std::vector<std::vector<std::string>> sentence(ncols);
    auto flush = [&] {
      if (sentence[0].empty()) return;
      Row row;
      for (auto& c : sentence) row.push_back(str_vector(std::exchange(c, {})));
      src->add(std::move(row), static_cast<int32_t>(f));
    };
    for (auto [line, no] : split_lines(text)) {
      if (strip(line).empty()) {
        flush();
        continue;
      }
      check_text(name, files[f], no, line);
      std::vector<std::string> fields = split_fields(line, delim);
      MC_CHECK(fields.size() == ncols, Runtime, name, ": ", files[f], ":", no, ": the line has ",
               fields.size(), " fields but the dataset has ", ncols, " columns.");
      for (size_t c = 0; c < ncols; ++c) sentence[c].push_back(std::move(fields[c]));
    }
    flush();
  }
  return src;
}

SourcePtr json_lines_source(std::string_view name, const std::vector<std::string>& files,
                            const std::vector<JsonColumn>& columns) {
  std::vector<std::string> names;
  for (const JsonColumn& c : columns) names.push_back(c.name);
  auto src = std::make_shared<TableSource>(name, names);
  src->set_paths(files);
  for (size_t f = 0; f < files.size(); ++f) {
    const std::string text = read_regular_file(files[f], name);
    for (auto [line, no] : split_lines(text)) {
      if (strip(line).empty()) continue;
      const std::string where = str(files[f], ":", no);
      const json obj = parse_json(name, where, line);
      MC_CHECK(obj.is_object(), Runtime, name, ": ", where, ": the line is not a JSON object.");
      Row row;
      for (const JsonColumn& c : columns) {
        const json* v = find_key(obj, c.key);
        MC_CHECK(v != nullptr, Runtime, name, ": ", where, ": the object has no key '", c.key,
                 "' (column '", c.name, "').");
        row.push_back(json_cell(*v, name, where, c.name));
      }
      src->add(std::move(row), static_cast<int32_t>(f));
    }
  }
  return src;
}

SourcePtr squad_source(const std::vector<std::string>& files) {
  auto src = std::make_shared<TableSource>(
      "SQuADDataset", std::vector<std::string>{"context", "question", "text", "answer_start"});
  src->set_paths(files);
  for (size_t f = 0; f < files.size(); ++f)
    add_squad_file(src.get(), files[f], static_cast<int32_t>(f));
  return src;
}

SourcePtr parallel_text_source(std::string_view name,
                               const std::vector<std::pair<std::string, std::string>>& pairs,
                               const std::vector<ParallelFormat>& formats,
                               const std::vector<std::string>& columns) {
  MC_CHECK(columns.size() == 2, Value, name, ": parallel text has two columns, not ",
           columns.size(), ".");
  MC_CHECK(formats.size() == pairs.size(), Value, name, ": ", pairs.size(), " file pairs but ",
           formats.size(), " formats.");
  auto src = std::make_shared<TableSource>(name, columns);
  std::vector<std::string> firsts;  // a pair's first file names it
  for (const auto& p : pairs) firsts.push_back(p.first);
  src->set_paths(std::move(firsts));
  for (size_t f = 0; f < pairs.size(); ++f) {
    std::vector<std::string> a = sentences(name, pairs[f].first, formats[f]);
    std::vector<std::string> b = sentences(name, pairs[f].second, formats[f]);
    MC_CHECK(a.size() == b.size(), Runtime, name, ": ", pairs[f].first, " holds ", a.size(),
             " sentences but ", pairs[f].second, " holds ", b.size(),
             "; parallel files must hold as many.");
    for (size_t k = 0; k < a.size(); ++k) {
      src->add({str_scalar(std::move(a[k])), str_scalar(std::move(b[k]))}, static_cast<int32_t>(f));
    }
  }
  return src;
}

SourcePtr select_columns_source(SourcePtr source, const std::vector<int>& keep) {
  const std::vector<std::string> all = source->columns();
  for (int k : keep) {
    MC_CHECK(k >= 0 && static_cast<size_t>(k) < all.size(), Value, source->name(),
             ": column index ", k, " is out of range for ", all.size(), " columns.");
  }
  return std::make_shared<SelectSource>(std::move(source), keep);
}

SourcePtr imdb_source(const std::string& dataset_dir, const std::string& usage) {
  struct stat st {};
  MC_CHECK(::stat(dataset_dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode), Value,
           "IMDBDataset: The folder ", dataset_dir,
           " does not exist or is not a directory or permission denied!");
  return std::make_shared<ImdbSource>(dataset_dir, usage);
}

}  // namespace mycel::data
