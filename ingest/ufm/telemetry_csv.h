// Internal to ufm/telemetry*.cpp: the telemetry CSV parser a line at a time, so that
// parse_telemetry_csv() (whole text) and TelemetryStreamParser (bytes as they arrive) share it;
// and the rule that tells Prometheus text from CSV by the first non-blank line.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "ingest/ufm/telemetry.h"

namespace ibw::ingest::ufm_telemetry_detail {

class CsvParser {
 public:
  // expected_samples: room reserved for the result's samples (0: none).
  explicit CsvParser(int64_t now_us, size_t expected_samples = 0);
  ~CsvParser();
  void line(std::string_view line);  // the next line, without its '\n' (a '\r' is dropped)
  TelemetryParse finish();           // once, after the last line
 private:
  struct State;
  std::unique_ptr<State> s_;
};

// Whether the first non-blank line (trimmed) starts Prometheus text rather than CSV.
bool prometheus_line(std::string_view line);

}  // namespace ibw::ingest::ufm_telemetry_detail
