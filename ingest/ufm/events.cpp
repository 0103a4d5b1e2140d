// UFM event parsing and mapping; see ufm_events.h.
#include "ingest/ufm/events.h"
#include "ingest/text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>
#include <utility>

#include "ingest/ufm/json_scan.h"

namespace ibw::ingest {
namespace ufm_events_detail {

namespace j = ufm_json_detail;

bool read_int(std::string_view s, size_t pos, size_t len, int& out) {
  if (pos + len > s.size()) return false;
  for (size_t i = pos; i < pos + len; ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  std::from_chars(s.data() + pos, s.data() + pos + len, out);
  return true;
}

// Days since 1970-01-01 of a civil date (H. Hinnant's algorithm).
int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Where the event-type number is: event_type (6.17+), else a numeric "type" (<= 6.16).
void classify_type(UfmEvent& e, bool has_event_type, const std::string& type) {
  if (has_event_type) {
    e.schema = UfmSchema::current;
    e.object_type = type;
  } else if (auto n = j::to_int(type)) {
    e.schema = UfmSchema::legacy;
    e.type = static_cast<int>(*n);
  } else {
    e.schema = UfmSchema::current;  // no number anywhere: keep the object type
    e.type = 0;
    e.object_type = type;
  }
}

// The text fields of an event by their JSON key: both readers below fill them from this list.
constexpr std::pair<std::string_view, std::string UfmEvent::*> kTextFields[] = {
    {"name", &UfmEvent::name},
    {"severity", &UfmEvent::severity},
    {"timestamp", &UfmEvent::timestamp},
    {"category", &UfmEvent::category},
    {"object_name", &UfmEvent::object_name},
    {"object_path", &UfmEvent::object_path},
    {"counter", &UfmEvent::counter},
    {"description", &UfmEvent::description}};

UfmEvent from_json(const j::Json& rec, const UfmTimeContext& tc) {
  UfmEvent e;
  e.id = j::integer_or(rec, "id", 0);
  bool has_event_type = j::field(rec, "event_type") != nullptr;
  if (has_event_type) e.type = static_cast<int>(j::integer_or(rec, "event_type", 0));
  classify_type(e, has_event_type, j::str(rec, "type"));
  for (const auto& [key, field] : kTextFields) e.*field = j::str(rec, key);
  e.time_us = parse_ufm_timestamp(e.timestamp, tc.utc_offset_s).value_or(0);
  return e;
}

// A member's value as text: strings decoded, numbers and booleans as written, null "".
std::string member_text(const JsonMember& m) {
  if (m.type == JsonMember::Type::null || m.type == JsonMember::Type::nested) return {};
  return std::string(m.text);
}

// The event of one list element; nullopt without an integer id.
std::optional<UfmEvent> from_members(const std::vector<JsonMember>& members,
                                     const UfmTimeContext& tc) {
  UfmEvent e;
  std::optional<int64_t> id;
  std::string type;
  bool has_event_type = false;
  for (const JsonMember& m : members) {
    const std::string_view k = m.key;
    if (k == "id") {
      id = m.type == JsonMember::Type::number || m.type == JsonMember::Type::string
               ? j::to_int(m.text)
               : std::nullopt;
    } else if (k == "event_type") {
      has_event_type = m.type != JsonMember::Type::null;
      e.type = static_cast<int>(j::to_int(m.text).value_or(0));
    } else if (k == "type") {
      type = member_text(m);
    } else {
      for (const auto& [key, field] : kTextFields)
        if (k == key) e.*field = member_text(m);
    }
  }
  if (!id) return std::nullopt;
  e.id = *id;
  classify_type(e, has_event_type, type);
  e.time_us = parse_ufm_timestamp(e.timestamp, tc.utc_offset_s).value_or(0);
  return e;
}

// Text between the next '[' and its ']' from `pos`; moves pos past it.
std::optional<std::string_view> bracket(std::string_view s, size_t& pos) {
  while (pos < s.size() && s[pos] == ' ') ++pos;
  if (pos >= s.size() || s[pos] != '[') return std::nullopt;
  size_t close = s.find(']', pos);
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view inner = s.substr(pos + 1, close - pos - 1);
  pos = close + 1;
  return inner;
}

std::string_view word(std::string_view s, size_t& pos) {
  while (pos < s.size() && s[pos] == ' ') ++pos;
  size_t start = pos;
  while (pos < s.size() && s[pos] != ' ') ++pos;
  return s.substr(start, pos - start);
}

}  // namespace ufm_events_detail

std::optional<int64_t> parse_ufm_timestamp(std::string_view s, int utc_offset_s) {
  namespace d = ufm_events_detail;
  int y = 0, mo = 0, da = 0, h = 0, mi = 0, se = 0;
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') ||
      s[13] != ':' || s[16] != ':')
    return std::nullopt;
  if (!d::read_int(s, 0, 4, y) || !d::read_int(s, 5, 2, mo) || !d::read_int(s, 8, 2, da) ||
      !d::read_int(s, 11, 2, h) || !d::read_int(s, 14, 2, mi) || !d::read_int(s, 17, 2, se))
    return std::nullopt;
  if (mo < 1 || mo > 12 || da < 1 || da > 31 || h > 23 || mi > 59 || se > 60) return std::nullopt;
  int64_t frac_us = 0;
  if (s.size() > 19) {
    if (s[19] != '.' && s[19] != ',') return std::nullopt;
    int64_t scale = 100000;
    for (size_t i = 20; i < s.size(); ++i) {
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
      frac_us += (s[i] - '0') * scale;
      scale /= 10;
    }
  }
  int64_t secs = d::days_from_civil(y, mo, da) * 86400 + int64_t{h} * 3600 + int64_t{mi} * 60 + se;
  return (secs - utc_offset_s) * 1'000'000 + frac_us;
}

UfmParsed<UfmEvent> parse_ufm_events(std::string_view json, const UfmTimeContext& tc) {
  // The list can be tens of megabytes: read it with the streaming scanner, not a DOM.
  UfmParsed<UfmEvent> out;
  size_t index = 0;
  std::string problem =
      scan_json_array(json, [&](const std::vector<JsonMember>& members, bool is_object) {
        size_t at = index++;
        std::optional<UfmEvent> e;
        if (is_object) e = ufm_events_detail::from_members(members, tc);
        if (!e) {
          ++out.skipped;
          ufm_json_detail::warn(out.warnings, "events[" + std::to_string(at) + "]: no integer id");
          return;
        }
        out.items.push_back(std::move(*e));
      });
  if (!problem.empty()) {
    out.error = "events: response is not a valid JSON array (" + problem + ")";
    out.items.clear();
    return out;
  }
  out.ok = true;
  return out;
}

std::optional<UfmEvent> parse_ufm_event(std::string_view json, const UfmTimeContext& tc) {
  namespace j = ufm_json_detail;
  j::Json doc = j::Json::parse(json.begin(), json.end(), nullptr, false);
  if (doc.is_array() && doc.size() == 1) doc = doc[0];
  if (!doc.is_object() || !j::integer(doc, "id")) return std::nullopt;
  return ufm_events_detail::from_json(doc, tc);
}

std::optional<UfmEvent> parse_ufm_event_log_line(std::string_view line, const UfmTimeContext& tc) {
  namespace d = ufm_events_detail;
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.size() < 24) return std::nullopt;
  size_t ts_end = line.find(" [");
  if (ts_end == std::string_view::npos) return std::nullopt;
  UfmEvent e;
  e.schema = UfmSchema::log;
  e.timestamp = std::string(line.substr(0, ts_end));
  auto t = parse_ufm_timestamp(e.timestamp, tc.utc_offset_s);
  if (!t) return std::nullopt;
  e.time_us = *t;
  size_t pos = ts_end;
  auto seq = d::bracket(line, pos);
  auto type = d::bracket(line, pos);
  if (!seq || !type) return std::nullopt;
  auto id = ufm_json_detail::to_int(*seq);
  auto num = ufm_json_detail::to_int(*type);
  if (!id || !num) return std::nullopt;
  e.id = *id;
  e.type = static_cast<int>(*num);
  e.severity = std::string(d::word(line, pos));
  if (auto cat = d::bracket(line, pos)) e.category = std::string(*cat);
  e.object_type = std::string(d::word(line, pos));
  // The object path may itself hold "]"-free text only; the dev_id bracket is optional.
  if (auto path = d::bracket(line, pos)) e.object_path = std::string(*path);
  size_t save = pos;
  if (auto dev = d::bracket(line, pos); dev && dev->rfind("dev_id:", 0) == 0) {
    std::string_view g = dev->substr(7);
    while (!g.empty() && g.front() == ' ') g.remove_prefix(1);
    e.object_name = std::string(g);
  } else {
    pos = save;
  }
  if (pos >= line.size() || line[pos] != ':') return std::nullopt;
  ++pos;
  while (pos < line.size() && line[pos] == ' ') ++pos;
  e.description = std::string(line.substr(pos));
  return e;
}

