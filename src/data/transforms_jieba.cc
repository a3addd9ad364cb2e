// JiebaTokenizer (transforms_jieba.h): the dictionary DAG with its maximum-weight route, the
// B/E/M/S hidden Markov model with Viterbi, and their MIX. Sentences are handled as arrays of
// code points with their UTF-8 byte offsets, so words and offsets come out in bytes.
#include "data/transforms_jieba.h"

#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "base/utf8.h"

namespace mycel::data {
namespace {

constexpr std::string_view kWho = "JiebaTokenizer";
constexpr double kMinDouble = -3.14e100;  // the models' "impossible" log probability

struct Char {
  UChar32 cp;
  uint32_t begin, end;  // bytes
};

std::vector<Char> chars_of(const std::string& s) {
  std::vector<Char> out;
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const int32_t n = static_cast<int32_t>(s.size());
  for (int32_t i = 0; i < n;) {
    const int32_t b = i;
    UChar32 c;
    U8_NEXT(p, i, n, c);
    out.push_back({c, static_cast<uint32_t>(b), static_cast<uint32_t>(i)});
  }
  return out;
}

std::ifstream open_model(const std::string& path) {
  std::ifstream f(path);
  MC_CHECK(f.good(), Value, kWho, ": cannot read the model file ", path, ".");
  return f;
}

// ----- the dictionary -----

class Dictionary {
 public:
  explicit Dictionary(const std::string& path) {
    std::ifstream f = open_model(path);
    std::string line;
    std::vector<std::pair<std::string, double>> entries;
    for (int64_t no = 1; std::getline(f, line); ++no) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      std::istringstream in(line);
      std::string word;
      double freq = 0;
      MC_CHECK(static_cast<bool>(in >> word >> freq) && freq >= 0 && valid_utf8(word), Runtime,
               kWho, ": ", path, ":", no, ": expected 'word frequency [tag]', got '", line, "'.");
      entries.emplace_back(word, freq);
    }
    MC_CHECK(!entries.empty(), Runtime, kWho, ": the dictionary ", path, " has no words.");
    for (const auto& e : entries) total_ += e.second;
    MC_CHECK(total_ > 0, Runtime, kWho, ": the dictionary ", path, " has no positive frequency.");
    std::vector<double> weights;
    for (const auto& [w, freq] : entries) {
      const double wt = std::log(std::max(freq, 1e-300) / total_);
      insert(w, wt);
      weights.push_back(wt);
    }
    min_weight_ = *std::min_element(weights.begin(), weights.end());
    std::nth_element(weights.begin(), weights.begin() + static_cast<int64_t>(weights.size() / 2),
                     weights.end());
    median_weight_ = weights[weights.size() / 2];
  }

  // A user word: log(freq / total) of the dictionary's total, or the median weight.
  void add_user(const std::string& word, double freq) {
    MC_CHECK(!word.empty() && valid_utf8(word), Value, kWho,
             ": a user word must be non-empty "
             "UTF-8 text.");
    insert(word, freq < 0 ? median_weight_ : std::log(std::max(freq, 1e-300) / total_));
    if (chars_of(word).size() == 1) user_singles_.insert(word);
  }

  // The weight of a word, or nullptr.
  const double* find(const std::string& w) const {
    auto it = words_.find(w);
    return it == words_.end() ? nullptr : &it->second;
  }
  bool is_prefix(const std::string& w) const { return prefixes_.count(w) != 0; }
  bool is_user_single(const std::string& w) const { return user_singles_.count(w) != 0; }
  double min_weight() const { return min_weight_; }

 private:
  void insert(const std::string& w, double weight) {
    words_[w] = weight;
    for (const Char& c : chars_of(w)) prefixes_.insert(w.substr(0, c.end));
  }

  std::unordered_map<std::string, double> words_;
  std::unordered_set<std::string> prefixes_;  // every prefix of a word, the word included
  std::unordered_set<std::string> user_singles_;
  double total_ = 0, min_weight_ = 0, median_weight_ = 0;
};

// ----- the HMM -----

enum State { B = 0, E = 1, M = 2, S = 3 };

class Hmm {
 public:
  explicit Hmm(const std::string& path) {
    std::ifstream f = open_model(path);
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(f, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty() && line[0] != '#') lines.push_back(line);
    }
    MC_CHECK(lines.size() == 9, Runtime, kWho, ": ", path,
             " is not an HMM model file: expected 9 "
             "model lines (start, 4 transition rows, 4 emission rows), got ",
             lines.size(), ".");
    numbers(path, lines[0], start_);
    for (int s = 0; s < 4; ++s) numbers(path, lines[1 + static_cast<size_t>(s)], trans_[s]);
    for (int s = 0; s < 4; ++s) emissions(path, lines[5 + static_cast<size_t>(s)], &emit_[s]);
  }

