// Route observations: the outcome of probes or tests sent between two endpoints of the fabric
// (`ibwarden probe`, ib_write_bw/lat matrices, nccl-tests, burn-in). The localizer turns them
// into ranked suspect links. Read from JSONL or CSV with a header (one record per line or
// row); `ibwarden probe` writes JSONL or CSV.
//
// Fields (JSONL keys, CSV column names):
//   src, dst        endpoint as written: a decimal LID ("12"), "0xGUID" (node or port GUID),
//                   or a node name as the audit matches names; a GUID or name optionally
//                   followed by "/port".
//   sent, lost      probes sent and lost (lost <= sent)
//   slow            optional: probes over the user's latency bound (counted as bad)
//   gbps, expected_gbps  optional, together: measured vs expected bandwidth
//   rtt_us          optional: mean round trip, microseconds
//   rtt_p50_us, rtt_p99_us  optional (written by `ibwarden probe`)
//   routing         optional: static | adaptive | directed (directed needs `path`)
//   path            directed only: the directed route as out ports, "0,1,5,3" (as smpquery -D)
//   roundtrip       optional: true | false (also 1 | 0). A record is one-way, `sent` from src
//                   to dst over the forward route only, unless it says true: then each probe
//                   went out and came back (the prober's LID-routed and directed-route MADs),
//                   and the routes both ways carried it. Written only when true (JSONL key
//                   left out, CSV cell empty when false).
//   time            optional: ISO-8601 UTC ("2026-11-25T02:00:00Z") or Unix seconds
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibw::ingest {

enum class Routing : uint8_t { unspecified = 0, static_lft, adaptive, directed };
std::string_view routing_name(Routing r);                  // "", "static", "adaptive", "directed"
std::optional<Routing> parse_routing(std::string_view s);  // nullopt when not one of the names

struct Observation {
  std::string src;  // as written
  std::string dst;
  uint64_t sent = 0;
  uint64_t lost = 0;
  uint64_t slow = 0;                    // 0 when absent
  std::optional<double> gbps;           // with expected_gbps
  std::optional<double> expected_gbps;  // with gbps
  std::optional<double> rtt_us;
  std::optional<double> rtt_p50_us;
  std::optional<double> rtt_p99_us;
  Routing routing = Routing::unspecified;
  std::vector<int> path;   // directed route out ports, "0,1,5" -> {0,1,5}; empty otherwise
  bool roundtrip = false;  // out and back (reply over the reverse route); false: src -> dst only
  int64_t time_us = 0;     // 0 when absent
  std::string origin;      // "file:line" it came from (for messages); not serialized
};

enum class ObservationFormat : uint8_t { jsonl, csv };

// Pure parser. The format is told by the caller or guessed from the first non-blank line
// ('{' = JSONL). Throws fabric::InputError listing every bad line as
// "file:line: field: message" (unknown field, missing src/dst/sent/lost, lost > sent,
// negative or non-numeric counts, gbps without expected_gbps, bad routing, directed without
// a path, bad time, roundtrip not true/false/1/0). Blank lines and, in CSV, lines starting with '#'
// are skipped. Records carry origin "file:line".
std::vector<Observation> parse_observations(std::string_view text, const std::string& file,
                                            std::optional<ObservationFormat> format = {});
std::vector<Observation> load_observations(const std::string& path);

// The same reader, streaming: each(record, line) for every good record in file order, on the
// caller's thread, with records reused between calls (origin left empty): a million-line file
// is read without a record per line in memory (large ones are parsed on a second thread while
// `each` runs). After the last record, throws fabric::InputError with every bad line as
// parse_observations does. An exception from `each` stops the reading and is passed on.
using ObservationFn = std::function<void(const Observation& record, int line)>;
void for_each_observation(std::string_view text, const std::string& file, const ObservationFn& each,
                          std::optional<ObservationFormat> format = {});

// One record as a JSONL line (no trailing newline) or a CSV row (the prober's columns: no slow,
// gbps or rtt_us; roundtrip last); the CSV header first.
std::string observation_jsonl(const Observation& o);
std::string observation_csv_header();
std::string observation_csv(const Observation& o);

}  // namespace ibw::ingest