std::string ufm_dedup_key(const UfmEvent& e) {
  std::string key = "ufm:" + std::to_string(e.id) + ":";
  size_t digits = 0;
  for (char c : e.timestamp) {
    if (digits == 14) break;  // whole seconds (see ufm_dedup_key in the header)
    if (std::isdigit(static_cast<unsigned char>(c))) {
      key += c;
      ++digits;
    }
  }
  return key;
}

std::string_view ufm_event_kind(int type, std::string_view description) {
  if (type == 329) return kind::link_down;
  if (type == 328) return kind::link_up;
  if (type == 702) {
    // MANUAL: an operator (or ibwarden itself, via isolation) marked the port; not a fault.
    if (description.find("MANUAL") != std::string_view::npos) return ufm_kind::ufm_event;
    return ufm_kind::port_unhealthy;
  }
  if (type >= 110 && type <= 121) return ufm_kind::counter_threshold;
  if (type == 917 || type == 918) return ufm_kind::high_ber;
  if (type == 130) return ufm_kind::width_degraded;
  if (type >= 1500 && type <= 1503) return ufm_kind::cable;
  return ufm_kind::ufm_event;
}

std::optional<Counter> ufm_threshold_counter(int type) {
  if (type < 110 || type > 121) return std::nullopt;
  return static_cast<Counter>(type - 110);  // Counter lists the PortCounters fields in order
}

