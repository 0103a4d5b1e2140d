// The scanner behind scan_json_array (json_scan.h) and JsonArrayStream (json_stream.h): a
// strict RFC 8259 reader of a JSON array of flat objects that hands out one element at a time.
// It can scan the whole document at once, or stop between elements and go on with the next
// piece of text (Scanner::step). Private to ingest/ufm/json_scan.cpp and json_stream.cpp.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/ufm/json_scan.h"

namespace ibw::ingest {
namespace ufm_json_scan_detail {

inline constexpr int kMaxDepth = 64;

inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

inline void put_utf8(std::string& out, uint32_t cp) {
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
  Scanner() = default;
  explicit Scanner(std::string_view s) : s_(s) {}

  // Where the scan stands in the array (it may stop between elements, see step()).
  enum class Stage : uint8_t { open, first, element, after, done };

  // The text to scan next (pos 0); base: where it starts in the whole document (for error
  // offsets).
  void input(std::string_view s, size_t base) {
    s_ = s;
    pos_ = 0;
    base_ = base;
  }
  size_t pos() const { return pos_; }
  const std::string& error() const { return error_; }

  // The whole document at once: "" or why it is not a JSON array.
  std::string run(const std::function<void(const std::vector<JsonMember>&, bool)>& on_element) {
    step(/*final=*/true, on_element);
    return error_;
  }

  // Scans as far as the input goes. final: the input ends the document. Not final: the input
  // must end just after a ',' or ']' of the array itself (json_stream.h finds those), and the
  // scan stops there to go on with the next input. False on an error (error() says which).
  bool step(bool final,
            const std::function<void(const std::vector<JsonMember>&, bool)>& on_element) {
    for (;;) {
      ws();
      if (!final && at_end() && stage_ != Stage::done) return true;
      switch (stage_) {
        case Stage::open:
          if (!expect('[', "expected '['")) return false;
          stage_ = Stage::first;
          break;
        case Stage::first:
          if (peek() == ']') {
            ++pos_;
            stage_ = Stage::done;
          } else {
            stage_ = Stage::element;
          }
          break;
        case Stage::element:
          if (peek() == '{') {
            if (!object()) return false;
            on_element(members_, true);
          } else {
            decoded_.clear();
            if (!skip_value(1)) return false;
            members_.clear();
            on_element(members_, false);
          }
          stage_ = Stage::after;
          break;
        case Stage::after:
          if (peek() == ',') {
            ++pos_;
            stage_ = Stage::element;
            break;
          }
          if (!expect(']', "expected ',' or ']'")) return false;
          stage_ = Stage::done;
          break;
        case Stage::done:
          return pos_ == s_.size() || fail("trailing characters after the array");
      }
    }
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
      error_ =
          "offset " + std::to_string(base_ + pos_) + ": " + (at_end() ? "unexpected end" : what);
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
  size_t base_ = 0;
  Stage stage_ = Stage::open;
  std::string error_;
  std::vector<JsonMember> members_;
  std::deque<std::string> decoded_;  // escaped strings of the current element
};

}  // namespace ufm_json_scan_detail
}  // namespace ibw::ingest
