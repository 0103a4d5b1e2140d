// Route observations: reading JSONL and CSV line by line (ingest/observation.h). Large inputs
// are parsed on a reader thread into a ring of reused record batches while the caller's thread
// consumes them in file order, so a million records cost no allocation per record.
#include <algorithm>
#include <array>
#include <condition_variable>
#include <exception>
#include <iterator>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "fabric/text_util.h"
#include "ingest/observation.h"
#include "ingest/observation_detail.h"

namespace ibw::ingest {
namespace observation_detail {
namespace {

namespace text = fabric::text;

// The format the first non-blank line tells ('{' = JSONL); nullopt when every line is blank.
std::optional<ObservationFormat> first_line_format(std::string_view data) {
  if (data.substr(0, 3) == "\xEF\xBB\xBF") data.remove_prefix(3);  // as for_each_line
  for (size_t pos = 0; pos < data.size();) {
    size_t end = std::min(data.find('\n', pos), data.size());
    std::string_view line = text::trim(data.substr(pos, end - pos));
    if (!line.empty())
      return line.front() == '{' ? ObservationFormat::jsonl : ObservationFormat::csv;
    pos = end + 1;
  }
  return std::nullopt;
}

void reset(Observation& o) {  // empty again, keeping the strings' buffers
  o.src.clear(), o.dst.clear(), o.origin.clear(), o.path.clear();
  o.sent = o.lost = o.slow = 0;
  o.gbps.reset(), o.expected_gbps.reset(), o.rtt_us.reset();
  o.rtt_p50_us.reset(), o.rtt_p99_us.reset();
  o.routing = Routing::unspecified;
  o.roundtrip = false;
  o.time_us = 0;
}

// Reads records line by line, diagnostics into `sink`.
struct Reader {
  ObservationFormat format;
  fabric::DiagnosticSink& sink;
  std::vector<std::string> header;
  int header_line = 0;
  Fields fields;
  std::vector<std::string_view> given;

  // The line's record into `o` (reset first); false for a blank, comment, header or bad line.
  bool line(std::string_view raw, int number, Observation& o) {
    std::string_view line = text::trim(raw);
    if (line.empty()) return false;
    reset(o);
    given.clear();
    size_t before = sink.size();
    auto field = [&](std::string_view k, std::string_view v) {
      std::string_view known = canonical_field(k);
      if (known.empty()) return sink.add(number, std::string(k), "unknown field");
      given.push_back(known);
      set_field(o, known, v, number, sink);
    };
    if (format == ObservationFormat::jsonl) {
      if (scan_flat(line, fields)) {
        for (const auto& [k, v] : fields) field(k, v);
      } else {
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object())
          return sink.add(number, "", "not a JSON object"), false;
        for (const auto& [k, v] : j.items())
          if (!v.is_null() || canonical_field(k).empty()) field(k, scalar_text(v));
      }
    } else {
      if (line.front() == '#') return false;
      auto cells = split_csv(line);
      if (header.empty()) {
        header = cells, header_line = number;
        for (const auto& h : header)
          if (canonical_field(h).empty()) sink.add(number, h, "unknown column");
        return false;
      }
      if (cells.size() != header.size())
        return sink.add(number, "",
                        std::to_string(cells.size()) + " columns, the header (line " +
                            std::to_string(header_line) + ") has " + std::to_string(header.size())),
               false;
      for (size_t i = 0; i < cells.size(); ++i)
        if (!cells[i].empty() && !canonical_field(header[i]).empty()) field(header[i], cells[i]);
    }
    if (sink.size() == before) check_record(o, given, number, sink);
    return sink.size() == before;
  }
};

// The reader thread's hand-off: batches of records in a ring, filled and consumed in order.
struct Ring {
  static constexpr size_t kBatch = 4096;
  static constexpr size_t kSlots = 4;
  struct Batch {
    std::vector<Observation> records;
    std::vector<int> lines;
    size_t size = 0;
  };
  std::array<Batch, kSlots> slots;
  std::mutex mutex;
  std::condition_variable changed;
  size_t produced = 0, consumed = 0;  // batches
  bool done = false, stop = false;
  std::exception_ptr failed;

  Batch* acquire() {  // a free batch to fill; null when the consumer stopped
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return produced - consumed < kSlots || stop; });
    if (stop) return nullptr;
    Batch* b = &slots[produced % kSlots];
    b->size = 0;
    return b;
  }
  void publish() {
    std::lock_guard lock(mutex);
    ++produced;
    changed.notify_all();
  }
  Batch* next() {  // the oldest filled batch; null at the end
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return consumed < produced || done; });
    return consumed < produced ? &slots[consumed % kSlots] : nullptr;
  }
  void release() {
    std::lock_guard lock(mutex);
    ++consumed;
    changed.notify_all();
  }
  void finish(bool stopped) {
    std::lock_guard lock(mutex);
    (stopped ? stop : done) = true;
    changed.notify_all();
  }
};

void produce(std::string_view data, Reader& reader, Ring& ring) {
  try {
    Ring::Batch* b = ring.acquire();
    text::for_each_line(data, [&](std::string_view raw, int number) {
      if (!b) return;  // the consumer stopped: skip the rest
      if (b->records.size() == b->size) b->records.emplace_back(), b->lines.push_back(0);
      if (!reader.line(raw, number, b->records[b->size])) return;
      b->lines[b->size++] = number;
      if (b->size == Ring::kBatch) ring.publish(), b = ring.acquire();
    });
    if (b && b->size) ring.publish();
  } catch (...) {
    ring.failed = std::current_exception();
  }
  ring.finish(false);
}

}  // namespace
}  // namespace observation_detail

void for_each_observation(std::string_view data, const std::string& file, const ObservationFn& each,
                          std::optional<ObservationFormat> format) {
  using namespace observation_detail;
  fabric::DiagnosticSink sink(file);
  if (!format) format = first_line_format(data);
  if (!format) return;  // nothing but blank lines
  Reader reader{*format, sink, {}, 0, {}, {}};
  if (data.size() < (1u << 20)) {  // small: no thread
    Observation o;
    text::for_each_line(data, [&](std::string_view raw, int number) {
      if (reader.line(raw, number, o)) each(o, number);
    });
    return sink.throw_if_any();
  }
  Ring ring;
  std::thread thread([&] { produce(data, reader, ring); });
  try {
    while (Ring::Batch* b = ring.next()) {
      for (size_t i = 0; i < b->size; ++i) each(b->records[i], b->lines[i]);
      ring.release();
    }
  } catch (...) {
    ring.finish(true);
    thread.join();
    throw;
  }
  thread.join();
  if (ring.failed) std::rethrow_exception(ring.failed);
  sink.throw_if_any();
}

std::vector<Observation> parse_observations(std::string_view data, const std::string& file,
                                            std::optional<ObservationFormat> format) {
  std::vector<Observation> out;
  out.reserve(static_cast<size_t>(std::count(data.begin(), data.end(), '\n')) + 1);
  for_each_observation(
      data, file,
      [&](const Observation& o, int line) {
        out.push_back(o);
        out.back().origin = file + ":" + std::to_string(line);
      },
      format);
  return out;
}

std::vector<Observation> load_observations(const std::string& path) {
  return parse_observations(fabric::read_file(path), path);
}

}  // namespace ibw::ingest
