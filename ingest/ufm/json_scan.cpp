// Strict streaming reader of a JSON array of flat objects; see ufm_json_scan.h.
#include "ingest/ufm/json_scan.h"

#include <charconv>
#include <deque>

#include "ingest/ufm/json.h"

namespace ibw::ingest {
namespace ufm_json_scan_detail {

constexpr int kMaxDepth = 64;

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void put_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  std::string run(const std::function<void(const std::vector<JsonMember>&, bool)>& on_element) {
    ws();
    if (!expect('[', "expected '['")) return error_;
    ws();
    if (peek() == ']') {
      ++pos_;
    } else {
      for (;;) {
        ws();
        if (peek() == '{') {
          if (!object()) return error_;
          on_element(members_, true);
        } else {
          decoded_.clear();
          if (!skip_value(1)) return error_;
          members_.clear();
          on_element(members_, false);
        }
        ws();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        if (!expect(']', "expected ',' or ']'")) return error_;
        break;
      }
    }
    ws();
    if (pos_ != s_.size()) fail("trailing characters after the array");
    return error_;
  }

 private:
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool at_end() const { return pos_ >= s_.size(); }
  void ws() {
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
      ++pos_;
    }
  }
  bool fail(const char* what) {
    if (error_.empty())
      error_ = "offset " + std::to_string(pos_) + ": " + (at_end() ? "unexpected end" : what);
    return false;
  }
  bool expect(char c, const char* what) {
    if (peek() != c || at_end()) return fail(what);
    ++pos_;
    return true;
  }

  // The members of one object element (pos_ at '{').
  bool object() {
    members_.clear();
    decoded_.clear();
    ++pos_;
    ws();
    if (peek() == '}') {
      ++pos_;
      return true;
    }
    for (;;) {
      ws();
      JsonMember m;
      if (peek() != '"') return fail("expected a member name");
      if (!string(m.key)) return false;
      ws();
      if (!expect(':', "expected ':'")) return false;
      ws();
      if (!value(m)) return false;
      members_.push_back(m);
      ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      return expect('}', "expected ',' or '}'");
    }
  }

  bool value(JsonMember& m) {
    char c = peek();
    size_t start = pos_;
    if (c == '"') {
      m.type = JsonMember::Type::string;
      return string(m.text);
    }
    if (c == '{' || c == '[') {
      if (!skip_value(2)) return false;
      m.type = JsonMember::Type::nested;
      m.text = s_.substr(start, pos_ - start);
      return true;
    }
    if (c == 't' || c == 'f') {
      m.type = JsonMember::Type::boolean;
      if (!literal(c == 't' ? "true" : "false")) return false;
    } else if (c == 'n') {
      m.type = JsonMember::Type::null;
      if (!literal("null")) return false;
    } else {
      m.type = JsonMember::Type::number;
      if (!number()) return false;
    }
    m.text = s_.substr(start, pos_ - start);
    return true;
  }

  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return fail("invalid literal");
    pos_ += word.size();
    return true;
  }

  bool digits() {
    size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    return pos_ > start || fail("expected a digit");
  }

  bool number() {
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      digits();
    } else {
      return fail("invalid value");
    }
    if (peek() == '.') {
      ++pos_;
      if (!digits()) return false;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!digits()) return false;
    }
    return true;
  }

  // pos_ at the opening quote; out views the input or a decoded copy.
  bool string(std::string_view& out) {
    size_t start = ++pos_;
    for (; pos_ < s_.size(); ++pos_) {
      char c = s_[pos_];
      if (c == '"') {
        out = s_.substr(start, pos_ - start);
        ++pos_;
        return true;
      }
      if (c == '\\') break;
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character in a string");
    }
    if (at_end()) return fail("unterminated string");
    std::string& d = decoded_.emplace_back(s_.substr(start, pos_ - start));
    while (pos_ < s_.size()) {
      char c = s_[pos_++];
      if (c == '"') {
        out = d;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        --pos_;
        return fail("control character in a string");
      }
      if (c != '\\') {
        d += c;
        continue;
      }
      if (at_end()) break;
      char e = s_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          d += e;
          break;
        case 'b':
          d += '\b';
          break;
        case 'f':
          d += '\f';
          break;
        case 'n':
          d += '\n';
          break;
        case 'r':
          d += '\r';
          break;
        case 't':
          d += '\t';
          break;
        case 'u': {
          uint32_t cp = 0;
          if (!hex4(cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF && s_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            uint32_t low = 0;
            if (!hex4(low)) return false;
            cp = low >= 0xDC00 && low <= 0xDFFF ? 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
                                                : 0xFFFD;
          } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            cp = 0xFFFD;  // a lone surrogate
          }
          put_utf8(d, cp);
          break;
        }
        default:
          --pos_;
          return fail("invalid escape");
      }
    }
    return fail("unterminated string");
  }

  bool hex4(uint32_t& cp) {
    if (pos_ + 4 > s_.size()) return fail("truncated \\u escape");
    for (int i = 0; i < 4; ++i) {
      int v = hex_value(s_[pos_ + i]);
      if (v < 0) return fail("invalid \\u escape");
      cp = cp * 16 + static_cast<uint32_t>(v);
    }
    pos_ += 4;
    return true;
  }

  // Any value, validated and not kept.
  bool skip_value(int depth) {
    if (depth > kMaxDepth) return fail("nesting too deep");
    ws();
    char c = peek();
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      ++pos_;
      ws();
      if (peek() == close) {
        ++pos_;
        return true;
      }
      for (;;) {
        ws();
        if (close == '}') {
          std::string_view key;
          if (peek() != '"') return fail("expected a member name");
          if (!string(key)) return false;
          ws();
          if (!expect(':', "expected ':'")) return false;
        }
        if (!skip_value(depth + 1)) return false;
        ws();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        return expect(close, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
      }
    }
    JsonMember scratch;
    return value(scratch);
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::string error_;
  std::vector<JsonMember> members_;
  std::deque<std::string> decoded_;  // escaped strings of the current element
};

}  // namespace ufm_json_scan_detail

std::string scan_json_array(
    std::string_view text,
    const std::function<void(const std::vector<JsonMember>& members, bool is_object)>& on_element) {
  return ufm_json_scan_detail::Scanner(text).run(on_element);
}

}  // namespace ibw::ingest

namespace ibw::ingest::ufm_json_detail {

Json element_json(const std::vector<JsonMember>& members, bool is_object, bool* bad) {
  if (!is_object) return Json();  // the readers only take objects
  Json o = Json::object();
  for (const JsonMember& m : members) {
    Json& v = o[std::string(m.key)];
    switch (m.type) {
      case JsonMember::Type::null:
        break;
      case JsonMember::Type::boolean:
        v = m.text == "true";
        break;
      case JsonMember::Type::string:
        v = std::string(m.text);
        break;
      case JsonMember::Type::number: {
        int64_t i = 0;
        auto [end, ec] = std::from_chars(m.text.data(), m.text.data() + m.text.size(), i);
        if (ec == std::errc() && end == m.text.data() + m.text.size())
          v = i;
        else
          v = Json::parse(m.text, nullptr, /*allow_exceptions=*/false);
        break;
      }
      case JsonMember::Type::nested:
        v = Json::parse(m.text, nullptr, /*allow_exceptions=*/false);
        break;
    }
    if (v.is_discarded()) *bad = true;
  }
  return o;
}

}  // namespace ibw::ingest::ufm_json_detail
