// ibw-bench-opensm_ingest: the OpenSM log ingest path on one file, as the daemon runs it
// (FileTailer reads the lines in batches of 8192, parse_opensm_line parses each one, to_event
// maps the records).
// Prints the records and events by kind and the throughput. bench/bench_opensm_ingest.sh
// runs it next to `grep -c` on the same file.
//
// usage: ibw-bench-opensm_ingest FILE [--parse-only] [--utc-offset SECONDS]
//   --parse-only  read the file with a plain read() loop instead of FileTailer (parser cost)
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/clock.h"
#include "ingest/file_tailer.h"
#include "ingest/opensm_log.h"

namespace {

using namespace ibw::ingest;

struct Tally {
  uint64_t lines = 0;
  std::array<uint64_t, 6> records{};  // by OsmRecordKind
  uint64_t events = 0, trap_events = 0, subnet_up_events = 0, sweep_events = 0, error_events = 0;

  void add(std::string_view line, const OsmLogContext& ctx) {
    ++lines;
    auto record = parse_opensm_line(line, ctx);
    if (!record) return;
    ++records[static_cast<size_t>(record->kind)];
    auto event = to_event(*record);
    if (!event) return;
    ++events;
    trap_events += event->kind == kind::trap;
    subnet_up_events += event->kind == kind::subnet_up;
    sweep_events += event->kind == kind::sweep;
    error_events += event->kind == kind::sm_error;
  }
};

bool read_raw(const char* path, Tally& tally, const OsmLogContext& ctx) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::string buf;
  std::vector<char> chunk(1 << 20);
  for (ssize_t n; (n = read(fd, chunk.data(), chunk.size())) > 0;) {
    buf.append(chunk.data(), static_cast<size_t>(n));
    size_t start = 0;
    for (size_t nl; (nl = buf.find('\n', start)) != std::string::npos; start = nl + 1)
      tally.add(std::string_view(buf).substr(start, nl - start), ctx);
    buf.erase(0, start);
  }
  if (!buf.empty()) tally.add(buf, ctx);
  close(fd);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const char* path = nullptr;
  bool parse_only = false;
  int utc_offset = 0;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--parse-only") {
      parse_only = true;
    } else if (a == "--utc-offset" && i + 1 < argc) {
      utc_offset = std::atoi(argv[++i]);
    } else if (!a.empty() && a[0] != '-' && !path) {
      path = argv[i];
    } else {
      std::fprintf(stderr, "usage: %s FILE [--parse-only] [--utc-offset SECONDS]\n", argv[0]);
      return 2;
    }
  }
  if (!path) {
    std::fprintf(stderr, "usage: %s FILE [--parse-only] [--utc-offset SECONDS]\n", argv[0]);
    return 2;
  }
  const OsmLogContext ctx{SystemClock().now_us(), utc_offset};
  Tally tally;
  auto t0 = std::chrono::steady_clock::now();
  if (parse_only) {
    if (!read_raw(path, tally, ctx)) {
      std::fprintf(stderr, "cannot read %s: %s\n", path, std::strerror(errno));
      return 2;
    }
  } else {
    FileTailer tailer(path, std::nullopt);
    for (auto lines = tailer.poll(8192); !lines.empty(); lines = tailer.poll(8192))
      for (const auto& line : lines) tally.add(line.text, ctx);
    if (!tailer.error().empty()) {
      std::fprintf(stderr, "%s\n", tailer.error().c_str());
      return 2;
    }
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto& r = tally.records;
  std::printf(
      "records: trap %llu, notice %llu, subnet_up %llu, sweep %llu, error %llu, other %llu\n",
      static_cast<unsigned long long>(r[0]), static_cast<unsigned long long>(r[1]),
      static_cast<unsigned long long>(r[2]), static_cast<unsigned long long>(r[3]),
      static_cast<unsigned long long>(r[4]), static_cast<unsigned long long>(r[5]));
  std::printf("events: %llu (trap %llu, subnet_up %llu, sweep %llu, sm_error %llu)\n",
              static_cast<unsigned long long>(tally.events),
              static_cast<unsigned long long>(tally.trap_events),
              static_cast<unsigned long long>(tally.subnet_up_events),
              static_cast<unsigned long long>(tally.sweep_events),
              static_cast<unsigned long long>(tally.error_events));
  std::printf("%llu lines in %.3f s: %.2f M lines/s (%s)\n",
              static_cast<unsigned long long>(tally.lines), s, tally.lines / s / 1e6,
              parse_only ? "read() + parse + to_event" : "FileTailer + parse + to_event");
  return 0;
}
