// Store benchmark (issue 15): a day of the 200k-port telemetry lab written through the real
// Store API on a simulated clock ending now, as the daemon writes it
// (daemon/sources/ufm_telemetry.cpp and counter_ingest.cpp; daemon/generation.cpp, maybe_compact):
//  - every scrape (default 60 s): one WriteBatch with a CounterSample per port, the port
//    counter readings as WriteBatch::port_counters (every port: its counters change; the
//    first scrape writes whole records, as discovery would have), and the
//    events CounterTracker makes of them (counter_jump on error bursts);
//  - UFM link events for flaps (link_down, then link_up a scrape later), in their own batch
//    with the UFM cursor, as the UFM event poller writes them;
//  - compact() with the default retention on the daemon's schedule: at the first scrape, then
//    every hour.
// Counters: per port a steady packet rate (log-uniform 10^3..10^6 pps) with +-5% noise per
// scrape on PortXmitPkts / PortRcvPkts; PortXmitWait grows on one port in five; error
// counters stay at 0 except in bursts. --data adds PortXmitData / PortRcvData (the MAD poller
// reads them; UFM Telemetry's primary set has no IBA data counters).
// Prints one JSON line: samples written, write time (total, median and max per scrape),
// compaction time, samples/s.
// Usage: ibw-bench-store_day --db PATH [--ports N] [--hours H] [--interval-s S]
//        [--bursts-per-hour N] [--flaps-per-hour N] [--data] [--seed N]
// ibw-bench-store_day --db PATH --events-since-s S: what `ibwarden events --since S
// --format json` does after loading its config (read-only open, query, JSON), for timing the
// store alone.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/store_fabric.h"
#include "ingest/counter_tracker.h"
#include "store/record_json.h"
#include "store/store.h"

using namespace ibw;
using ingest::Counter;

namespace {

struct Args {
  std::string db;
  size_t ports = 200'000;
  double hours = 24;
  int64_t interval_s = 60;
  double bursts_per_hour = 200;  // error bursts across the fabric
  double flaps_per_hour = 20;
  bool data = false;
  unsigned seed = 15;
  int64_t events_since_s = 0;
};

constexpr size_t idx(Counter c) {
  return static_cast<size_t>(c);
}
using bench::kGuidBase;
using bench::kPortsPerNode;
using bench::seconds_since;

// "sw00042": switch names of one length.
std::string switch_name(size_t node) {
  char name[32];
  std::snprintf(name, sizeof name, "sw%05zu", node);
  return name;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (k == "--db")
      a.db = next();
    else if (k == "--ports")
      a.ports = std::stoul(next());
    else if (k == "--hours")
      a.hours = std::stod(next());
    else if (k == "--interval-s")
      a.interval_s = std::stoll(next());
    else if (k == "--bursts-per-hour")
      a.bursts_per_hour = std::stod(next());
    else if (k == "--flaps-per-hour")
      a.flaps_per_hour = std::stod(next());
    else if (k == "--data")
      a.data = true;
    else if (k == "--seed")
      a.seed = static_cast<unsigned>(std::stoul(next()));
    else if (k == "--events-since-s")
      a.events_since_s = std::stoll(next());
    else {
      std::fprintf(stderr, "unknown argument %s\n", k.c_str());
      return 2;
    }
  }
  if (a.db.empty() || a.ports == 0) {
    std::fprintf(stderr, "usage: ibw-bench-store_day --db PATH [--ports N] [--hours H]\n");
    return 2;
  }
  if (a.events_since_s > 0) {
    auto ro = store::Store::open(a.db, /*read_only=*/true);
    store::EventQuery q;
    q.since_us = std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count() -
                 a.events_since_s * 1'000'000;
    q.limit = 100'000;
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& e : ro->events(q)) out.push_back(store::event_json(e));
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  const int64_t interval_us = a.interval_s * 1'000'000;
  const auto scrapes = static_cast<int64_t>(std::llround(a.hours * 3600 / a.interval_s));
  const int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const int64_t start_us = now_us - (scrapes - 1) * interval_us;

