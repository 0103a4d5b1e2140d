#include "rules/replay.h"

#include <map>

namespace ibw::rules {

void replay(RuleRunner& runner, const std::vector<LinkInfo>& links, const Recording& in,
            const OnVerdict& on_verdict, IncidentTracker* incidents) {
  ingest::CounterTracker tracker;
  std::map<uint64_t, ingest::CounterSample> last;  // guid*256+port -> last sample
  auto evaluate = [&](int64_t now) {
    for (const auto& v : runner.evaluate(links, now))
      on_verdict(v, last[v.node_guid * 256 + static_cast<uint64_t>(v.port)], now);
  };
  if (incidents) incidents->learn(links);
  auto add_event = [&](const ingest::Event& e) {
    bool opened = incidents && !incidents->add({e}).empty();
    if (runner.add_events({e}) || opened) evaluate(e.time_us);
  };
  const auto& samples = in.samples;
  size_t ei = 0;
  std::vector<ingest::Event> tracker_events;  // jumps: not replayed (the store has the events)
  for (size_t i = 0; i < samples.size(); ++i) {
    const auto& s = samples[i];
    for (; ei < in.events.size() && in.events[ei].time_us <= s.time_us; ++ei)
      add_event(in.events[ei]);
    tracker_events.clear();
    runner.add_deltas({tracker.update(s, &tracker_events)});
    last[s.node_guid * 256 + static_cast<uint64_t>(s.port)] = s;
    if (i + 1 == samples.size() || samples[i + 1].time_us - s.time_us > 1'000'000)
      evaluate(s.time_us);
  }
  for (; ei < in.events.size(); ++ei) add_event(in.events[ei]);
}

}  // namespace ibw::rules
