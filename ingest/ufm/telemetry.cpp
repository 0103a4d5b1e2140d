// UFM Telemetry CSV parsing, the cell values and rows both formats share, and the choice of
// format (the Prometheus text parser is in telemetry_prometheus.cpp); see ufm/telemetry.h for
// the shapes and the mapping.
#include "ingest/ufm/telemetry.h"
#include "ingest/text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include "fabric/prefetch.h"
#include "ingest/ufm/json.h"
#include "ingest/ufm/telemetry_csv.h"
#include "ingest/ufm/telemetry_fields.h"
#include "ingest/ufm/telemetry_rows.h"

namespace ibw::ingest {
namespace ufm_telemetry_detail {

std::optional<uint64_t> plain_digits(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    unsigned d = static_cast<unsigned char>(c) - unsigned{'0'};
    if (d > 9) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

std::optional<double> to_double(std::string_view s) {
  s = trim(s);
  if (auto digits = plain_digits(s)) return static_cast<double>(*digits);  // a time in us
  if (s.empty()) return std::nullopt;
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<uint64_t> to_count(std::string_view s) {
  if (auto digits = plain_digits(s)) return digits;  // the common cell: no overflow possible
  s = trim(s);
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && end == s.data() + s.size() && !s.empty()) return v;
  auto d = to_double(s);
  if (!d || *d < 0 || *d >= 1.8e19) return std::nullopt;
  return static_cast<uint64_t>(std::round(*d));  // not llround: it overflows above 9.2e18
}

std::optional<int64_t> scale_time(double v) {
  double us = v < 1e11 ? v * 1e6 : v < 1e14 ? v * 1e3 : v;  // s, ms or us
  if (!(us < 9.2e18)) return std::nullopt;
  return static_cast<int64_t>(us);
}

// Splits one CSV line (RFC 4180 quoting within the line). Unquoted lines (every row UFM
// Telemetry writes but the node description's) are split in place into views of the line;
// quoted ones are decoded into `decoded`, which the views then point into. No allocation
// once the vectors have grown to the row width.
void csv_fields(std::string_view line, std::vector<std::string_view>& out,
                std::vector<std::string>& decoded) {
  out.clear();
  if (line.find('"') == std::string_view::npos) {
    size_t start = 0;  // a plain loop: cells are short, a memchr call per cell costs more
    for (size_t i = 0; i < line.size(); ++i)
      if (line[i] == ',') {
        out.push_back(line.substr(start, i - start));
        start = i + 1;
      }
    out.push_back(line.substr(start));
    return;
  }
  decoded.assign(1, std::string());
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        decoded.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        decoded.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      decoded.emplace_back();
    } else {
      decoded.back() += c;
    }
  }
  for (const auto& d : decoded) out.emplace_back(d);
}

std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  for (size_t start = 0; start < text.size();) {
    size_t nl = text.find('\n', start);
    std::string_view l = text.substr(start, nl == std::string_view::npos ? nl : nl - start);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.push_back(l);
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return out;
}

}  // namespace ufm_telemetry_detail

bool TelemetryPhy::empty() const {
  bool lanes = false;
  for (const auto& l : raw_errors_lane) lanes |= l.has_value();
  return !raw_ber && !effective_ber && !symbol_ber && !effective_errors && !symbol_errors &&
         !lanes && !link_down && !temperature_c && fec_mode.empty() && speed.empty() &&
         width.empty() && !partner_guid && !partner_port;
}

namespace ufm_telemetry_detail {

struct CsvParser::State {
  explicit State(int64_t now) : b(TelemetryFormat::csv), now_us(now) {}
  Builder b;
  int64_t now_us;
  std::vector<Field> columns;
  int node_col = -1, port_guid_col = -1, port_col = -1, time_col = -1;
  bool failed = false;  // the header names no identity column: the rest is ignored
  std::vector<std::string_view> cells;
  std::vector<std::string> decoded;

