#include "data/json.h"

#include <cctype>
#include <stdexcept>

#include "base/error.h"

namespace mycel::data {

void json_string(std::string* out, std::string_view s) {
  out->push_back('"');
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u < 0x20) {
      static const char* hex = "0123456789abcdef";
      *out += "\\u00";
      out->push_back(hex[u >> 4]);
      out->push_back(hex[u & 15]);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

namespace {

// Throws std::runtime_error; the reader turns it into a "corrupt" message naming the file.
class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : t_(text) {}
  Json parse_document() {
    Json v = value(0);
    skip_ws();
    if (p_ != t_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const char* what) {
    throw std::runtime_error(str("bad JSON header: ", what, " at byte ", p_));
  }
  void skip_ws() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\n' || t_[p_] == '\t' || t_[p_] == '\r'))
      ++p_;
  }
  bool eat(char c) {
    skip_ws();
    if (p_ < t_.size() && t_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool word(std::string_view w) {
    if (t_.substr(p_, w.size()) != w) return false;
    p_ += w.size();
    return true;
  }
  Json value(int depth) {
    if (depth > 16) fail("nested too deeply");
    skip_ws();
    if (p_ >= t_.size()) fail("unexpected end");
    Json v;
    char c = t_[p_];
    if (c == '{') {
      ++p_;
      v.kind = Json::Kind::Obj;
      if (eat('}')) return v;
      do {
        skip_ws();
        std::string key = string();
        if (!eat(':')) fail("expected ':'");
        v.obj.emplace_back(std::move(key), value(depth + 1));
      } while (eat(','));
      if (!eat('}')) fail("expected '}'");
    } else if (c == '[') {
      ++p_;
      v.kind = Json::Kind::Arr;
      if (eat(']')) return v;
      do v.arr.push_back(value(depth + 1));
      while (eat(','));
      if (!eat(']')) fail("expected ']'");
    } else if (c == '"') {
      v.kind = Json::Kind::Str;
      v.s = string();
    } else if (word("null")) {
      v.kind = Json::Kind::Null;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = Json::Kind::Int;
      bool neg = c == '-';
      if (neg) ++p_;
      size_t start = p_;
      uint64_t x = 0;
      while (p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9') {
        if (x > (uint64_t{1} << 62)) fail("number out of range");
        x = x * 10 + static_cast<uint64_t>(t_[p_++] - '0');
      }
      if (p_ == start) fail("bad number");
      v.i = neg ? -static_cast<int64_t>(x) : static_cast<int64_t>(x);
    } else {
      fail("unexpected character");
    }
    return v;
  }
  std::string string() {
    if (p_ >= t_.size() || t_[p_] != '"') fail("expected a string");
    ++p_;
    std::string out;
    while (true) {
      if (p_ >= t_.size()) fail("unterminated string");
      char c = t_[p_++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (p_ >= t_.size()) fail("unterminated escape");
      // The writer escapes '"', '\\' and control characters (\u00XX) only.
      char e = t_[p_++];
      if (e == '"' || e == '\\') {
        out.push_back(e);
        continue;
      }
      if (e != 'u' || p_ + 4 > t_.size() || t_.substr(p_, 2) != "00") fail("bad escape");
      unsigned v = 0;
      for (int k = 2; k < 4; ++k) {
        char h = t_[p_ + k];
        if (!std::isxdigit(static_cast<unsigned char>(h))) fail("bad escape");
        v = v * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(h))
                                               ? h - '0'
                                               : std::tolower(h) - 'a' + 10);
      }
      out.push_back(static_cast<char>(v));
      p_ += 4;
    }
  }

  std::string_view t_;
  size_t p_ = 0;
};

}  // namespace

Json parse_json(std::string_view text) { return JsonParser(text).parse_document(); }

}  // namespace mycel::data
