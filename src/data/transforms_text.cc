// Text transforms (transforms_text.h) on ICU: UTF-8 is decoded with U8_NEXT, character
// classes come from uchar.h/uscript.h, case folding and normalization from UnicodeString and
// Normalizer2, regular expressions from RegexPattern (compiled once per transform; each
// apply() makes its own matcher, so workers share the transform safely).
#include "data/transforms_text.h"

#include <unicode/normalizer2.h>
#include <unicode/regex.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

#include <memory>
#include <unordered_set>
#include <utility>

#include "base/utf8.h"

namespace mycel::data {
namespace {

struct Piece {
  int32_t begin, end;  // byte offsets in the UTF-8 string
};

struct Tok {
  std::string text;
  uint32_t begin, end;  // byte offsets
};

const std::vector<std::string>& check_strings(std::string_view who, const Array& x) {
  MC_CHECK(x.dtype() == DataType::String, Type, who, ": the input must be a string array, but got ",
           describe(x), ".");
  for (const std::string& s : x.str()) {
    MC_CHECK(valid_utf8(s), Runtime, who, ": the input is not valid UTF-8 text.");
  }
  return x.str();
}

Array uint32_vector(const std::vector<uint32_t>& v) {
  Array a = Array::empty(DataType::UInt32, {static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), a.mutable_data<uint32_t>());
  return a;
}

// A tokenizer: one str scalar in, its tokens (and offsets) out.
class Tokenizer : public Transform {
 public:
  explicit Tokenizer(bool with_offsets) : with_offsets_(with_offsets) {}

  std::vector<Array> apply(std::vector<Array> inputs, int, RowRandom*) const override {
    MC_CHECK(inputs.size() == 1, Type, name(), ": expects one input column, but got ",
             inputs.size(), ".");
    const Array& x = inputs[0];
    const std::vector<std::string>& s = check_strings(name(), x);
    MC_CHECK(x.ndim() == 0, Value, name(), ": the input must be one string (a 0-d array), but got ",
             describe(x), ".");
    std::vector<Tok> toks;
    tokenize(s[0], &toks);
    return output(std::move(toks));
  }

 protected:
  // The tokens of text as byte ranges, in order (empty ones are dropped by tokenize).
  virtual void split(const std::string&, std::vector<Piece>*) const {}

  // The tokens of text: by default the non-empty pieces of split().
  virtual void tokenize(const std::string& text, std::vector<Tok>* out) const {
    std::vector<Piece> pieces;
    split(text, &pieces);
    for (const Piece& p : pieces) {
      if (p.end <= p.begin) continue;
      out->push_back(
          {text.substr(static_cast<size_t>(p.begin), static_cast<size_t>(p.end - p.begin)),
           static_cast<uint32_t>(p.begin), static_cast<uint32_t>(p.end)});
    }
  }

  // The output columns of a token list (MindSpore's rule: no tokens gives [""]).
  std::vector<Array> output(std::vector<Tok> toks) const {
    if (toks.empty()) toks.push_back({"", 0, 0});
    std::vector<std::string> tokens;
    std::vector<uint32_t> starts, limits;
    for (Tok& t : toks) {
      tokens.push_back(std::move(t.text));
      starts.push_back(t.begin);
      limits.push_back(t.end);
    }
    const int64_t n = static_cast<int64_t>(tokens.size());
    std::vector<Array> out{Array::strings(std::move(tokens), {n})};
    if (with_offsets_) {
      out.push_back(uint32_vector(starts));
      out.push_back(uint32_vector(limits));
    }
    return out;
  }

 private:
  bool with_offsets_;
};

// Calls f(begin, end, code point) for each code point of a valid UTF-8 string.
template <class F>
void for_each_char(const std::string& text, F&& f) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const int32_t n = static_cast<int32_t>(text.size());
  for (int32_t i = 0; i < n;) {
    const int32_t b = i;
    UChar32 c;
    U8_NEXT(s, i, n, c);
    f(b, i, c);
  }
}

class UnicodeCharTokenizer final : public Tokenizer {
 public:
  using Tokenizer::Tokenizer;
  std::string_view name() const override { return "UnicodeCharTokenizer"; }

