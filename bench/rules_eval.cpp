// ibw-bench-rules_eval: the daemon's rule path for one counter sweep of PORTS linked ports
// (default 100,000 = 50,000 links, listed node by node as the daemon's topology lists them)
// with the shipped config/rules.yaml, as RuleRunner runs it:
//   ingest  rules::History::add_deltas of the sweep's deltas (one per port);
//   eval    History::prune(now), History::windows over every linked port, rules::evaluate.
// The history starts with 11 sweeps (60 s apart) and each timed run adds the next one, so
// every run sees a full 12-minute window as the daemon does in steady state. Four fabrics:
//   clean   no port has errors (the usual case; data counters still move);
//   1%      one port in 100 failing symbol_ber (errors in every sweep of the window), its peer
//           clean;
//   below   every port with a few errors in every sweep, under every threshold;
//   all     every port failing symbol_ber: one verdict each;
//   busy    a busy large fabric, as the k=64 telemetry lab serves it: PortXmitWait rises on
//           every port every sweep (far under any congestion limit: no history entry, see
//           rules::xmit_wait_min_rate; they were kept for a minute before) and
//           6% of ports gain 1-3 symbol errors per sweep, a different 6% each time, so half
//           of the ports have a few errors somewhere in the 12-minute window.
// For each case, the median of RUNS runs (default 7, after one warm-up) of ingest + eval,
// and of each part. Also the heap the history holds in steady state (glibc mallinfo2).
// Output: a human line, then a machine line per case:
//   CASE<TAB>name<TAB>total_ms<TAB>ingest_ms<TAB>eval_ms<TAB>windows<TAB>verdicts<TAB>history_kib
// Usage: ibw-bench-rules_eval [PORTS [RUNS [CASE]]]   (CASE 0-4: run only that one)
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "rules/history.h"
#include "rules/rules.h"
#include "tests/test_paths.h"