  std::mt19937_64 rng(a.seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::normal_distribution<double> noise(0, 0.05);
  std::vector<store::PortRecord> records(a.ports);
  std::vector<double> pps(a.ports);
  std::vector<bool> waits(a.ports);
  std::vector<ingest::CounterSample> last(a.ports);
  for (size_t i = 0; i < a.ports; ++i) {
    records[i] = bench::port_record(i, switch_name);
    pps[i] = std::pow(10.0, 3 + 3 * unit(rng));
    waits[i] = unit(rng) < 0.2;
    ingest::CounterSample& c = last[i];
    c.node_guid = records[i].node_guid;
    c.port = records[i].port;
    c.extended = true;
    for (size_t k = 0; k < ingest::kCounterCount; ++k) {
      const auto ctr = static_cast<Counter>(k);
      if (!a.data && (ctr == Counter::PortXmitData || ctr == Counter::PortRcvData)) continue;
      c.valid |= 1u << k;
    }
    c.value[idx(Counter::PortXmitPkts)] = static_cast<uint64_t>(pps[i] * 86400 * 30 * unit(rng));
    c.value[idx(Counter::PortRcvPkts)] = static_cast<uint64_t>(pps[i] * 86400 * 30 * unit(rng));
    if (a.data) {
      c.value[idx(Counter::PortXmitData)] = c.value[idx(Counter::PortXmitPkts)] * 256;
      c.value[idx(Counter::PortRcvData)] = c.value[idx(Counter::PortRcvPkts)] * 256;
    }
  }

  auto db = store::Store::open(a.db);
  ingest::CounterTracker tracker;
  store::Retention retention;  // the daemon's defaults (config/config.h)
  std::vector<double> write_s;
  double compact_s = 0;
  size_t events = 0, samples = 0;
  std::vector<std::pair<size_t, int64_t>> flapped;  // port, time it went down
  std::poisson_distribution<int> bursts(a.bursts_per_hour * a.interval_s / 3600.0);
  std::poisson_distribution<int> flaps(a.flaps_per_hour * a.interval_s / 3600.0);
  int64_t ufm_cursor = 0;
  const auto t_all = std::chrono::steady_clock::now();
  for (int64_t s = 0; s < scrapes; ++s) {
    const int64_t t = start_us + s * interval_us;
    if (s % std::max<int64_t>(1, 3600 / a.interval_s) == 0) {
      const auto t0 = std::chrono::steady_clock::now();
      db->compact(t, retention);
      compact_s += seconds_since(t0);
    }
    // A scrape: UFM stamps every row of it with its collection time (+ up to 50 ms jitter).
    const int64_t scrape_time = t + static_cast<int64_t>(unit(rng) * 50'000);
    for (size_t i = 0; i < a.ports; ++i) {
      ingest::CounterSample& c = last[i];
      c.time_us = scrape_time;
      for (Counter k : {Counter::PortXmitPkts, Counter::PortRcvPkts}) {
        const double d = pps[i] * static_cast<double>(a.interval_s) * (1 + noise(rng));
        c.value[idx(k)] += static_cast<uint64_t>(std::max(0.0, d));
      }
      if (a.data) {  // 4-octet units, packets of ~1 KiB
        for (Counter k : {Counter::PortXmitData, Counter::PortRcvData})
          c.value[idx(k)] += static_cast<uint64_t>(
              std::max(0.0, pps[i] * static_cast<double>(a.interval_s) * 256 * (1 + noise(rng))));
      }
      if (waits[i])
        c.value[idx(Counter::PortXmitWait)] += static_cast<uint64_t>(unit(rng) * 50'000);
    }
    for (int b = bursts(rng); b > 0; --b) {  // an error burst on a random port
      ingest::CounterSample& c = last[rng() % a.ports];
      const auto n = static_cast<uint64_t>(std::pow(10.0, 4 * unit(rng)));
      c.value[idx(Counter::SymbolErrorCounter)] += n;
      c.value[idx(Counter::PortRcvErrors)] += n / 3;
      c.value[idx(Counter::LinkErrorRecoveryCounter)] += n > 1000 ? 1 : 0;
    }
    store::WriteBatch ufm;
    for (auto& [port, down_us] : flapped) {  // up again a scrape later
      ingest::Event e;
      e.time_us = scrape_time;
      e.source = ingest::EventSource::ufm;
      e.kind = ingest::kind::link_up;
      e.node_guid = records[port].node_guid;
      e.port = records[port].port;
      e.message = "Link went up";
      e.dedup_key = "ufm:" + std::to_string(++ufm_cursor);
      ufm.events.push_back(std::move(e));
    }
    flapped.clear();
    for (int f = flaps(rng); f > 0; --f) {
      const size_t port = rng() % a.ports;
      last[port].value[idx(Counter::LinkDownedCounter)] += 1;
      ingest::Event e;
      e.time_us = scrape_time;
      e.source = ingest::EventSource::ufm;
      e.kind = ingest::kind::link_down;
      e.severity = ingest::Severity::error;
      e.node_guid = records[port].node_guid;
      e.port = records[port].port;
      e.node = records[port].node;
      e.peer_node = records[port].peer_node;
      e.peer_port = records[port].peer_port;
      e.peer_guid = records[port].peer_guid;
      e.cable_id = records[port].cable_id;
      e.message = "Link went down";
      e.dedup_key = "ufm:" + std::to_string(++ufm_cursor);
      ufm.events.push_back(std::move(e));
      flapped.emplace_back(port, scrape_time);
    }
    ufm.cursors.emplace_back("ufm", std::to_string(ufm_cursor));
    store::WriteBatch batch;
    if (s == 0) batch.samples = last;  // then: each reading's sample, in port_counters
    batch.port_counters.reserve(a.ports);
    for (size_t i = 0; i < a.ports; ++i) {
      ingest::CounterDelta d = tracker.update(last[i], &batch.events);
      store::set_counters(records[i], d);  // as PortTable::apply_counters
      if (s == 0)
        batch.ports.push_back(records[i]);  // the first: the rows discovery would have written
      else
        batch.port_counters.push_back(std::move(d));
    }
    for (auto& e : batch.events)
      e.dedup_key = "counters:" + e.kind + ":" + std::to_string(e.node_guid) + ":" +
                    std::to_string(e.port) + ":" + std::to_string(e.time_us);
    const auto t0 = std::chrono::steady_clock::now();
    events += db->write(batch).events_inserted;
    if (!ufm.events.empty()) events += db->write(ufm).events_inserted;
    write_s.push_back(seconds_since(t0));
    samples += batch.samples.size() + batch.port_counters.size();
    if (s % 60 == 59)
      std::fprintf(stderr, "scrape %" PRId64 "/%" PRId64 ": last write %.3f s\n", s + 1, scrapes,
                   write_s.back());
  }
  const double total_s = seconds_since(t_all);
  double write_total = 0;
  for (double w : write_s) write_total += w;
  std::vector<double> sorted = write_s;
  std::sort(sorted.begin(), sorted.end());
  std::printf("{\"ports\":%zu,\"scrapes\":%" PRId64
              ",\"samples\":%zu,\"events\":%zu,\"write_s\":%.3f,\"write_median_s\":%.4f,"
              "\"write_max_s\":%.4f,\"compact_s\":%.3f,\"total_s\":%.3f,\"samples_per_s\":%.0f,"
              "\"end_us\":%" PRId64 "}\n",
              a.ports, scrapes, samples, events, write_total, sorted[sorted.size() / 2],
              sorted.back(), compact_s, total_s, static_cast<double>(samples) / write_total,
              now_us);
  return 0;
}
