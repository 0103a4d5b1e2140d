#include "store/record_columns.h"

namespace ibw::store::columns {

std::string joined(const std::vector<std::string>& names, std::string_view prefix) {
  std::string s;
  for (const std::string& n : names) (s += s.empty() ? "" : ", ") += std::string(prefix) + n;
  return s;
}

std::string params(char mark, int first, int count) {
  std::string s;
  for (int i = first; i < first + count; ++i)
    s += (i > first ? ", " : "") + std::string(1, mark) + std::to_string(i);
  return s;
}

std::string assignments(const std::vector<std::string>& names, char mark, int first) {
  std::string s;
  int i = first;
  for (const std::string& n : names)
    s += (s.empty() ? "" : ", ") + n + " = " + std::string(1, mark) + std::to_string(i++);
  return s;
}

namespace columns_detail {

auto end_fields(const LinkEnd& e) {
  return std::tie(e.guid, e.node, e.port, e.location);
}

auto content_fields(const WorkOrder& o) {
  return std::tuple_cat(std::tie(o.link_key, o.cable_id), end_fields(o.a), end_fields(o.b),
                        std::tie(o.status, o.rule, o.severity, o.summary, o.advice, o.needs_human,
                                 o.port_disabled, o.offences, o.evidence_json, o.assignee, o.note,
                                 o.opened_us, o.resolved_us, o.affected_json));
}

}  // namespace columns_detail

bool same_content(const WorkOrder& x, const WorkOrder& y) {
  return columns_detail::content_fields(x) == columns_detail::content_fields(y);
}

ingest::EventSource parse_source(std::string_view s, int64_t id) {
  for (auto v :
       {ingest::EventSource::opensm, ingest::EventSource::counters, ingest::EventSource::ufm})
    if (ingest::source_name(v) == s) return v;
  throw StoreError("event " + std::to_string(id) + ": unknown source '" + std::string(s) + "'");
}

ingest::Severity parse_severity(int64_t v, int64_t id) {
  if (v < 0 || v > static_cast<int64_t>(ingest::Severity::critical))
    throw StoreError("event " + std::to_string(id) + ": unknown severity " + std::to_string(v));
  return static_cast<ingest::Severity>(v);
}

}  // namespace ibw::store::columns