namespace {

using namespace ibw;
using Clock = std::chrono::steady_clock;

constexpr int64_t kSweepUs = 60'000'000;
constexpr int64_t kStart = int64_t{1'800'000'000} * 1'000'000;

std::vector<rules::LinkInfo> make_links(int ports) {
  std::vector<rules::LinkInfo> links;
  links.reserve(static_cast<size_t>(ports));
  for (int i = 0; i < ports / 2; ++i) {
    uint64_t a = 0x1000 + static_cast<uint64_t>(i / 32),
             b = 0x900000 + static_cast<uint64_t>(i / 32);
    int pa = 1 + i % 32, pb = 1 + i % 32;
    for (int end = 0; end < 2; ++end) {
      rules::LinkInfo l;
      l.node_guid = end ? b : a, l.port = end ? pb : pa;
      l.peer_guid = end ? a : b, l.peer_port = end ? pa : pb;
      l.active_width = l.enabled_width = 4;
      l.active_speed = l.enabled_speed = fabric::Speed::hdr;
      links.push_back(l);
    }
  }
  // As the daemon's topology lists them: node by node (a link's two ends far apart), with
  // each link's peer_index set.
  std::stable_sort(links.begin(), links.end(),
                   [](const auto& x, const auto& y) { return x.node_guid < y.node_guid; });
  rules::link_peers(links);
  return links;
}

// Whether port `l` is one of every `every` ports with errors (0: none): all ports for 1; else
// the first end of every (every / 2)-th link, so that its peer stays clean (and comes along
// as the peer's window) wherever the list puts the two ends.
bool failing(const rules::LinkInfo& l, int every) {
  if (every <= 1) return every == 1;
  uint64_t link = (l.node_guid & 0xfffff) * 32 + static_cast<uint64_t>(l.port - 1);
  return l.node_guid < l.peer_guid && link % static_cast<uint64_t>(every / 2) == 0;
}

// A number from 0 to 999 for port i in sweep s (a fixed hash: the same every run).
uint64_t draw(size_t i, int s) {
  uint64_t x = (static_cast<uint64_t>(i) << 20) ^ static_cast<uint64_t>(s) * 0x9e3779b97f4a7c15u;
  x ^= x >> 33, x *= 0xff51afd7ed558ccdu, x ^= x >> 33;
  return x % 1000;
}

// One sweep's deltas: every port's data counters moved; the failing() ports also have
// `symbols` symbol errors and one PortRcvErrors. Busy (sweep s): every port waits, and the
// ports draw() puts under 60 have 1-3 symbol errors.
std::vector<ingest::CounterDelta> make_sweep(const std::vector<rules::LinkInfo>& links, int every,
                                             uint64_t symbols, bool busy = false, int s = 0) {
  std::vector<ingest::CounterDelta> out(links.size());
  for (size_t i = 0; i < links.size(); ++i) {
    auto& d = out[i];
    d.sample.node_guid = links[i].node_guid, d.sample.port = links[i].port;
    d.valid = (1u << ingest::kCounterCount) - 1;
    d.interval_us = kSweepUs;  // rules derive rates from it
    d.delta[static_cast<size_t>(ingest::Counter::PortXmitData)] = 1'000'000;
    d.delta[static_cast<size_t>(ingest::Counter::PortRcvData)] = 1'000'000;
    if (failing(links[i], every)) {
      d.delta[static_cast<size_t>(ingest::Counter::SymbolErrorCounter)] = symbols;
      d.delta[static_cast<size_t>(ingest::Counter::PortRcvErrors)] = 1;
    }
    if (!busy) continue;
    const uint64_t r = draw(i, s);
    d.delta[static_cast<size_t>(ingest::Counter::PortXmitWait)] = 100 + r;
    if (r < 60) d.delta[static_cast<size_t>(ingest::Counter::SymbolErrorCounter)] = 1 + r % 3;
  }
  return out;
}

void stamp(std::vector<ingest::CounterDelta>& sweep, int64_t t) {
  for (auto& d : sweep) d.sample.time_us = t;
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}
// Bytes the heap holds (small chunks and mmapped ones).
size_t heap_bytes() {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}
// One timed sweep: the sweep's add_deltas, then prune, windows and evaluate. Not inlined,
// so `valgrind --tool=callgrind --toggle-collect='*one_sweep*'` counts just this.
struct SweepResult {
  double ingest_ms = 0, eval_ms = 0;
  size_t windows = 0, verdicts = 0;
};
[[gnu::noinline]] SweepResult one_sweep(rules::History& h, const rules::RuleSet& rules,
                                        const std::vector<rules::LinkInfo>& links,
                                        const std::vector<ingest::CounterDelta>& sweep,
                                        int64_t now) {
  SweepResult r;
  auto t0 = Clock::now();
  h.add_deltas(sweep);
  r.ingest_ms = ms_since(t0);
  auto t1 = Clock::now();
  {  // freeing the windows and verdicts is part of the sweep too
    h.prune(now);
    auto w = h.windows(links);
    auto v = rules::evaluate(rules, w, now);
    r.windows = w.size(), r.verdicts = v.size();
  }
  r.eval_ms = ms_since(t1);
  return r;
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int ports = argc > 1 ? std::atoi(argv[1]) : 100'000;
  int runs = std::max(1, argc > 2 ? std::atoi(argv[2]) : 7);
  rules::RuleSet rules = rules::load_rules(std::string(IBW_SOURCE_DIR) + "/config/rules.yaml");
  auto links = make_links(ports);
  std::printf(
      "rules per sweep (add_delta + prune + windows + evaluate), %zu linked ports, "
      "%zu rules (config/rules.yaml), median of %d runs:\n",
      links.size(), rules.rules.size(), runs);
  struct Case {
    const char* name;
    int every;         // every n-th port has errors (0: none)
    uint64_t symbols;  // per sweep: 300 crosses BER 1e-12 at 4x HDR over 12 m, 3 does not
    bool busy = false;
  };
  int only = argc > 3 ? std::atoi(argv[3]) : -1;  // run just this case (0-3)
  int index = -1;
  for (auto c :
       {Case{"clean", 0, 0}, Case{"1% failing", 100, 300}, Case{"all below threshold", 1, 3},
        Case{"all failing", 1, 300}, Case{"busy", 0, 0, true}}) {
    if (++index != only && only >= 0) continue;
    int sweeps = 0;
    auto sweep = make_sweep(links, c.every, c.symbols, c.busy, sweeps);
    auto next = [&] {  // a busy fabric's errors move from sweep to sweep
      if (c.busy) sweep = make_sweep(links, c.every, c.symbols, true, ++sweeps);
    };
    size_t heap0 = heap_bytes();
    size_t history_bytes = 0;
    {
      rules::History h(rules::longest_window(rules));
      h.follow(rules);  // as RuleRunner sets it up
      int64_t now = kStart;
      for (int s = 0; s < 11; ++s, now += kSweepUs) {
        stamp(sweep, now);
        h.add_deltas(sweep);
        h.prune(now);  // as each sweep's evaluation does
        next();
      }
      std::vector<double> total, ingest, eval;
      size_t verdicts = 0, windows = 0;
      for (int run = -1; run < runs; ++run, now += kSweepUs) {
        stamp(sweep, now);
        SweepResult r = one_sweep(h, rules, links, sweep, now);
        next();
        double in = r.ingest_ms, ev = r.eval_ms;
        verdicts = r.verdicts, windows = r.windows;
        if (run < 0) continue;  // warm-up
        ingest.push_back(in), eval.push_back(ev), total.push_back(in + ev);
      }
      history_bytes = heap_bytes() - heap0;
      std::printf(
          "  %-22s %8.2f ms  (ingest %.2f, eval %.2f; %zu windows, %zu verdicts; "
          "history %.1f MiB)\n",
          c.name, median(total), median(ingest), median(eval), windows, verdicts,
          static_cast<double>(history_bytes) / (1 << 20));
      std::printf("CASE\t%s\t%.3f\t%.3f\t%.3f\t%zu\t%zu\t%zu\n", c.name, median(total),
                  median(ingest), median(eval), windows, verdicts, history_bytes / 1024);
    }
  }
  return 0;
}
