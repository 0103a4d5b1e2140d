// ibw-bench-opensm_ingest: the OpenSM log ingest path on one file, as the daemon runs it:
// ingest::read_opensm_log (FileTailer lines without copies, the prefilter, the parser, to_event
// and the dedup key of every event), in polls of 100,000 lines (the daemon's batch), until the
// file is read.
// Prints the events by kind and the throughput. bench/bench_opensm_ingest.sh runs it next to
// `grep -cE` on the same file.
//
// usage: ibw-bench-opensm_ingest FILE [--all-lines] [--digest] [--utc-offset SECONDS]
//   --all-lines  the path before the prefilter, for comparison: FileTailer::poll (a string per
//                line), parse_opensm_line + to_event on every line. Same events, same digest.
//   --digest     also print a hash of every event's fields (to compare the two paths; costs
//                time, so the timed runs go without it)
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/clock.h"
#include "ingest/file_tailer.h"
#include "ingest/opensm_ingest.h"

namespace {

using namespace ibw::ingest;

constexpr size_t kBatch = 100000;  // FileTailer::poll's default, as daemon/threads.cpp polls

struct Tally {
  uint64_t lines = 0, events = 0, rediscover = 0;
  std::array<uint64_t, 4> by_kind{};  // trap, subnet_up, sweep, sm_error
  bool with_digest = false;
  uint64_t digest = 14695981039346656037ull;

  void mix(std::string_view s) {
    for (unsigned char c : s) digest = (digest ^ c) * 1099511628211ull;
    digest = (digest ^ 0xff) * 1099511628211ull;
  }
  void add(const OsmBatch& b) {
    lines += b.lines;
    rediscover += b.rediscover;
    for (const Event& e : b.events) {
      ++events;
      by_kind[0] += e.kind == kind::trap;
      by_kind[1] += e.kind == kind::subnet_up;
      by_kind[2] += e.kind == kind::sweep;
      by_kind[3] += e.kind == kind::sm_error;
      if (!with_digest) continue;
      mix(e.kind);
      mix(e.message);
      mix(e.dedup_key);
      // (the untimed heavy-sweep banner takes the poll's reference time: not compared)
      mix(std::to_string(e.kind == kind::sweep ? 0 : e.time_us) + " " +
          std::to_string(e.node_guid) + " " + std::to_string(e.lid) + " " + std::to_string(e.port) +
          " " + std::to_string(e.trap_number) + " " + std::to_string(static_cast<int>(e.severity)));
    }
  }
};

// The daemon's path before the prefilter: a std::string per line, every line parsed.
OsmBatch read_all_lines(FileTailer& tailer, const OsmLogContext& ctx) {
  OsmBatch b;
  for (const TailLine& line : tailer.poll(kBatch)) {
    ++b.lines;
    b.cursor = line.after;
    auto rec = parse_opensm_line(line.text, ctx);
    if (!rec) continue;
    if ((rec->kind == OsmRecordKind::trap && rec->trap_number == 128) ||
        (rec->kind == OsmRecordKind::notice &&
         rec->text.find("Link state change") != std::string::npos) ||
        rec->kind == OsmRecordKind::subnet_up)
      b.rediscover = true;
    auto ev = to_event(*rec);
    if (!ev) continue;
    ev->dedup_key = "opensm:" + line.after.serialize();
    b.events.push_back(std::move(*ev));
  }
  return b;
}

int usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s FILE [--all-lines] [--digest] [--utc-offset SECONDS]\n", argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const char* path = nullptr;
  bool all_lines = false;
  Tally tally;
  int utc_offset = 0;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--all-lines") {
      all_lines = true;
    } else if (a == "--digest") {
      tally.with_digest = true;
    } else if (a == "--utc-offset" && i + 1 < argc) {
      utc_offset = std::atoi(argv[++i]);
    } else if (!a.empty() && a[0] != '-' && !path) {
      path = argv[i];
    } else {
      return usage(argv[0]);
    }
  }
  if (!path) return usage(argv[0]);
  auto t0 = std::chrono::steady_clock::now();
  FileTailer tailer(path, std::nullopt);
  for (;;) {
    const OsmLogContext ctx{SystemClock().now_us(), utc_offset};  // per poll, as the daemon
    OsmBatch b = all_lines ? read_all_lines(tailer, ctx) : read_opensm_log(tailer, ctx, kBatch);
    if (b.lines == 0) break;
    tally.add(b);
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!tailer.error().empty()) {
    std::fprintf(stderr, "%s\n", tailer.error().c_str());
    return 2;
  }
  const auto& k = tally.by_kind;
  std::printf("events: %llu (trap %llu, subnet_up %llu, sweep %llu, sm_error %llu)",
              static_cast<unsigned long long>(tally.events), static_cast<unsigned long long>(k[0]),
              static_cast<unsigned long long>(k[1]), static_cast<unsigned long long>(k[2]),
              static_cast<unsigned long long>(k[3]));
  if (tally.with_digest)
    std::printf(", digest %016llx", static_cast<unsigned long long>(tally.digest));
  std::printf(", %llu polls with rediscovery\n", static_cast<unsigned long long>(tally.rediscover));
  std::printf("%llu lines in %.3f s: %.2f M lines/s (%s)\n",
              static_cast<unsigned long long>(tally.lines), s, tally.lines / s / 1e6,
              all_lines ? "FileTailer::poll + parse + to_event, every line"
                        : "read_opensm_log: FileTailer + prefilter + parse + to_event");
  return 0;
}
