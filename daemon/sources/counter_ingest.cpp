// The counter-ingest path of both counter sources (daemon/sources/counter_ingest.h).
#include "daemon/sources/counter_ingest.h"

#include "fabric/prefetch.h"

namespace ibw::daemon {

namespace {

ingest::TrackerOptions tracker_options(const CounterIngest::Options& o) {
  ingest::TrackerOptions t;
  t.jump_threshold = o.jump_threshold;
  return t;
}

}  // namespace

CounterIngest::CounterIngest(Options options)
    : options_(options), tracker_(tracker_options(options)) {}

void CounterIngest::seed(const std::vector<ingest::CounterSample>& samples) {
  for (const auto& s : samples) tracker_.seed(s);
}

void CounterIngest::key_events(const PortTable& ports, std::vector<ingest::Event>& events) const {
  for (auto& e : events) {
    if (e.kind == ingest::kind::port_unresponsive) {
      // Keyed on the last answer, not the sweep: a restart re-detecting the same dead port
      // must not report it again.
      auto rec = ports.get(e.node_guid, e.port);
      e.dedup_key = "counters:port_unresponsive:" + std::to_string(e.node_guid) + ":" +
                    std::to_string(e.port) +
                    ":since:" + std::to_string(rec ? rec->counters.time_us : 0);
    }
    if (e.dedup_key.empty())
      e.dedup_key = "counters:" + e.kind + ":" + std::to_string(e.node_guid) + ":" +
                    std::to_string(e.port) + ":" + std::to_string(e.time_us);
  }
}

CounterIngest::Result CounterIngest::ingest(SourceContext& ctx,
                                            const std::shared_ptr<const Topology>& topo,
                                            std::vector<ingest::CounterSample> samples,
                                            const std::vector<ingest::PollTarget>& unresponsive,
                                            int64_t started_us) {
  Result out;
  PortTable& ports = ctx.fabric().ports;
  Published p = ctx.publish(topo, {}, [&](store::WriteBatch& batch) {
    // Each reading is held once, in its delta: the store writes the deltas' samples too
    // (WriteBatch::port_counters), so the samples die here, not after the store write (issue
    // 32 item 2: 69 MB less from ingest to the end of a 393k-port scrape's write).
    std::vector<ingest::CounterDelta> deltas;
    deltas.reserve(samples.size());
    fabric::populate_for_write(deltas.data(), deltas.capacity() * sizeof(ingest::CounterDelta));
    // Each delta is written in place, not copied (472 bytes a reading).
    const auto& fabric = topo->correlator;  // (read only when fresh_only, as before)
    constexpr size_t kAhead = 16;  // the fabric's ports are in topology order, not the scrape's
    for (size_t i = 0; i < samples.size(); ++i) {
      const ingest::CounterSample& s = samples[i];
      if (!options_.fresh_only) {
        tracker_.update(s, &batch.events, deltas.emplace_back());
        continue;
      }
      if (i + kAhead < samples.size())
        fabric->prefetch_port(samples[i + kAhead].node_guid, samples[i + kAhead].port);
      if (!fabric->has_port(s.node_guid, s.port)) continue;  // not in the fabric
      if (!tracker_.update_newer(s, &batch.events, deltas.emplace_back()))
        deltas.pop_back();  // the same reading again
    }
    std::vector<ingest::CounterSample>().swap(samples);
    for (const auto& t : unresponsive)
      tracker_.unresponsive(t.node_guid, t.port, started_us, &batch.events);
    if (options_.keyed) key_events(ports, batch.events);
    enrich_all(topo.get(), batch.events);
    ports.apply_counters(deltas);
    batch.port_counters = std::move(deltas);
    out.samples = store::stored_sample_count(batch);
    out.events = batch.events.size();
  });
  out.queued = p.queued;
  out.evaluate_us = p.evaluate_us;
  out.evaluate_parts = p.evaluate_parts;
  return out;
}

}  // namespace ibw::daemon