  // The words of chars[b, e) by Viterbi (e > b), appended to out as [begin, end) indices.
  void viterbi(const std::vector<Char>& chars, size_t b, size_t e,
               std::vector<std::pair<size_t, size_t>>* out) const {
    const size_t n = e - b;
    std::vector<std::array<double, 4>> weight(n);
    std::vector<std::array<int, 4>> from(n);
    for (int s = 0; s < 4; ++s) weight[0][s] = start_[s] + emit(s, chars[b].cp);
    for (size_t i = 1; i < n; ++i) {
      for (int s = 0; s < 4; ++s) {
        double best = kMinDouble * 4;
        int arg = 0;
        for (int p = 0; p < 4; ++p) {
          const double v = weight[i - 1][p] + trans_[p][s];
          if (v > best) best = v, arg = p;
        }
        weight[i][s] = best + emit(s, chars[b + i].cp);
        from[i][s] = arg;
      }
    }
    int state = weight[n - 1][E] >= weight[n - 1][S] ? E : S;
    std::vector<int> states(n);
    for (size_t i = n; i-- > 0;) {
      states[i] = state;
      state = from[i][state];
    }
    size_t word = b;
    for (size_t i = 0; i < n; ++i) {
      if (states[i] == E || states[i] == S) {
        out->emplace_back(word, b + i + 1);
        word = b + i + 1;
      }
    }
    if (word < e) out->emplace_back(word, e);
  }

 private:
  double emit(int s, UChar32 c) const {
    auto it = emit_[s].find(c);
    return it == emit_[s].end() ? kMinDouble : it->second;
  }

  static void numbers(const std::string& path, const std::string& line, double* out) {
    std::istringstream in(line);
    for (int k = 0; k < 4; ++k) {
      MC_CHECK(static_cast<bool>(in >> out[k]), Runtime, kWho, ": ", path,
               ": expected 4 numbers in '", line, "'.");
    }
  }

  static void emissions(const std::string& path, const std::string& line,
                        std::unordered_map<UChar32, double>* out) {
    std::istringstream in(line);
    std::string item;
    while (std::getline(in, item, ',')) {
      const size_t colon = item.rfind(':');
      std::vector<Char> cs = chars_of(item.substr(0, colon == std::string::npos ? 0 : colon));
      MC_CHECK(colon != std::string::npos && cs.size() == 1, Runtime, kWho, ": ", path,
               ": bad emission entry '", item, "'.");
      (*out)[cs[0].cp] = std::strtod(item.c_str() + colon + 1, nullptr);
    }
  }

  double start_[4] = {};
  double trans_[4][4] = {};
  std::unordered_map<UChar32, double> emit_[4];
};

