// UFM Telemetry as a counter source: parses what the telemetry HTTP endpoints return (CSV or
// Prometheus text; ../shared/reference/ufm-api.md §5) into the CounterSamples the MAD poller
// produces, so the same CounterTracker and rules consume both. PHY/BER fields of the secondary
// (low-frequency) endpoint are kept aside in TelemetryPhy.
//
// Input shapes:
//  - CSV (/csv/metrics, /csv/xcset/<name>): a header row, then one row per port. Seen in
//    NVIDIA code [M]: `timestamp,source_id,tag,node_guid,port_guid,port_num,<counters...>`
//    with GUIDs as "0x%016x" and timestamp in microseconds; the secondary set names them
//    Node_GUID / Port_Number [H, D-TEL]. RFC 4180 quoting is accepted.
//  - Prometheus text (/metrics, /labels/metrics) [H: D-PROM exists; label names M]:
//    `name{label="v",...} value [timestamp_ms]`; # lines are comments.
// Row identity: node GUID from node_guid | Node_GUID | nodeGUID | node_GUID, falling back to
// port_guid | Port_GUID (equal to the node GUID on switches); port from port_num |
// Port_Number | port_number | portNumber | port. Rows without both are skipped. Time: the
// row's timestamp (µs; values that look like seconds or milliseconds are scaled), else the
// Prometheus sample time (ms), else `now_us`.
//
// Counter mapping (telemetry name -> Counter; also each IBA name itself and "<IBA>Extended";
// a trailing unit suffix "_u_<unit>" is ignored):
//   Infiniband_SymbolErrors -> SymbolErrorCounter     Infiniband_LinkRecovers ->
//   LinkErrorRecoveryCounter Infiniband_LinkDowned -> LinkDownedCounter        Infiniband_RcvErrors
//   -> PortRcvErrors Infiniband_RcvRemotePhysErrors -> PortRcvRemotePhysicalErrors
//   Infiniband_RcvSwRelayErrors -> PortRcvSwitchRelayErrors
//   Infiniband_XmtDiscards -> PortXmitDiscards        Infiniband_XmtConstraintErrors ->
//   PortXmitConstraintErrors Infiniband_RcvConstraintErrors -> PortRcvConstraintErrors
//   Infiniband_LinkIntegrityErrors -> LocalLinkIntegrityErrors
//   Infiniband_ExcBufOverrunErrors -> ExcessiveBufferOverrunErrors
//   Infiniband_VL15Dropped -> VL15Dropped             Infiniband_XmitWait -> PortXmitWait
//   Infiniband_PckOut / PckIn -> PortXmitPkts / PortRcvPkts [M]
// Not mapped (unit unknown): Infiniband_MBOut/MBIn, CBW, Normalized_CBW, hist0..4. Data
// counters are taken only as PortXmitData(Extended)/PortRcvData(Extended) (IBA units of 4
// octets). Telemetry reads 64-bit counters, so samples are `extended` and never saturated.
// PHY fields (TelemetryPhy): Total_Raw_BER/raw_ber, Effective_BER/effective_ber,
// Symbol_BER/symbol_ber, Effective_Errors/phy_effective_errors, Symbol_Errors/
// phy_symbol_errors, Raw_Errors_Lane_<n>/phy_raw_errors_lane<n>, Link_Down/Link_Down_IB
// (PHY link-down count), Module_Temperature/CableInfo.Temperature, Active_FEC/
// fec_mode_active, Link_speed_active, Link_width_active, link_partner_node_guid,
// link_partner_port_num.
// Everything else is an unknown field: ignored, and its name listed once in `unknown`. Empty,
// "N/A" or non-numeric values leave the counter unset (not valid) for that row.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/counters.h"

namespace ibw::ingest {

struct TelemetryPhy {
  int64_t time_us = 0;
  uint64_t node_guid = 0;
  int port = 0;
  std::optional<double> raw_ber;        // pre-FEC
  std::optional<double> effective_ber;  // post-FEC
  std::optional<double> symbol_ber;     // post-FEC and PLR
  std::optional<uint64_t> effective_errors;
  std::optional<uint64_t> symbol_errors;
  std::array<std::optional<uint64_t>, 4> raw_errors_lane{};
  std::optional<uint64_t> link_down;  // PHY link-down counter (Link_Down)
  std::optional<double> temperature_c;
  std::string fec_mode;
  std::string speed;  // Link_speed_active as given
  std::string width;  // Link_width_active as given
  uint64_t partner_guid = 0;
  int partner_port = 0;

  bool empty() const;  // no PHY field was present
};

enum class TelemetryFormat : uint8_t { csv, prometheus };

struct TelemetryParse {
  bool ok = false;
  std::string error;  // when !ok (e.g. no header row)
  TelemetryFormat format = TelemetryFormat::csv;
  std::vector<CounterSample> samples;  // one per port that had at least one counter
  std::vector<TelemetryPhy> phy;       // one per port that had at least one PHY field
  std::vector<std::string> unknown;    // distinct unmapped field names, in first-seen order
  size_t rows = 0;                     // data rows (CSV) or port series (Prometheus) read
  size_t skipped = 0;                  // rows without node GUID or port
};

// Which counter a telemetry field feeds; nullopt for PHY and unknown fields.
std::optional<Counter> telemetry_counter(std::string_view field);

TelemetryParse parse_telemetry_csv(std::string_view text, int64_t now_us);
TelemetryParse parse_telemetry_prometheus(std::string_view text, int64_t now_us);
// Chooses by content: Prometheus when the first non-blank line is a "# HELP"/"# TYPE"
// comment or has "{" or no comma; CSV otherwise.
TelemetryParse parse_telemetry(std::string_view text, int64_t now_us);

namespace ufm_telemetry_detail {
class CsvParser;
}

// A telemetry answer parsed as it arrives, with the result parse_telemetry() gives for the
// whole text: CSV a line at a time, so the text (about 100 MB at k=64) is never held whole
// and the parse overlaps the transfer; Prometheus text is kept and parsed at the end. The
// first non-blank line decides, as in parse_telemetry(). expected_samples (the last answer's,
// say) sizes the CSV result up front, so it is neither copied as it grows nor left with up
// to twice the room it needs; the result is the same without it.
class TelemetryStreamParser {
 public:
  explicit TelemetryStreamParser(int64_t now_us, size_t expected_samples = 0);
  ~TelemetryStreamParser();
  void feed(std::string_view bytes);  // the next bytes, cut anywhere
  TelemetryParse finish();            // once, after the last feed
  size_t bytes() const { return bytes_; }

 private:
  enum class Mode : uint8_t { undecided, csv, prometheus };
  void csv_lines(std::string_view text);
  int64_t now_us_;
  size_t expected_samples_;
  Mode mode_ = Mode::undecided;
  std::string held_;  // undecided or Prometheus: all so far; CSV: the start of a line
  std::unique_ptr<ufm_telemetry_detail::CsvParser> csv_;
  size_t bytes_ = 0;
};

}  // namespace ibw::ingest