 protected:
  void split(const std::string& text, std::vector<Piece>* out) const override {
    for_each_char(text, [&](int32_t b, int32_t e, UChar32) { out->push_back({b, e}); });
  }
};

// Runs of characters with the same class (a class of -1: not part of any token).
template <class ClassOf>
void split_runs(const std::string& text, std::vector<Piece>* out, ClassOf&& class_of) {
  int64_t cur = -1;
  for_each_char(text, [&](int32_t b, int32_t e, UChar32 c) {
    const int64_t k = class_of(c);
    if (k >= 0 && k == cur) {
      out->back().end = e;
    } else if (k >= 0) {
      out->push_back({b, e});
    }
    cur = k;
  });
}

class WhitespaceTokenizer final : public Tokenizer {
 public:
  using Tokenizer::Tokenizer;
  std::string_view name() const override { return "WhitespaceTokenizer"; }

 protected:
  void split(const std::string& text, std::vector<Piece>* out) const override {
    split_runs(text, out, [](UChar32 c) { return u_isUWhiteSpace(c) ? -1 : 0; });
  }
};

class UnicodeScriptTokenizer final : public Tokenizer {
 public:
  UnicodeScriptTokenizer(bool keep_whitespace, bool with_offsets)
      : Tokenizer(with_offsets), keep_ws_(keep_whitespace) {}
  std::string_view name() const override { return "UnicodeScriptTokenizer"; }

 protected:
  void split(const std::string& text, std::vector<Piece>* out) const override {
    constexpr int64_t kWhitespace = USCRIPT_CODE_LIMIT + 1;  // a class of its own
    split_runs(text, out, [&](UChar32 c) -> int64_t {
      if (u_isUWhiteSpace(c)) return keep_ws_ ? kWhitespace : -1;
      UErrorCode err = U_ZERO_ERROR;
      const UScriptCode script = uscript_getScript(c, &err);
      return U_SUCCESS(err) ? static_cast<int64_t>(script) : 0;
    });
  }

 private:
  bool keep_ws_;
};

std::unique_ptr<icu::RegexPattern> compile(std::string_view who, std::string_view what,
                                           const std::string& pattern) {
  UErrorCode err = U_ZERO_ERROR;
  UParseError pe;
  std::unique_ptr<icu::RegexPattern> p(
      icu::RegexPattern::compile(icu::UnicodeString::fromUTF8(pattern), 0, pe, err));
  MC_CHECK(U_SUCCESS(err), Value, who, ": ", what, " '", pattern,
           "' is not a valid regular expression (", u_errorName(err), " at offset ", pe.offset,
           ").");
  return p;
}

// The UTF-8 byte offset of each UTF-16 index of u (u.length() + 1 entries).
std::vector<int32_t> utf8_offsets(const icu::UnicodeString& u) {
  std::vector<int32_t> off(static_cast<size_t>(u.length()) + 1, 0);
  int32_t bytes = 0;
  for (int32_t i = 0; i < u.length();) {
    const UChar32 c = u.char32At(i);
    const int32_t units = U16_LENGTH(c);
    for (int32_t k = 0; k < units; ++k) off[static_cast<size_t>(i + k)] = bytes;
    bytes += U8_LENGTH(c);
    i += units;
  }
  off[static_cast<size_t>(u.length())] = bytes;
  return off;
}

class RegexTokenizer final : public Tokenizer {
 public:
  RegexTokenizer(const std::string& delim, const std::string& keep, bool with_offsets)
      : Tokenizer(with_offsets), delim_(compile(name(), "delim_pattern", delim)) {
    if (!keep.empty()) keep_ = compile(name(), "keep_delim_pattern", keep);
  }
  std::string_view name() const override { return "RegexTokenizer"; }
  // The pieces of text (split, for BasicTokenizer).
  void pieces(const std::string& text, std::vector<Piece>* out) const { split(text, out); }

