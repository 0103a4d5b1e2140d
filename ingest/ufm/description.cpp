// Lenient parsing of UFM event descriptions and object fields; see ufm_description.h.
#include "ingest/ufm/description.h"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <vector>

#include "ingest/text.h"
#include "ingest/ufm/json.h"

namespace ibw::ingest {
namespace ufm_description_detail {

using ingest::trim;

bool all_digits(std::string_view s) {
  if (s.empty() || s.size() > 6) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

int to_port(std::string_view s) {
  int v = 0;
  if (!all_digits(s)) return 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

bool is_hex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

// A node type word: letters, spaces, '_' and '-' ("Switch", "Computer", "Aggregation Node").
bool is_type_word(std::string_view s) {
  if (s.empty() || s.size() > 32) return false;
  for (char c : s)
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != ' ' && c != '_' && c != '-')
      return false;
  return true;
}

// "(<type>:<name>:<label>)[0x]<guid>:<port>" starting at text[open] == '('. Returns the end
// and moves `next` past it; nullopt when this parenthesis is not a port end.
std::optional<UfmPortRef> port_end(std::string_view text, size_t open, size_t& next) {
  size_t close = text.find(')', open + 1);
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view inner = text.substr(open + 1, close - open - 1);
  size_t first = inner.find(':');
  size_t last = inner.rfind(':');
  if (first == std::string_view::npos) return std::nullopt;
  UfmPortRef ref;
  // After ")": an optional "0x", hex digits, ':' and the port number.
  size_t p = close + 1;
  if (p + 1 < text.size() && text[p] == '0' && (text[p + 1] == 'x' || text[p + 1] == 'X')) p += 2;
  size_t hex_begin = p;
  while (p < text.size() && is_hex(text[p]) && p - hex_begin < 16) ++p;
  bool has_guid = p > hex_begin && p < text.size() && text[p] == ':';
  if (has_guid) {
    ref.guid = ufm_json_detail::parse_guid(text.substr(hex_begin, p - hex_begin));
    size_t num_begin = ++p;
    while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p]))) ++p;
    ref.port = to_port(text.substr(num_begin, p - num_begin));
  }
  std::string_view type = trim(inner.substr(0, first));
  if (!is_type_word(type)) return std::nullopt;
  if (!has_guid && first == last) return std::nullopt;  // "(threshold: 10)" is no port
  ref.node_type = std::string(type);
  if (first == last) {
    ref.node = std::string(trim(inner.substr(first + 1)));
  } else {
    ref.node = std::string(trim(inner.substr(first + 1, last - first - 1)));
    ref.label = std::string(trim(inner.substr(last + 1)));
    if (ref.port == 0) ref.port = to_port(ref.label);
  }
  next = has_guid ? p : close + 1;
  return ref;
}

// "Peer Port <name>:<label> is considered ..." -> the peer end.
std::optional<UfmPortRef> peer_port(std::string_view text) {
  static constexpr std::string_view kMarker = "Peer Port ";
  size_t at = text.find(kMarker);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(at + kMarker.size());
  size_t end = rest.find(" is considered");
  if (end == std::string_view::npos) end = rest.find(' ');
  std::string_view token = trim(rest.substr(0, end));
  if (token.empty()) return std::nullopt;
  UfmPortRef ref;
  size_t colon = token.rfind(':');
  if (colon == std::string_view::npos) {
    ref.node = std::string(token);
  } else {
    ref.node = std::string(trim(token.substr(0, colon)));
    ref.label = std::string(trim(token.substr(colon + 1)));
    ref.port = to_port(ref.label);
  }
  return ref;
}

// The word after `marker` ("cable S/N: X," -> "X"; "due to FLAPPING." -> "FLAPPING").
std::string word_after(std::string_view text, std::string_view marker) {
  size_t at = text.find(marker);
  if (at == std::string_view::npos) return {};
  std::string_view rest = trim(text.substr(at + marker.size()));
  size_t end = 0;
  while (end < rest.size() && !std::isspace(static_cast<unsigned char>(rest[end])) &&
         rest[end] != ',' && rest[end] != ';')
    ++end;
  std::string_view w = rest.substr(0, end);
  while (!w.empty() && (w.back() == '.' || w.back() == ')')) w.remove_suffix(1);
  return std::string(w);
}