Severity ufm_severity(std::string_view severity) {
  std::string s = ascii_lower(severity);
  if (s == "warning" || s == "minor") return Severity::warning;
  if (s == "major" || s == "error") return Severity::error;
  if (s == "critical") return Severity::critical;
  return Severity::info;
}

Event to_event(const UfmEvent& u) {
  Event e;
  e.time_us = u.time_us;
  e.source = EventSource::ufm;
  e.kind = std::string(ufm_event_kind(u.type, u.description));
  e.severity = ufm_severity(u.severity);
  if (e.kind == kind::link_down || e.kind == ufm_kind::port_unhealthy)
    e.severity = std::max(e.severity, Severity::warning);
  UfmEventEnds ends = ufm_event_ends(u.type, u.description, u.object_name, u.object_path);
  e.node_guid = ends.port.guid;
  e.port = ends.port.port;
  e.node = ends.port.node;
  e.peer_guid = ends.peer.guid;
  e.peer_port = ends.peer.port;
  e.peer_node = ends.peer.node;
  e.message = "UFM " + std::to_string(u.type) + " " + single_line(u.name);
  if (auto c = ufm_threshold_counter(u.type))
    e.message += " (" + std::string(counter_name(*c)) + ")";
  if (!u.description.empty()) e.message += ": " + single_line(u.description);
  e.dedup_key = ufm_dedup_key(u);
  return e;
}

}  // namespace ibw::ingest