 protected:
  void split(const std::string& text, std::vector<Piece>* out) const override {
    const icu::UnicodeString u = icu::UnicodeString::fromUTF8(text);
    const std::vector<int32_t> off = utf8_offsets(u);
    UErrorCode err = U_ZERO_ERROR;
    std::unique_ptr<icu::RegexMatcher> m(delim_->matcher(u, err));
    std::unique_ptr<icu::RegexMatcher> keep(keep_ ? keep_->matcher(err) : nullptr);
    MC_CHECK(U_SUCCESS(err), Runtime, name(), ": cannot match: ", u_errorName(err), ".");
    int32_t last = 0;
    while (m->find(err) && U_SUCCESS(err)) {
      const int32_t s = m->start(err), e = m->end(err);
      if (e == s) continue;  // an empty match splits nothing
      out->push_back({off[static_cast<size_t>(last)], off[static_cast<size_t>(s)]});
      if (keep) {
        const icu::UnicodeString d = u.tempSubStringBetween(s, e);
        keep->reset(d);
        if (keep->matches(err))
          out->push_back({off[static_cast<size_t>(s)], off[static_cast<size_t>(e)]});
      }
      last = e;
    }
    MC_CHECK(U_SUCCESS(err), Runtime, name(), ": matching failed: ", u_errorName(err), ".");
    out->push_back({off[static_cast<size_t>(last)], off[static_cast<size_t>(u.length())]});
  }

 private:
  std::unique_ptr<icu::RegexPattern> delim_, keep_;
};

// A transform applying a string function to each element.
class StringMap : public UnaryTransform {
 public:
  virtual std::string map(const std::string& s) const = 0;

 protected:
  Array apply1(const Array& x, int, RowRandom*) const override {
    std::vector<std::string> out;
    for (const std::string& s : check_strings(name(), x)) out.push_back(map(s));
    return Array::strings(std::move(out), x.shape());
  }
};

std::string to_utf8(const icu::UnicodeString& u) {
  std::string s;
  u.toUTF8String(s);
  return s;
}

// ICU's NFKC_Casefold, as MindSpore's: compatibility forms folded too (fullwidth "！" is "!",
// "ﬁ" is "fi"), default-ignorable characters removed.
class CaseFold final : public StringMap {
 public:
  CaseFold() {
    UErrorCode err = U_ZERO_ERROR;
    norm_ = icu::Normalizer2::getNFKCCasefoldInstance(err);
    MC_CHECK(U_SUCCESS(err), Runtime, "CaseFold: ICU has no NFKC_Casefold data (", u_errorName(err),
             ").");
  }
  std::string_view name() const override { return "CaseFold"; }
  std::string map(const std::string& s) const override {
    UErrorCode err = U_ZERO_ERROR;
    const icu::UnicodeString u = norm_->normalize(icu::UnicodeString::fromUTF8(s), err);
    MC_CHECK(U_SUCCESS(err), Runtime, "CaseFold: ", u_errorName(err), ".");
    return to_utf8(u);
  }

 private:
  const icu::Normalizer2* norm_ = nullptr;
};

class NormalizeUTF8 final : public StringMap {
 public:
  explicit NormalizeUTF8(const std::string& form) {
    UErrorCode err = U_ZERO_ERROR;
    if (form == "NFC") {
      norm_ = icu::Normalizer2::getNFCInstance(err);
    } else if (form == "NFKC") {
      norm_ = icu::Normalizer2::getNFKCInstance(err);
    } else if (form == "NFD") {
      norm_ = icu::Normalizer2::getNFDInstance(err);
    } else if (form == "NFKD") {
      norm_ = icu::Normalizer2::getNFKDInstance(err);
    } else {
      MC_CHECK(form == "NONE", Value,
               "NormalizeUTF8: normalize_form must be NONE, NFC, NFKC, NFD or NFKD, but got '",
               form, "'.");
    }
    MC_CHECK(U_SUCCESS(err), Runtime, "NormalizeUTF8: ICU has no ", form, " data (",
             u_errorName(err), ").");
  }
  std::string_view name() const override { return "NormalizeUTF8"; }
  std::string map(const std::string& s) const override {
    if (norm_ == nullptr) return s;
    UErrorCode err = U_ZERO_ERROR;
    const icu::UnicodeString u = norm_->normalize(icu::UnicodeString::fromUTF8(s), err);
    MC_CHECK(U_SUCCESS(err), Runtime, "NormalizeUTF8: ", u_errorName(err), ".");
    return to_utf8(u);
  }