// Fills what `from` knows and `into` does not.
void merge(UfmPortRef& into, const UfmPortRef& from) {
  if (into.node_type.empty()) into.node_type = from.node_type;
  if (into.node.empty()) into.node = from.node;
  if (into.label.empty()) into.label = from.label;
  if (into.guid == 0) into.guid = from.guid;
  if (into.port == 0) into.port = from.port;
}

bool same_port(const UfmPortRef& a, const UfmPortRef& b) {
  if (a.guid && b.guid) return a.guid == b.guid && (a.port == b.port || !a.port || !b.port);
  return a.node == b.node && a.label == b.label;
}

}  // namespace ufm_description_detail

UfmDescription parse_ufm_description(std::string_view text) {
  namespace d = ufm_description_detail;
  UfmDescription out;
  for (size_t at = text.find('('); at != std::string_view::npos; at = text.find('(', at)) {
    size_t next = at + 1;
    if (auto ref = d::port_end(text, at, next)) {
      if (!out.first) {
        out.first = std::move(ref);
      } else if (!out.second) {
        out.second = std::move(ref);
        break;
      }
    }
    at = next;
  }
  if (!out.first) out.first = d::peer_port(text);
  out.cable_sn = d::word_after(text, "S/N:");
  out.reason = d::word_after(text, "due to ");
  return out;
}

std::optional<UfmPortRef> parse_ufm_port_name(std::string_view name) {
  name = ufm_description_detail::trim(name);
  size_t us = name.rfind('_');
  std::string_view guid_part = us == std::string_view::npos ? name : name.substr(0, us);
  bool prefixed =
      guid_part.size() > 2 && guid_part[0] == '0' && (guid_part[1] == 'x' || guid_part[1] == 'X');
  // A bare word such as "default" or "face" is no GUID: without 0x, want 12+ hex digits.
  if (!prefixed && guid_part.size() < 12) return std::nullopt;
  uint64_t guid = ufm_json_detail::parse_guid(guid_part);
  if (guid == 0) return std::nullopt;
  UfmPortRef ref;
  ref.guid = guid;
  if (us != std::string_view::npos) {
    ref.port = ufm_description_detail::to_port(name.substr(us + 1));
    if (ref.port == 0) return std::nullopt;
  }
  return ref;
}

std::optional<UfmPortRef> parse_ufm_object_path(std::string_view path) {
  namespace d = ufm_description_detail;
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    size_t sep = path.find(" / ", start);
    parts.push_back(d::trim(path.substr(start, sep - start)));
    if (sep == std::string_view::npos) break;
    start = sep + 3;
  }
  if (parts.size() < 2 || parts[1].empty()) return std::nullopt;
  UfmPortRef ref;
  size_t colon = parts[1].find(": ");
  if (colon == std::string_view::npos) {
    ref.node = std::string(parts[1]);
  } else {
    ref.node_type = std::string(d::trim(parts[1].substr(0, colon)));
    ref.node = std::string(d::trim(parts[1].substr(colon + 2)));
  }
  for (size_t i = 2; i < parts.size(); ++i) {
    if (!ref.label.empty()) ref.label += " / ";
    ref.label += parts[i];
  }
  ref.port = d::to_port(ref.label);
  return ref;
}

std::string ufm_port_name(uint64_t guid, int port) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx_%d", static_cast<unsigned long long>(guid), port);
  return buf;
}

UfmEventEnds ufm_event_ends(int type, std::string_view description, std::string_view object_name,
                            std::string_view object_path) {
  namespace d = ufm_description_detail;
  UfmEventEnds out;
  out.description = parse_ufm_description(description);
  UfmPortRef object;
  if (auto p = parse_ufm_port_name(object_name)) object = *p;
  if (auto p = parse_ufm_object_path(object_path)) d::merge(object, *p);
  const auto& first = out.description.first;
  const auto& second = out.description.second;
  if (type == 328 || type == 329) {
    if (first) {
      out.port = *first;
      if (second) out.peer = *second;
      if (!object.empty() && d::same_port(out.port, object)) d::merge(out.port, object);
    } else {
      out.port = object;
    }
  } else if (type == 702) {
    out.port = object;
    if (first) out.peer = *first;
  } else if (object.empty()) {
    if (first) out.port = *first;
    if (second) out.peer = *second;
  } else {
    out.port = object;
    if (first && !d::same_port(*first, object)) {
      out.peer = *first;
    } else if (second) {
      out.peer = *second;
    }
  }
  return out;
}

}  // namespace ibw::ingest