  void header() {
    for (size_t i = 0; i < cells.size(); ++i) {
      Field f = classify(trim(cells[i]));
      int col = static_cast<int>(i);
      if (f.kind == Kind::node_guid && node_col < 0) node_col = col;
      if (f.kind == Kind::port_guid && port_guid_col < 0) port_guid_col = col;
      if (f.kind == Kind::port && port_col < 0) port_col = col;
      if (f.kind == Kind::time && time_col < 0) time_col = col;
      if (f.kind == Kind::unknown) b.unknown(trim(cells[i]));
      columns.push_back(f);
    }
    if ((node_col < 0 && port_guid_col < 0) || port_col < 0) {
      b.result().error = "telemetry CSV: the header names no node GUID or port column";
      failed = true;
    }
  }
  // The identity cells of a row (untrimmed; empty when the row has no such cell).
  struct Identity {
    std::string_view node, port_guid, port, time;
    void take(int col, std::string_view cell, const State& s) {
      if (col == s.node_col) node = cell;
      if (col == s.port_guid_col) port_guid = cell;
      if (col == s.port_col) port = cell;
      if (col == s.time_col) time = cell;
    }
  };
  void finish_row(PortRow& r, const Identity& id) {
    uint64_t guid = ufm_json_detail::parse_guid(trim(id.node));
    if (!guid) guid = ufm_json_detail::parse_guid(trim(id.port_guid));
    int port = static_cast<int>(to_count(trim(id.port)).value_or(0));
    int64_t t = now_us;
    if (auto v = to_double(id.time); v && *v > 0) t = scale_time(*v).value_or(t);
    b.finish(r, guid, port, t);
  }
  // A row split by csv_fields() into cells.
  void row() {
    PortRow r;
    Identity id;
    for (size_t i = 0; i < cells.size() && i < columns.size(); ++i) {
      id.take(static_cast<int>(i), cells[i], *this);
      b.set(r, columns[i], cells[i]);
    }
    finish_row(r, id);
  }
  // A row with no quote (every row UFM Telemetry writes but a node description's) read in
  // one pass, without the split: each cell as the scan reaches it, a counter of plain digits
  // parsed on the way (a 400,000-port answer is this loop 400,000 times). The same result as
  // csv_fields() and row(); any other counter cell goes through set() as there.
  void plain_row(std::string_view line) {
    PortRow r;
    Identity id;
    const char* p = line.data();
    const char* const end = p + line.size();
    for (size_t col = 0; col < columns.size(); ++col) {
      const Field& f = columns[col];
      const char* c = p;
      if (f.kind == Kind::counter) {
        uint64_t v = 0;
        for (unsigned d;
             c < end && c - p < 19 && (d = static_cast<unsigned char>(*c) - unsigned{'0'}) <= 9;
             ++c)
          v = v * 10 + d;
        if (c > p && (c == end || *c == ',')) {
          r.sample.value[static_cast<size_t>(f.counter)] = v;
          r.sample.valid |= 1u << static_cast<unsigned>(f.counter);
        } else {
          c = p;
        }
      }
      if (c == p) {  // not read above: find its end, then as row() does
        while (c < end && *c != ',') ++c;
        const std::string_view cell(p, static_cast<size_t>(c - p));
        id.take(static_cast<int>(col), cell, *this);
        b.set(r, f, cell);
      }
      if (c == end) break;
      p = c + 1;
    }
    finish_row(r, id);
  }
};

CsvParser::CsvParser(int64_t now_us, size_t expected_samples)
    : s_(std::make_unique<State>(now_us)) {
  // A little over the expectation: a few more rows than last time must not double it.
  if (expected_samples) {
    auto& samples = s_->b.result().samples;
    samples.reserve(expected_samples + expected_samples / 64);
    fabric::populate_for_write(samples.data(), samples.capacity() * sizeof(CounterSample));
  }
}
CsvParser::~CsvParser() = default;

void CsvParser::line(std::string_view line) {
  if (s_->failed) return;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (trim(line).empty()) return;
  if (!s_->columns.empty() && line.find('"') == std::string_view::npos) return s_->plain_row(line);
  csv_fields(line, s_->cells, s_->decoded);
  if (s_->columns.empty())
    s_->header();
  else
    s_->row();
}

TelemetryParse CsvParser::finish() {
  TelemetryParse& out = s_->b.result();
  if (s_->failed) return std::move(out);
  out.ok = !s_->columns.empty();
  if (s_->columns.empty()) out.error = "telemetry CSV: no header row";
  return std::move(out);
}

}  // namespace ufm_telemetry_detail

TelemetryParse parse_telemetry_csv(std::string_view text, int64_t now_us) {
  ufm_telemetry_detail::CsvParser p(now_us);
  for (size_t start = 0; start < text.size();) {
    size_t nl = text.find('\n', start);
    p.line(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    start = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  return p.finish();
}

namespace ufm_telemetry_detail {

bool prometheus_line(std::string_view line) {
  return line.rfind("# HELP", 0) == 0 || line.rfind("# TYPE", 0) == 0 ||
         line.find('{') != std::string_view::npos || line.find(',') == std::string_view::npos;
}

}  // namespace ufm_telemetry_detail

TelemetryParse parse_telemetry(std::string_view text, int64_t now_us) {
  for (size_t start = 0; start < text.size();) {  // the first non-blank line decides
    size_t nl = text.find('\n', start);
    std::string_view line = ufm_telemetry_detail::trim(
        text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    start = nl == std::string_view::npos ? text.size() : nl + 1;
    if (line.empty()) continue;
    return ufm_telemetry_detail::prometheus_line(line) ? parse_telemetry_prometheus(text, now_us)
                                                       : parse_telemetry_csv(text, now_us);
  }
  TelemetryParse empty;
  empty.error = "telemetry: empty response";
  return empty;
}

}  // namespace ibw::ingest
