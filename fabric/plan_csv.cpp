// CSV and NDT plan readers (both are comma-separated with a header line).
#include <unordered_map>

#include "fabric/plan.h"
#include "fabric/plan_fields.h"
#include "fabric/text_util.h"

namespace ibw::fabric {
namespace {

// Splits one CSV record (RFC 4180 quoting, no embedded newlines) into views. Unquoted fields
// point into line; unescaped quoted fields are kept in scratch. False on a bad quote.
bool split_csv(std::string_view line, std::vector<std::string_view>& out,
               std::vector<std::string>& scratch) {
  out.clear();
  scratch.clear();
  if (line.find('"') == std::string_view::npos) {  // fast path: the common case
    size_t start = 0;
    while (true) {
      size_t comma = line.find(',', start);
      out.push_back(line.substr(start, comma == std::string_view::npos ? comma : comma - start));
      if (comma == std::string_view::npos) return true;
      start = comma + 1;
    }
  }
  scratch.reserve(line.size() + 1);  // no reallocation: views into scratch stay valid
  std::string field;
  bool quoted = false;
  bool was_quoted = false;
  auto flush = [&] {
    scratch.push_back(std::move(field));
    out.push_back(scratch.back());
    field.clear();
  };
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        field += c;
      }
    } else if (c == '"' && text::trim(field).empty() && !was_quoted) {
      quoted = was_quoted = true;
      field.clear();
    } else if (c == ',') {
      flush();
      was_quoted = false;
    } else {
      field += c;
    }
  }
  if (quoted) return false;
  flush();
  return true;
}

bool skippable(std::string_view line) {
  line = text::trim(line);
  return line.empty() || line.front() == '#';
}

}  // namespace

Plan parse_plan_csv(std::string_view data, const std::string& file) {
  Plan plan{file, PlanFormat::csv, {}};
  DiagnosticSink sink(file);
  std::vector<std::string> columns;
  std::vector<std::string_view> fields;
  std::vector<std::string> scratch;
  bool have_header = false;
  text::for_each_line(data, [&](std::string_view line, int n) {
    if (skippable(line)) return;
    if (!split_csv(line, fields, scratch)) {
      sink.add(n, "", "unterminated quote");
      return;
    }
    if (!have_header) {
      have_header = true;
      std::unordered_map<std::string, int> seen;
      for (auto& f : fields) {
        std::string col(text::trim(f));
        if (!plan_fields::is_known(col))
          sink.add(n, col, "unknown column; known: " + plan_fields::known_list());
        else if (!seen.emplace(col, n).second)
          sink.add(n, col, "column appears twice");
        columns.push_back(col);
      }
      for (auto req : plan_fields::kRequired)
        if (!seen.count(std::string(req))) sink.add(n, std::string(req), "required column missing");
      return;
    }
    if (fields.size() != columns.size()) {
      sink.add(n, "",
               "has " + std::to_string(fields.size()) + " fields, header has " +
                   std::to_string(columns.size()));
      return;
    }
    PlannedLink link;
    link.line = n;
    for (size_t i = 0; i < columns.size(); ++i) {
      if (plan_fields::is_known(columns[i]))
        plan_fields::set_field(link, columns[i], fields[i], n, sink);
    }
    plan.links.push_back(std::move(link));
  });
  if (!have_header) sink.add(0, "", "empty plan: no header line");
  plan.links.shrink_to_fit();
  finish_plan(plan, sink);
  sink.throw_if_any();
  return plan;
}

Plan parse_plan_ndt(std::string_view data, const std::string& file) {
  static constexpr std::string_view kColumns[] = {"StartDevice", "StartPort", "EndDevice",
                                                  "EndPort", "LinkType"};
  Plan plan{file, PlanFormat::ndt, {}};
  DiagnosticSink sink(file);
  std::vector<std::string_view> fields;
  std::vector<std::string> scratch;
  bool have_header = false;
  auto port_of = [&](std::string_view v, const char* col, int n) {
    v = text::trim(v);
    if (v.size() > 5 && (text::starts_with(v, "Port ") || text::starts_with(v, "port ")))
      v = text::trim(v.substr(5));
    auto p = text::to_int<int>(v);
    if (!p || *p < 1 || *p > 255) {
      sink.add(n, col, "\"" + std::string(v) + "\" is not \"Port N\" with N 1-255");
      return 0;
    }
    return *p;
  };
  text::for_each_line(data, [&](std::string_view line, int n) {
    std::string_view t = text::trim(line);
    if (t.empty()) return;
    if (!have_header) {
      have_header = true;
      if (!split_csv(t.substr(t.front() == '#' ? 1 : 0), fields, scratch) || fields.size() < 4) {
        sink.add(n, "", "NDT header must be #StartDevice,StartPort,EndDevice,EndPort,LinkType");
        return;
      }
      for (size_t i = 0; i < fields.size() && i < 5; ++i)
        if (text::trim(fields[i]) != kColumns[i])
          sink.add(n, std::string(text::trim(fields[i])),
                   "expected column \"" + std::string(kColumns[i]) + "\"");
      return;
    }
    if (t.front() == '#') return;
    if (!split_csv(t, fields, scratch) || fields.size() < 4) {
      sink.add(n, "", "expected StartDevice,StartPort,EndDevice,EndPort[,LinkType]");
      return;
    }
    PlannedLink link;
    link.line = n;
    plan_fields::set_field(link, "a_node", fields[0], n, sink);
    link.a.port = port_of(fields[1], "StartPort", n);
    plan_fields::set_field(link, "b_node", fields[2], n, sink);
    link.b.port = port_of(fields[3], "EndPort", n);
    if (fields.size() > 4) link.kind = std::string(text::trim(fields[4]));
    link.cable_id = link.a.node + "/" + std::to_string(link.a.port);
    plan.links.push_back(std::move(link));
  });
  if (!have_header) sink.add(0, "", "empty NDT file");
  finish_plan(plan, sink);
  sink.throw_if_any();
  return plan;
}

}  // namespace ibw::fabric
