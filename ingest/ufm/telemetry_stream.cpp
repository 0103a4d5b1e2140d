// TelemetryStreamParser (ingest/ufm/telemetry.h): a telemetry answer parsed as it arrives.
#include "ingest/text.h"
#include "ingest/ufm/telemetry.h"
#include "ingest/ufm/telemetry_csv.h"

namespace ibw::ingest {

TelemetryStreamParser::TelemetryStreamParser(int64_t now_us, size_t expected_samples)
    : now_us_(now_us), expected_samples_(expected_samples) {}
TelemetryStreamParser::~TelemetryStreamParser() = default;

void TelemetryStreamParser::feed(std::string_view bytes) {
  bytes_ += bytes.size();
  if (mode_ == Mode::csv) return csv_lines(bytes);
  held_.append(bytes);
  if (mode_ == Mode::prometheus) return;
  for (size_t start = 0;;) {  // undecided: the first complete non-blank line decides
    const size_t nl = held_.find('\n', start);
    if (nl == std::string::npos) return;
    const std::string_view line = trim(std::string_view(held_).substr(start, nl - start));
    start = nl + 1;
    if (line.empty()) continue;
    if (ufm_telemetry_detail::prometheus_line(line)) {
      mode_ = Mode::prometheus;
      return;
    }
    mode_ = Mode::csv;
    csv_ = std::make_unique<ufm_telemetry_detail::CsvParser>(now_us_, expected_samples_);
    const std::string text = std::move(held_);
    held_.clear();
    return csv_lines(text);
  }
}

void TelemetryStreamParser::csv_lines(std::string_view text) {
  size_t start = 0;
  if (!held_.empty()) {  // the rest of the line the last bytes ended in
    const size_t nl = text.find('\n');
    if (nl == std::string_view::npos) return held_.append(text), void();
    held_.append(text.substr(0, nl));
    csv_->line(held_);
    held_.clear();
    start = nl + 1;
  }
  for (;;) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) return held_.assign(text.substr(start)), void();
    csv_->line(text.substr(start, nl - start));
    start = nl + 1;
  }
}

TelemetryParse TelemetryStreamParser::finish() {
  std::string text = std::move(held_);
  held_.clear();
  switch (mode_) {
    case Mode::undecided:  // no complete non-blank line: whatever the whole text gives
      return parse_telemetry(text, now_us_);
    case Mode::prometheus:
      return parse_telemetry_prometheus(text, now_us_);
    case Mode::csv:
      if (!text.empty()) csv_->line(text);
      return csv_->finish();
  }
  return {};
}

}  // namespace ibw::ingest
