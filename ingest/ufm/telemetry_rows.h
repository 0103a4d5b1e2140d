// Internal to ufm/telemetry*.cpp: what the CSV and the Prometheus parsers share. Cell values
// (counts, doubles, times), the lines of a text, and Builder, which turns the cells of one port
// into its CounterSample and TelemetryPhy in a TelemetryParse.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "ingest/text.h"
#include "ingest/ufm/json.h"
#include "ingest/ufm/telemetry.h"
#include "ingest/ufm/telemetry_fields.h"

namespace ibw::ingest::ufm_telemetry_detail {

using ingest::trim;

// Up to 19 digits and nothing else (no sign, no space): the value; else nullopt. Such a
// number fits in uint64_t, and converting it to double rounds as from_chars would.
std::optional<uint64_t> plain_digits(std::string_view s);
// A finite number (trimmed); nullopt otherwise.
std::optional<double> to_double(std::string_view s);
// A count: an integer, or a number rounded to one (trimmed); nullopt when negative, too large
// or not a number.
std::optional<uint64_t> to_count(std::string_view s);
// A time in s, ms or us (by size) as microseconds; nullopt when it does not fit in int64
// microseconds (the caller keeps now_us).
std::optional<int64_t> scale_time(double v);
// The lines of text, without their '\n'.
std::vector<std::string_view> lines(std::string_view text);

// One port being assembled.
struct PortRow {
  CounterSample sample;
  TelemetryPhy phy;
  bool phy_seen = false;
};

class Builder {
 public:
  explicit Builder(TelemetryFormat f) { out_.format = f; }
  void unknown(std::string_view name) {
    if (seen_unknown_.insert(std::string(name)).second) out_.unknown.emplace_back(name);
  }
  // Sets the cell of field f (a counter or a phy figure; others are ignored) in row.
  void set(PortRow& row, const Field& f, std::string_view value) {
    if (f.kind == Kind::counter) {
      if (auto v = to_count(value)) {
        row.sample.value[static_cast<size_t>(f.counter)] = *v;
        row.sample.valid |= 1u << static_cast<unsigned>(f.counter);
      }
      return;
    }
    if (f.kind != Kind::phy) return;
    TelemetryPhy& p = row.phy;
    std::string_view v = trim(value);
    if (v.empty() || v == "N/A") return;
    row.phy_seen = true;
    switch (f.phy) {
      case Phy::raw_ber:
        p.raw_ber = to_double(v);
        break;
      case Phy::effective_ber:
        p.effective_ber = to_double(v);
        break;
      case Phy::symbol_ber:
        p.symbol_ber = to_double(v);
        break;
      case Phy::effective_errors:
        p.effective_errors = to_count(v);
        break;
      case Phy::symbol_errors:
        p.symbol_errors = to_count(v);
        break;
      case Phy::raw_lane:
        p.raw_errors_lane[f.lane] = to_count(v);
        break;
      case Phy::link_down:
        p.link_down = to_count(v);
        break;
      case Phy::temperature:
        p.temperature_c = to_double(v);
        break;
      case Phy::fec:
        p.fec_mode = std::string(v);
        break;
      case Phy::speed:
        p.speed = std::string(v);
        break;
      case Phy::width:
        p.width = std::string(v);
        break;
      case Phy::partner_guid:
        p.partner_guid = ufm_json_detail::parse_guid(v);
        break;
      case Phy::partner_port:
        p.partner_port = static_cast<int>(to_count(v).value_or(0));
        break;
    }
  }
  // Ends the row of port (guid, port) at time_us: its sample and phy figures go to the
  // result, or it counts as skipped without a GUID and port.
  void finish(PortRow& row, uint64_t guid, int port, int64_t time_us) {
    ++out_.rows;
    if (!guid || port <= 0) {
      ++out_.skipped;
      return;
    }
    row.sample.node_guid = row.phy.node_guid = guid;
    row.sample.port = row.phy.port = port;
    row.sample.time_us = row.phy.time_us = time_us;
    row.sample.extended = true;
    if (row.sample.valid) out_.samples.push_back(row.sample);
    if (row.phy_seen) out_.phy.push_back(std::move(row.phy));
  }
  TelemetryParse& result() { return out_; }

 private:
  TelemetryParse out_;
  std::unordered_set<std::string> seen_unknown_;
};

}  // namespace ibw::ingest::ufm_telemetry_detail