 private:
  const icu::Normalizer2* norm_ = nullptr;  // null: NONE
};

class RegexReplace final : public StringMap {
 public:
  RegexReplace(const std::string& pattern, const std::string& replace, bool all)
      : pattern_(compile(name(), "pattern", pattern)),
        replace_(icu::UnicodeString::fromUTF8(replace)),
        all_(all) {}
  std::string_view name() const override { return "RegexReplace"; }
  std::string map(const std::string& s) const override {
    UErrorCode err = U_ZERO_ERROR;
    const icu::UnicodeString input = icu::UnicodeString::fromUTF8(s);  // the matcher refers to it
    std::unique_ptr<icu::RegexMatcher> m(pattern_->matcher(input, err));
    const icu::UnicodeString u =
        all_ ? m->replaceAll(replace_, err) : m->replaceFirst(replace_, err);
    MC_CHECK(U_SUCCESS(err), Value, name(), ": the replacement failed (", u_errorName(err),
             "); check the $ groups of replace.");
    return to_utf8(u);
  }

 private:
  std::unique_ptr<icu::RegexPattern> pattern_;
  icu::UnicodeString replace_;
  bool all_;
};

// ----- WordPiece, BERT -----

class WordpieceCore {
 public:
  WordpieceCore(std::vector<std::string> vocab, std::string suffix, int64_t max_bytes,
                std::string unknown)
      : vocab_(std::make_move_iterator(vocab.begin()), std::make_move_iterator(vocab.end())),
        suffix_(std::move(suffix)),
        max_bytes_(max_bytes),
        unknown_(std::move(unknown)) {
    MC_CHECK(max_bytes >= 0, Value,
             "WordpieceTokenizer: max_bytes_per_token must be >= 0, but got ", max_bytes, ".");
  }

  // The pieces of token (offsets from base).
  void split(const std::string& token, uint32_t base, std::vector<Tok>* out) const {
    const size_t n = token.size();
    if (static_cast<int64_t>(n) > max_bytes_) {
      const uint32_t end =
          unknown_.empty() ? static_cast<uint32_t>(n) : static_cast<uint32_t>(max_bytes_ + 1);
      out->push_back({unknown_.empty() ? token : unknown_, base, base + end});
      return;
    }
    std::vector<Tok> pieces;
    for (size_t start = 0; start < n;) {
      size_t end = n;
      bool found = false;
      while (end > start) {
        std::string sub = (start > 0 ? suffix_ : std::string()) + token.substr(start, end - start);
        if (vocab_.count(sub) != 0) {
          pieces.push_back({std::move(sub), base + static_cast<uint32_t>(start),
                            base + static_cast<uint32_t>(end)});
          found = true;
          break;
        }
        do {
          --end;
        } while (end > start && (static_cast<unsigned char>(token[end]) & 0xC0) == 0x80);
      }
      if (!found) {
        out->push_back(
            {unknown_.empty() ? token : unknown_, base, base + static_cast<uint32_t>(n)});
        return;
      }
      start = end;
    }
    for (Tok& p : pieces) out->push_back(std::move(p));
  }

 private:
  std::unordered_set<std::string> vocab_;
  std::string suffix_;
  int64_t max_bytes_;
  std::string unknown_;
};

class WordpieceTokenizer final : public Tokenizer {
 public:
  WordpieceTokenizer(WordpieceCore core, bool with_offsets)
      : Tokenizer(with_offsets), core_(std::move(core)) {}
  std::string_view name() const override { return "WordpieceTokenizer"; }