bool is_ascii_letter(UChar32 c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ascii_digit(UChar32 c) { return c >= '0' && c <= '9'; }

class Jieba final : public Transform {
 public:
  Jieba(const std::string& hmm_path, const std::string& mp_path, const std::string& mode,
        bool with_offsets, const std::vector<std::pair<std::string, double>>& user_words)
      : dict_(mp_path), hmm_(hmm_path), with_offsets_(with_offsets) {
    if (mode == "MP") {
      mode_ = Mode::Mp;
    } else if (mode == "HMM") {
      mode_ = Mode::Hmm;
    } else {
      MC_CHECK(mode == "MIX", Value, kWho, ": mode must be MP, HMM or MIX, but got '", mode, "'.");
    }
    for (const auto& [w, f] : user_words) dict_.add_user(w, f);
  }

  std::string_view name() const override { return kWho; }

  std::vector<Array> apply(std::vector<Array> inputs, int, RowRandom*) const override {
    MC_CHECK(inputs.size() == 1, Type, kWho, ": expects one input column, but got ", inputs.size(),
             ".");
    const Array& x = inputs[0];
    MC_CHECK(x.dtype() == DataType::String && x.ndim() == 0, Type, kWho,
             ": the input must be one string (a 0-d str array), but got ", describe(x), ".");
    const std::string& text = x.str()[0];
    MC_CHECK(valid_utf8(text), Runtime, kWho, ": the input is not valid UTF-8 text.");
    const std::vector<Char> chars = chars_of(text);
    std::vector<std::pair<size_t, size_t>> words;
    // The separators (space, tab, newline, "，", "。") are words of their own; the mode cuts
    // the pieces between them.
    size_t left = 0;
    for (size_t i = 0; i <= chars.size(); ++i) {
      if (i < chars.size() && !is_separator(chars[i].cp)) continue;
      if (left < i) cut(chars, left, i, &words);
      if (i < chars.size()) words.emplace_back(i, i + 1);
      left = i + 1;
    }
    std::vector<std::string> tokens;
    Array starts =
        Array::empty(DataType::UInt32, {static_cast<int64_t>(std::max<size_t>(words.size(), 1))});
    Array limits = Array::empty(DataType::UInt32, starts.shape());
    for (size_t k = 0; k < words.size(); ++k) {
      const uint32_t b = chars[words[k].first].begin, e = chars[words[k].second - 1].end;
      tokens.push_back(text.substr(b, e - b));
      starts.mutable_data<uint32_t>()[k] = b;
      limits.mutable_data<uint32_t>()[k] = e;
    }
    if (tokens.empty()) {  // as the other tokenizers: no words gives [""]
      tokens.emplace_back();
      starts.mutable_data<uint32_t>()[0] = limits.mutable_data<uint32_t>()[0] = 0;
    }
    const int64_t n = static_cast<int64_t>(tokens.size());
    std::vector<Array> out{Array::strings(std::move(tokens), {n})};
    if (with_offsets_) {
      out.push_back(starts);
      out.push_back(limits);
    }
    return out;
  }

 private:
  enum class Mode { Mp, Hmm, Mix };

  static bool is_separator(UChar32 c) {
    return c == ' ' || c == '\t' || c == '\n' || c == 0xFF0C || c == 0x3002;
  }

  void cut(const std::vector<Char>& chars, size_t b, size_t e,
           std::vector<std::pair<size_t, size_t>>* out) const {
    if (mode_ == Mode::Mp) {
      mp(chars, b, e, out);
    } else if (mode_ == Mode::Hmm) {
      hmm(chars, b, e, out);
    } else {
      mix(chars, b, e, out);
    }
  }

  // The maximum-weight route through the dictionary DAG of chars[b, e).
  void mp(const std::vector<Char>& chars, size_t b, size_t e,
          std::vector<std::pair<size_t, size_t>>* out) const {
    const size_t n = e;
    std::vector<double> best(n + 1, 0.0);
    std::vector<size_t> next(n + 1, 0);
    std::vector<std::string> utf8(n);
    for (size_t i = b; i < n; ++i) utf8[i] = encode(chars[i].cp);
    for (size_t i = n; i-- > b;) {
      best[i] = -std::numeric_limits<double>::infinity();
      std::string frag;
      for (size_t j = i; j < n; ++j) {
        frag += utf8[j];
        const double* w = dict_.find(frag);
        if (w != nullptr || j == i) {
          const double v = (w != nullptr ? *w : dict_.min_weight()) + best[j + 1];
          if (v > best[i]) best[i] = v, next[i] = j + 1;
        }
        if (!dict_.is_prefix(frag)) break;
      }
    }
    for (size_t i = b; i < n; i = next[i]) out->emplace_back(i, next[i]);
  }

  // HMM on chars[b, e): ASCII runs are tokens, the rest goes through Viterbi.
  void hmm(const std::vector<Char>& chars, size_t b, size_t e,
           std::vector<std::pair<size_t, size_t>>* out) const {
    size_t left = b;
    for (size_t right = b; right < e;) {
      if (chars[right].cp >= 0x80) {
        ++right;
        continue;
      }
      if (left < right) hmm_.viterbi(chars, left, right, out);
      size_t end = right + 1;
      if (is_ascii_letter(chars[right].cp)) {
        while (end < e && (is_ascii_letter(chars[end].cp) || is_ascii_digit(chars[end].cp))) ++end;
      } else if (is_ascii_digit(chars[right].cp)) {
        while (end < e && (is_ascii_digit(chars[end].cp) || chars[end].cp == '.')) ++end;
      }
      out->emplace_back(right, end);
      left = right = end;
    }
    if (left < e) hmm_.viterbi(chars, left, e, out);
  }

  // MP, then runs of single-character words (not user single words) re-cut by HMM.
  void mix(const std::vector<Char>& chars, size_t b, size_t e,
           std::vector<std::pair<size_t, size_t>>* out) const {
    std::vector<std::pair<size_t, size_t>> words;
    mp(chars, b, e, &words);
    auto single = [&](const std::pair<size_t, size_t>& w) {
      return w.second - w.first == 1 && !dict_.is_user_single(encode(chars[w.first].cp));
    };
    for (size_t k = 0; k < words.size();) {
      if (!single(words[k])) {
        out->push_back(words[k++]);
        continue;
      }
      size_t j = k;
      while (j < words.size() && single(words[j])) ++j;
      hmm(chars, words[k].first, words[j - 1].second, out);
      k = j;
    }
  }

  static std::string encode(UChar32 c) {
    char buf[4];
    int32_t len = 0;
    U8_APPEND_UNSAFE(buf, len, c);
    return std::string(buf, static_cast<size_t>(len));
  }

  Dictionary dict_;
  Hmm hmm_;
  Mode mode_ = Mode::Mix;
  bool with_offsets_;
};

}  // namespace

TransformPtr make_jieba_tokenizer(const std::string& hmm_path, const std::string& mp_path,
                                  const std::string& mode, bool with_offsets,
                                  const std::vector<std::pair<std::string, double>>& user_words) {
  return std::make_shared<Jieba>(hmm_path, mp_path, mode, with_offsets, user_words);
}

}  // namespace mycel::data
