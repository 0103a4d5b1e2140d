// UFM Telemetry in Prometheus text: one series per line, a port's figures spread over the
// lines whose labels name it (see ufm/telemetry.h for the labels and the mapping).
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ingest/ufm/json.h"
#include "ingest/ufm/telemetry.h"
#include "ingest/ufm/telemetry_rows.h"

namespace ibw::ingest {

TelemetryParse parse_telemetry_prometheus(std::string_view text, int64_t now_us) {
  namespace d = ufm_telemetry_detail;
  d::Builder b(TelemetryFormat::prometheus);
  struct Series {
    d::PortRow row;
    uint64_t guid = 0;
    int port = 0;
    int64_t time_us = 0;
  };
  std::vector<Series> series;
  std::map<std::pair<uint64_t, int>, size_t> index;
  size_t unidentified = 0;
  for (std::string_view line : d::lines(text)) {
    line = d::trim(line);
    if (line.empty() || line.front() == '#') continue;
    size_t name_end = line.find_first_of("{ ");
    if (name_end == std::string_view::npos) continue;
    std::string_view name = line.substr(0, name_end);
    std::map<std::string, std::string> labels;
    size_t pos = name_end;
    if (line[pos] == '{') {
      size_t i = pos + 1;
      while (i < line.size() && line[i] != '}') {
        size_t eq = line.find('=', i);
        if (eq == std::string_view::npos || eq + 1 >= line.size() || line[eq + 1] != '"') break;
        std::string key(d::trim(line.substr(i, eq - i)));
        std::string value;
        size_t k = eq + 2;
        for (; k < line.size() && line[k] != '"'; ++k) {
          if (line[k] == '\\' && k + 1 < line.size()) ++k;
          value += line[k];
        }
        labels[ascii_lower(key)] = value;
        i = k + 1;
        while (i < line.size() && (line[i] == ',' || line[i] == ' ')) ++i;
      }
      pos = line.find('}', pos);
      if (pos == std::string_view::npos) continue;
      ++pos;
    }
    std::string_view rest = d::trim(line.substr(pos));
    size_t sp = rest.find(' ');
    std::string_view value = rest.substr(0, sp);
    int64_t t = now_us;
    if (sp != std::string_view::npos)
      if (auto ts = d::to_double(rest.substr(sp + 1)); ts && *ts > 0)
        t = d::scale_time(*ts).value_or(t);
    d::Field f = d::classify(name);
    if (f.kind == d::Kind::unknown) {
      b.unknown(name);
      continue;
    }
    if (f.kind != d::Kind::counter && f.kind != d::Kind::phy) continue;
    auto label = [&](std::initializer_list<const char*> keys) -> std::string {
      for (const char* k : keys)
        if (auto it = labels.find(ascii_lower(k)); it != labels.end()) return it->second;
      return {};
    };
    uint64_t guid = ufm_json_detail::parse_guid(label({"node_guid", "nodeGUID"}));
    if (!guid) guid = ufm_json_detail::parse_guid(label({"port_guid"}));
    int port = static_cast<int>(
        d::to_count(label({"port_num", "Port_Number", "port_number", "portNumber", "port"}))
            .value_or(0));
    if (!guid || port <= 0) {
      ++unidentified;
      continue;
    }
    auto [it, fresh] = index.emplace(std::make_pair(guid, port), series.size());
    if (fresh) series.push_back(Series{{}, guid, port, t});
    Series& s = series[it->second];
    s.time_us = std::max(s.time_us, t);
    b.set(s.row, f, value);
  }
  for (Series& s : series) b.finish(s.row, s.guid, s.port, s.time_us);
  b.result().skipped += unidentified;
  b.result().ok = true;
  return std::move(b.result());
}

}  // namespace ibw::ingest