  // Takes a token or a 1-d array of tokens.
  std::vector<Array> apply(std::vector<Array> inputs, int, RowRandom*) const override {
    MC_CHECK(inputs.size() == 1, Type, name(), ": expects one input column, but got ",
             inputs.size(), ".");
    const Array& x = inputs[0];
    const std::vector<std::string>& s = check_strings(name(), x);
    MC_CHECK(x.ndim() <= 1, Value, name(),
             ": the input must be a token or a 1-d array of "
             "tokens, but got ",
             describe(x), ".");
    std::vector<Tok> toks;
    for (const std::string& t : s) core_.split(t, 0, &toks);
    return output(std::move(toks));
  }

 private:
  WordpieceCore core_;
};

constexpr const char* kUnusedPattern = R"(\[CLS\]|\[SEP\]|\[UNK\]|\[PAD\]|\[MASK\]|\[unused\d+\])";
constexpr const char* kCjk =
    R"([\x{4E00}-\x{9FFF}\x{3400}-\x{4DBF}\x{20000}-\x{2A6DF}\x{2A700}-\x{2B73F})"
    R"(\x{2B740}-\x{2B81F}\x{2B820}-\x{2CEAF}\x{F900}-\x{FAFF}\x{2F800}-\x{2FA1F}])";

std::string basic_delim(bool preserve, bool) {
  std::string p = preserve ? std::string(kUnusedPattern) + "|" : std::string();
  return p + R"(\s+|[\p{P}]|[\p{S}]|)" + kCjk;
}
std::string basic_keep(bool preserve, bool keep_whitespace) {
  std::string p = preserve ? std::string(kUnusedPattern) + "|" : std::string();
  return p + R"([\p{P}]|[\p{S}]|)" + kCjk + (keep_whitespace ? R"(|\s+)" : "");
}

class BasicTokenizer : public Tokenizer {
 public:
  BasicTokenizer(bool lower_case, bool keep_whitespace, const std::string& form, bool preserve,
                 bool with_offsets)
      : Tokenizer(with_offsets),
        lower_(lower_case),
        nfd_("NFD"),
        normalize_(lower_case ? "NONE" : form),
        marks_(R"(\p{Mn})", "", true),
        controls_(R"(\p{Cc}|\p{Cf})", " ", true),
        split_(basic_delim(preserve, keep_whitespace), basic_keep(preserve, keep_whitespace),
               with_offsets) {
    if (preserve) unused_ = compile("BasicTokenizer", "the unused-token pattern", kUnusedPattern);
  }
  std::string_view name() const override { return "BasicTokenizer"; }

 protected:
  void tokenize(const std::string& text, std::vector<Tok>* out) const override {
    std::vector<Piece> pieces;
    const std::string norm = normalized(text);
    split_.pieces(norm, &pieces);
    for (const Piece& p : pieces) {
      if (p.end <= p.begin) continue;
      out->push_back(
          {norm.substr(static_cast<size_t>(p.begin), static_cast<size_t>(p.end - p.begin)),
           static_cast<uint32_t>(p.begin), static_cast<uint32_t>(p.end)});
    }
  }

 private:
  std::string lower(const std::string& s) const { return marks_.map(nfd_.map(fold_.map(s))); }

  std::string normalized(const std::string& text) const {
    std::string s;
    if (!lower_) {
      s = normalize_.map(text);
    } else if (!unused_) {
      s = lower(text);
    } else {  // fold all but the preserved tokens
      const icu::UnicodeString u = icu::UnicodeString::fromUTF8(text);
      const std::vector<int32_t> off = utf8_offsets(u);
      UErrorCode err = U_ZERO_ERROR;
      std::unique_ptr<icu::RegexMatcher> m(unused_->matcher(u, err));
      int32_t last = 0;
      while (m->find(err) && U_SUCCESS(err)) {
        const int32_t b = m->start(err), e = m->end(err);
        s += lower(text.substr(
            static_cast<size_t>(off[static_cast<size_t>(last)]),
            static_cast<size_t>(off[static_cast<size_t>(b)] - off[static_cast<size_t>(last)])));
        s += text.substr(
            static_cast<size_t>(off[static_cast<size_t>(b)]),
            static_cast<size_t>(off[static_cast<size_t>(e)] - off[static_cast<size_t>(b)]));
        last = e;
      }
      s += lower(text.substr(static_cast<size_t>(off[static_cast<size_t>(last)])));
    }
    return controls_.map(s);
  }

