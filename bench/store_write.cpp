// Store write throughput (issue 17, bench/bench_store.sh): events and counter samples written
// through Store::write in the batches the daemon writes, on either backend, so that SQLite and
// PostgreSQL can be compared side by side.
//  - events: --event-batches batches of --events-per-batch events (unique dedup keys, every
//    field set, as the log sources write them) with the source's cursor;
//  - counter sweeps: whole port records for --ports ports first (as discovery writes them, not
//    timed), then --sweeps sweeps, each one batch with a CounterSample per port, the ports'
//    counter readings (WriteBatch::port_counters) and the poller's cursor, as
//    daemon/threads.cpp writes a MAD counter sweep.
// Prints one JSON line: counts, seconds, events/s, samples/s, median and max batch times.
// Usage: ibw-bench-store_write (--db PATH | --url LIBPQ_URL) [--fabric NAME]
//        [--event-batches N] [--events-per-batch N] [--ports N] [--sweeps N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/store_fabric.h"
#include "store/store.h"

using namespace ibw;

namespace store_write_detail {

struct Args {
  store::StoreSpec spec;
  int event_batches = 20;
  int events_per_batch = 1000;
  size_t ports = 20'000;
  int sweeps = 10;
};

using bench::kGuidBase;
using bench::kPortsPerNode;
using bench::seconds_since;
constexpr int64_t kT0 = 1'760'000'000'000'000;  // 2025-10-09

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

ingest::Event event(int batch, int i) {
  ingest::Event e;
  e.time_us = kT0 + static_cast<int64_t>(batch) * 1'000'000 + i;
  e.source = ingest::EventSource::opensm;
  e.kind = i % 3 ? "link_down" : "trap";
  e.severity = ingest::Severity::warning;
  const int node = i % 640;
  e.node_guid = kGuidBase + static_cast<uint64_t>(node);
  e.port = i % kPortsPerNode + 1;
  e.lid = static_cast<uint16_t>(node + 1);
  e.trap_number = 128;
  e.node = "sw" + std::to_string(node);
  e.peer_node = "sw" + std::to_string(node ^ 1);
  e.peer_port = e.port;
  e.peer_guid = kGuidBase + static_cast<uint64_t>(node ^ 1);
  e.cable_id = "C" + std::to_string(node) + "-" + std::to_string(e.port);
  e.message = "Trap 128: link state changed on " + e.node + "/" + std::to_string(e.port);
  e.dedup_key = "opensm:" + std::to_string(batch) + ":" + std::to_string(i);
  return e;
}

std::string switch_name(size_t node) {
  return "sw" + std::to_string(node);
}

// Port i's reading at sweep s: packet counters growing by a per-port rate, errors rare.
ingest::CounterDelta reading(size_t i, int s) {
  ingest::CounterDelta d;
  ingest::CounterSample& c = d.sample;
  c.node_guid = kGuidBase + i / kPortsPerNode;
  c.port = static_cast<int>(i % kPortsPerNode) + 1;
  c.time_us = kT0 + static_cast<int64_t>(s) * 60'000'000;
  c.extended = true;
  c.valid = (1u << ingest::kCounterCount) - 1;
  const uint64_t rate = 1000 + (i * 7919) % 1'000'000;
  for (size_t k = 0; k < ingest::kCounterCount; ++k) {
    c.value[k] = k < 12 ? (i + k) % 3 * static_cast<uint64_t>(s) : rate * 60 * (s + 1) * (k + 1);
    d.delta[k] = k < 12 ? (i + k) % 3 : rate * 60 * (k + 1);
    d.rate[k] = static_cast<double>(d.delta[k]) / 60.0;
  }
  d.valid = c.valid;
  d.interval_us = 60'000'000;
  return d;
}

}  // namespace store_write_detail

using namespace store_write_detail;

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (k == "--db") {
      a.spec.backend = "sqlite";
      a.spec.path = next();
    } else if (k == "--url") {
      a.spec.backend = "postgres";
      a.spec.url = next();
    } else if (k == "--fabric") {
      a.spec.fabric = next();
    } else if (k == "--event-batches") {
      a.event_batches = std::stoi(next());
    } else if (k == "--events-per-batch") {
      a.events_per_batch = std::stoi(next());
    } else if (k == "--ports") {
      a.ports = std::stoul(next());
    } else if (k == "--sweeps") {
      a.sweeps = std::stoi(next());
    } else {
      std::fprintf(stderr, "unknown argument %s\n", k.c_str());
      return 2;
    }
  }
  if (a.spec.path.empty() && a.spec.url.empty()) {
    std::fprintf(stderr, "usage: ibw-bench-store_write (--db PATH | --url LIBPQ_URL) ...\n");
    return 2;
  }
  try {
    auto db = store::Store::open(a.spec);

    std::vector<double> event_s;
    size_t events = 0;
    for (int b = 0; b < a.event_batches; ++b) {
      store::WriteBatch batch;
      for (int i = 0; i < a.events_per_batch; ++i) batch.events.push_back(event(b, i));
      batch.cursors = {{"opensm", "inode:1:offset:" + std::to_string(b)}};
      const auto t0 = std::chrono::steady_clock::now();
      events += db->write(batch).events_inserted;
      event_s.push_back(seconds_since(t0));
    }

    store::WriteBatch ports;
    for (size_t i = 0; i < a.ports; ++i) ports.ports.push_back(bench::port_record(i, switch_name));
    db->write(ports);
    std::vector<double> sweep_s;
    size_t samples = 0;
    for (int s = 0; s < a.sweeps; ++s) {
      store::WriteBatch batch;
      for (size_t i = 0; i < a.ports; ++i) {
        batch.port_counters.push_back(reading(i, s));  // stored as a sample too
      }
      batch.cursors = {{"counters", std::to_string(s)}};
      const auto t0 = std::chrono::steady_clock::now();
      db->write(batch);
      sweep_s.push_back(seconds_since(t0));
      samples += a.ports;
    }

    double ev_total = 0, sw_total = 0;
    for (double x : event_s) ev_total += x;
    for (double x : sweep_s) sw_total += x;
    std::printf(
        "{\"backend\":\"%s\",\"events\":%zu,\"events_s\":%.3f,\"events_per_s\":%.0f,"
        "\"event_batch_median_ms\":%.1f,\"event_batch_max_ms\":%.1f,\"samples\":%zu,"
        "\"samples_s\":%.3f,\"samples_per_s\":%.0f,\"sweep_median_ms\":%.1f,"
        "\"sweep_max_ms\":%.1f}\n",
        a.spec.backend.c_str(), events, ev_total, ev_total > 0 ? events / ev_total : 0,
        median(event_s) * 1e3,
        event_s.empty() ? 0 : *std::max_element(event_s.begin(), event_s.end()) * 1e3, samples,
        sw_total, sw_total > 0 ? samples / sw_total : 0, median(sweep_s) * 1e3,
        sweep_s.empty() ? 0 : *std::max_element(sweep_s.begin(), sweep_s.end()) * 1e3);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ibw-bench-store_write: %s\n", e.what());
    return 1;
  }
  return 0;
}
