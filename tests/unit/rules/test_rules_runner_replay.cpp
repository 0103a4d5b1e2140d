// `ibwarden replay` and the daemon run one rule engine (rules::RuleRunner): the same recorded
// input (OpenSM link events, UFM link events, counter sweeps) gives the same verdicts through
// rules::replay (the engine of cmd_replay) as through the runner fed the way the daemon feeds
// it, batch by batch. The input holds one flap that OpenSM and UFM both reported: the daemon
// counts it once, and so must replay (it once counted it twice and disabled the link).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "daemon/topology.h"
#include "ingest/counter_tracker.h"
#include "rules/replay.h"
#include "rules/runner.h"
#include "tests/unit/test_fabrics.h"

namespace rules_runner_replay_test {

using namespace ibw;
using ingest::Counter;
using ingest::EventSource;

constexpr int64_t kT0 = 1'700'000'000'000'000;
constexpr int64_t kSec = 1'000'000;

const char* kRules =
    "rules:\n"
    "  - {name: flap, type: link_flap, action: disable, severity: error, confirm: none,\n"
    "     cycles: 2, window: 10m}\n"
    "  - {name: jump, type: symbol_errors, action: work_order, severity: warning,\n"
    "     confirm: none, jump: 50}\n";

// A link_down (down) or link_up of leaf000's port, s seconds after kT0.
struct Link {
  EventSource source;
  int port;
  int s;
  bool down;
  ingest::Event event() const {
    ingest::Event e;
    e.source = source;
    e.kind = std::string(down ? ingest::kind::link_down : ingest::kind::link_up);
    e.node_guid = test_fabric::leaf_guid(0);
    e.port = port;
    e.time_us = kT0 + s * kSec;
    return e;
  }
};

ingest::CounterSample sample(uint64_t guid, int port, int64_t t, uint64_t symbol_errors) {
  ingest::CounterSample s;
  s.time_us = t;
  s.node_guid = guid;
  s.port = port;
  s.valid = (1u << ingest::kCounterCount) - 1;
  s.value[static_cast<size_t>(Counter::SymbolErrorCounter)] = symbol_errors;
  return s;
}

using Seen = std::set<std::tuple<std::string, uint64_t, int>>;  // rule, node, port

void note(Seen& seen, const std::vector<rules::Verdict>& verdicts) {
  for (const auto& v : verdicts) seen.emplace(v.rule, v.node_guid, v.port);
}

TEST_CASE("rules runner: replay and the daemon's runner give the same verdicts",
          "[rules][replay]") {
  auto topo = daemon::make_topology(test_fabric::two_tier(2, 2, 2), nullptr, kT0);
  const uint64_t leaf = test_fabric::leaf_guid(0);
  // leaf000/3: one flap, reported by OpenSM and by UFM (2 s and 1 s apart): one cycle.
  // leaf000/4: two flaps, OpenSM only: two cycles. leaf000/1: 100 symbol errors in a sweep.
  const std::vector<std::vector<Link>> sources = {
      {{EventSource::opensm, 3, 30, true}},
      {{EventSource::ufm, 3, 32, true}},
      {{EventSource::opensm, 3, 33, false}},
      {{EventSource::ufm, 3, 34, false}},
      {{EventSource::opensm, 4, 40, true}, {EventSource::opensm, 4, 41, false}},
      {{EventSource::opensm, 4, 44, true}, {EventSource::opensm, 4, 45, false}},
  };
  std::vector<std::vector<ingest::Event>> batches;  // as each source hands them over
  for (const auto& batch : sources) {
    batches.emplace_back();
    for (const auto& l : batch) batches.back().push_back(l.event());
  }
  std::vector<std::vector<ingest::CounterSample>> sweeps;
  for (int i = 0; i < 3; ++i) {
    int64_t t = kT0 + i * 60 * kSec;
    sweeps.push_back(
        {sample(leaf, 1, t, i ? 100 : 0), sample(leaf, 3, t, 0), sample(leaf, 4, t + 1000, 0)});
  }

  // The daemon: each source hands its batch over when it has it; the counter thread hands a
  // whole sweep's deltas; the rules are evaluated after each.
  rules::RuleRunner live(rules::parse_rules(kRules, "rules.yaml"));
  ingest::CounterTracker tracker;
  Seen daemon_saw;
  size_t b = 0;
  for (const auto& sweep : sweeps) {
    int64_t t = sweep.front().time_us;
    for (; b < batches.size() && batches[b].front().time_us <= t; ++b)
      if (live.add_events(batches[b])) note(daemon_saw, live.evaluate(topo->links, t));
    std::vector<ingest::CounterDelta> deltas;
    std::vector<ingest::Event> jumps;
    for (const auto& s : sweep) deltas.push_back(tracker.update(s, &jumps));
    live.add_deltas(deltas);
    note(daemon_saw, live.evaluate(topo->links, sweep.back().time_us));
    for (; b < batches.size() && batches[b].back().time_us < t + 60 * kSec; ++b)
      if (live.add_events(batches[b]))
        note(daemon_saw, live.evaluate(topo->links, batches[b].back().time_us));
  }

  // Replay: the same input as the store gives it back, every kind in time order.
  rules::Recording rec;
  for (const auto& sweep : sweeps)
    rec.samples.insert(rec.samples.end(), sweep.begin(), sweep.end());
  for (const auto& batch : batches) rec.events.insert(rec.events.end(), batch.begin(), batch.end());
  std::sort(rec.events.begin(), rec.events.end(),
            [](const auto& x, const auto& y) { return x.time_us < y.time_us; });
  rules::RuleRunner replayed(rules::parse_rules(kRules, "rules.yaml"));
  Seen replay_saw;
  rules::replay(replayed, topo->links, rec,
                [&](const rules::Verdict& v, const ingest::CounterSample& last, int64_t) {
                  replay_saw.emplace(v.rule, v.node_guid, v.port);
                  if (v.rule == "jump")  // the sample that fired it goes to the guard
                    CHECK((last.node_guid == leaf && last.port == 1 && last.time_us > kT0));
                });

  // The flap on leaf000/4 also shows at its peer's end (spine001/1 sees it as from_peer).
  const Seen expected = {
      {"flap", leaf, 4}, {"flap", test_fabric::spine_guid(1), 1}, {"jump", leaf, 1}};
  CHECK(daemon_saw == expected);
  CHECK(replay_saw == expected);  // not {"flap", leaf, 3}: that flap counts once
  CHECK(replay_saw == daemon_saw);
}

}  // namespace rules_runner_replay_test