  bool lower_;
  CaseFold fold_;
  NormalizeUTF8 nfd_, normalize_;
  RegexReplace marks_, controls_;
  RegexTokenizer split_;
  std::unique_ptr<icu::RegexPattern> unused_;
};

class BertTokenizer final : public BasicTokenizer {
 public:
  BertTokenizer(WordpieceCore core, bool lower_case, bool keep_whitespace, const std::string& form,
                bool preserve, bool with_offsets)
      : BasicTokenizer(lower_case, keep_whitespace, form, preserve, with_offsets),
        core_(std::move(core)) {}
  std::string_view name() const override { return "BertTokenizer"; }

 protected:
  void tokenize(const std::string& text, std::vector<Tok>* out) const override {
    std::vector<Tok> words;
    BasicTokenizer::tokenize(text, &words);
    for (const Tok& w : words) core_.split(w.text, w.begin, out);
  }

 private:
  WordpieceCore core_;
};

}  // namespace

TransformPtr make_unicode_char_tokenizer(bool with_offsets) {
  return std::make_shared<UnicodeCharTokenizer>(with_offsets);
}
TransformPtr make_whitespace_tokenizer(bool with_offsets) {
  return std::make_shared<WhitespaceTokenizer>(with_offsets);
}
TransformPtr make_unicode_script_tokenizer(bool keep_whitespace, bool with_offsets) {
  return std::make_shared<UnicodeScriptTokenizer>(keep_whitespace, with_offsets);
}
TransformPtr make_regex_tokenizer(const std::string& delim_pattern,
                                  const std::string& keep_delim_pattern, bool with_offsets) {
  return std::make_shared<RegexTokenizer>(delim_pattern, keep_delim_pattern, with_offsets);
}
TransformPtr make_case_fold() { return std::make_shared<CaseFold>(); }
TransformPtr make_normalize_utf8(const std::string& form) {
  return std::make_shared<NormalizeUTF8>(form);
}
TransformPtr make_regex_replace(const std::string& pattern, const std::string& replace,
                                bool replace_all) {
  return std::make_shared<RegexReplace>(pattern, replace, replace_all);
}
TransformPtr make_wordpiece_tokenizer(std::vector<std::string> vocab,
                                      const std::string& suffix_indicator,
                                      int64_t max_bytes_per_token, const std::string& unknown_token,
                                      bool with_offsets) {
  return std::make_shared<WordpieceTokenizer>(
      WordpieceCore(std::move(vocab), suffix_indicator, max_bytes_per_token, unknown_token),
      with_offsets);
}
TransformPtr make_basic_tokenizer(bool lower_case, bool keep_whitespace, const std::string& form,
                                  bool preserve_unused_token, bool with_offsets) {
  return std::make_shared<BasicTokenizer>(lower_case, keep_whitespace, form, preserve_unused_token,
                                          with_offsets);
}
TransformPtr make_bert_tokenizer(std::vector<std::string> vocab,
                                 const std::string& suffix_indicator, int64_t max_bytes_per_token,
                                 const std::string& unknown_token, bool lower_case,
                                 bool keep_whitespace, const std::string& form,
                                 bool preserve_unused_token, bool with_offsets) {
  return std::make_shared<BertTokenizer>(
      WordpieceCore(std::move(vocab), suffix_indicator, max_bytes_per_token, unknown_token),
      lower_case, keep_whitespace, form, preserve_unused_token, with_offsets);
}

}  // namespace mycel::data
