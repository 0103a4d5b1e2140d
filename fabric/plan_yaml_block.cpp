// The fast front end of the YAML plan reader (see plan_yaml_builder.h): plain block-style YAML,
// line by line, without a general YAML scanner. What it reads:
//  - an optional `---` first line, then a map at column 0 whose values are one-line scalars or
//    block sequences (also at column 0: `cables:` then `- ...`), or a sequence at column 0;
//  - sequence entries `- key: value` whose following keys line up under the first;
//  - one-line scalars: plain, "double-quoted" without escapes, 'single-quoted' ('' is ');
//  - empty values (nulls), `~`/`null` (nulls), comments, blank lines, CRLF line ends.
// Anything else (flow style, anchors and aliases, tags, block and multi-line scalars, escapes,
// nested maps, non-ASCII or control characters, tabs) makes it give up, and yaml-cpp reads the
// whole text instead, so both readers accept the same plans with the same diagnostics; a
// differential fuzzer (fuzz/fuzz_plan.cpp) and tests/unit/fabric/test_plan_yaml.cpp hold them
// equal.
#include <cstddef>
#include <string>
#include <string_view>

#include "fabric/plan_yaml_builder.h"

namespace ibw::fabric::plan_yaml {
namespace {

constexpr size_t kMaxKey = 1024;  // YAML's limit on a simple (implicit) key

// A character that cannot start a plain scalar (YAML indicators), or that we leave to yaml-cpp
// there: '-', '?' and ':' start a plain scalar only when a non-space follows.
bool plain_start(char c) {
  static constexpr std::string_view kIndicators = "-?:,[]{}#&*!|>'\"%@`";
  return kIndicators.find(c) == std::string_view::npos;
}

bool is_null_word(std::string_view s) {
  return s == "~" || s == "null" || s == "Null" || s == "NULL";
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

class BlockScanner {
 public:
  BlockScanner(std::string_view text, Builder& out) : text_(text), out_(out) {}

  bool run() {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // a UTF-8 byte order mark
    if (!advance() || at_end_) return false;             // no document: yaml-cpp tells what it is
    if (indent_ == 0 && trim_right(body_) == "---" && (!advance() || at_end_)) return false;
    if (indent_ != 0) return false;
    if (is_entry()) return seq(0, false) && at_end_;
    out_.event(Ev::map, line_, {});
    while (!at_end_) {
      if (indent_ != 0 || !pair(0, true)) return false;
    }
    out_.event(Ev::end, 0, {});
    return true;
  }

 private:
  // A scalar as read: its text (a view into the input or into scratch_) and whether it was
  // plain (only plain scalars can be nulls).
  struct Scalar {
    std::string_view text;
    bool plain = false;
  };

  // Moves to the next line with content (not blank, not only a comment); at_end_ after the
  // last. False on a character outside the subset, or a document marker.
  bool advance() {
    while (pos_ < text_.size()) {
      size_t nl = text_.find('\n', pos_);
      size_t end = nl == std::string_view::npos ? text_.size() : nl;
      std::string_view l = text_.substr(pos_, end - pos_);
      pos_ = end + 1;
      ++line_;
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      for (char c : l)
        if (static_cast<unsigned char>(c) - 0x20u > 0x7eu - 0x20u) return false;
      size_t i = l.find_first_not_of(' ');
      if (i == std::string_view::npos || l[i] == '#') continue;
      indent_ = static_cast<int>(i);
      body_ = l.substr(i);
      if (i == 0 && !first_ && (body_.substr(0, 3) == "---" || body_.substr(0, 3) == "..."))
        return false;  // a second document or the end of this one: left to yaml-cpp
      first_ = false;
      return true;
    }
    at_end_ = true;
    return true;
  }

  // The current line is a sequence entry: '-' then a space or nothing.
  bool is_entry() const { return body_[0] == '-' && (body_.size() == 1 || body_[1] == ' '); }

  // A block sequence whose entries start at column s (s == the parent key's column when
  // `indentless`, which ends it at a line there that is not an entry).
  bool seq(int s, bool indentless) {
    out_.event(Ev::seq, line_, {});
    while (!at_end_ && indent_ == s && is_entry())
      if (!entry(s)) return false;
    if (!at_end_ && indent_ >= s && !(indentless && indent_ == s)) return false;
    out_.event(Ev::end, 0, {});
    return true;
  }

  // One sequence entry, a map whose first key follows "- " on this line.
  bool entry(int s) {
    size_t k = 1;
    while (k < body_.size() && body_[k] == ' ') ++k;
    if (k == body_.size() || body_[k] == '#') return false;  // content on later lines
    int m = s + static_cast<int>(k);
    body_ = body_.substr(k);
    indent_ = m;
    out_.event(Ev::map, line_, {});
    do {
      if (!pair(m, false)) return false;
    } while (!at_end_ && indent_ == m);
    out_.event(Ev::end, 0, {});
    return at_end_ || indent_ <= s;
  }

  // One "key: value" of a map at column m, and the value's following lines when it is a
  // sequence (top-level maps only). Leaves the current line after it.
  bool pair(int m, bool top) {
    Scalar key;
    std::string_view rest;
    if (!split_key(body_, key, rest)) return false;
    emit(key, line_);
    int line = line_;
    size_t v = rest.find_first_not_of(' ');
    if (v != std::string_view::npos && rest[v] != '#') {  // a value on this line
      Scalar value;
      if (!scalar(rest.substr(v), value)) return false;
      emit(value, line);
      return advance() && (at_end_ || indent_ <= m);  // no continuation or nested lines
    }
    if (!advance()) return false;
    if (!at_end_ && indent_ >= m && body_[0] == '-') {  // a sequence, or left to yaml-cpp
      if (!top || !is_entry()) return false;
      return seq(indent_, indent_ == m);
    }
    if (!at_end_ && indent_ > m) return false;  // a nested map or a multi-line scalar
    out_.event(Ev::null, line, {});
    return true;
  }

  // b = `key: rest`: the key and what follows its ':'.
  bool split_key(std::string_view b, Scalar& key, std::string_view& rest) {
    size_t colon = 0;
    if (b[0] == '"' || b[0] == '\'') {
      size_t close = 0;
      if (!quoted(b, key, close) || close + 1 >= b.size() || b[close + 1] != ':') return false;
      colon = close + 1;
    } else {
      if (!plain_start(b[0])) return false;
      for (colon = 1; colon < b.size(); ++colon) {
        if (b[colon] == ':' && (colon + 1 == b.size() || b[colon + 1] == ' ')) break;
        if (b[colon] == '#' && b[colon - 1] == ' ') return false;
      }
      if (colon == b.size()) return false;  // a scalar, not a key
      key = {trim_right(b.substr(0, colon)), true};
    }
    if (colon > kMaxKey) return false;
    rest = b.substr(colon + 1);
    return rest.empty() || rest[0] == ' ';
  }

  // r (not empty, not a comment) = one scalar, then maybe spaces and a comment.
  bool scalar(std::string_view r, Scalar& out) {
    if (r[0] == '"' || r[0] == '\'') {
      size_t close = 0;
      if (!quoted(r, out, close)) return false;
      std::string_view tail = r.substr(close + 1);
      size_t c = tail.find_first_not_of(' ');
      return c == std::string_view::npos || (c > 0 && tail[c] == '#');
    }
    if (!plain_start(r[0])) return false;
    size_t end = r.size();
    for (size_t i = 1; i < r.size(); ++i) {
      if (r[i] == '#' && r[i - 1] == ' ') {
        end = i;
        break;
      }
      if (r[i] == ':' && (i + 1 == r.size() || r[i + 1] == ' ')) return false;  // a map
    }
    out = {trim_right(r.substr(0, end)), true};
    return true;
  }

  // r starts with a quote: its one-line content, and where it closes. Escapes (\ in double
  // quotes) are left to yaml-cpp; '' in single quotes is one '.
  bool quoted(std::string_view r, Scalar& out, size_t& close) {
    char q = r[0];
    if (q == '"') {
      close = r.find_first_of("\"\\", 1);
      if (close == std::string_view::npos || r[close] != '"') return false;
      out = {r.substr(1, close - 1), false};
      return true;
    }
    close = r.find('\'', 1);
    if (close == std::string_view::npos) return false;
    if (close + 1 == r.size() || r[close + 1] != '\'') {  // no '' inside
      out = {r.substr(1, close - 1), false};
      return true;
    }
    scratch_.clear();
    for (size_t i = 1; i < r.size(); ++i) {
      if (r[i] != '\'') {
        scratch_ += r[i];
      } else if (i + 1 < r.size() && r[i + 1] == '\'') {
        scratch_ += '\'';
        ++i;
      } else {
        close = i;
        out = {scratch_, false};
        return true;
      }
    }
    return false;
  }

  void emit(const Scalar& s, int line) {
    if (s.plain && (s.text.empty() || is_null_word(s.text)))
      out_.event(Ev::null, line, {});
    else
      out_.event(Ev::scalar, line, s.text);
  }

  std::string_view text_;
  Builder& out_;
  size_t pos_ = 0;  // where the next line starts
  int line_ = 0;    // 1-based number of the current line
  bool at_end_ = false;
  bool first_ = true;      // before the first line with content
  int indent_ = 0;         // the current line's indentation (spaces)
  std::string_view body_;  // the current line after its indentation, without its line break
  std::string scratch_;    // a single-quoted scalar with ''
};

}  // namespace

bool scan_plan_yaml_block(std::string_view text, Builder& out) {
  return BlockScanner(text, out).run();
}

}  // namespace ibw::fabric::plan_yaml
