// ibw-bench-rules_eval: time of one sweep's rule evaluation in the daemon's path
// (rules::History::windows over every linked port, then rules::evaluate with the shipped
// config/rules.yaml) for 100,000 linked ports (50,000 links). Three fabrics:
//   clean   no port has errors in its windows (the usual case);
//   1%      1,000 ports failing symbol_ber (errors in every sweep of the 12-minute window);
//   all     every port failing symbol_ber (12 deltas of 60 s sweeps each): a verdict each.
//   below   every port with a few errors in every sweep, under every threshold;
// Prints the median of 7 runs per case. Usage: ibw-bench-rules_eval [PORTS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "rules/history.h"
#include "rules/rules.h"

namespace {

using namespace ibw;

constexpr int64_t kSweepUs = 60'000'000;
constexpr int64_t kNow = int64_t{1'800'000'000} * 1'000'000;

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
  return links;
}

void fill(rules::History& h, const std::vector<rules::LinkInfo>& links, int every,
          uint64_t symbol_errors) {
  for (size_t i = 0; i < links.size(); i += static_cast<size_t>(every))
    for (int s = 0; s < 12; ++s) {
      ingest::CounterDelta d;
      d.sample.node_guid = links[i].node_guid, d.sample.port = links[i].port;
      d.sample.time_us = kNow - s * kSweepUs;
      d.valid = (1u << ingest::kCounterCount) - 1;
      d.delta[static_cast<size_t>(ingest::Counter::SymbolErrorCounter)] = symbol_errors;
      d.interval_us = kSweepUs;  // rules derive rates from it
      d.delta[static_cast<size_t>(ingest::Counter::PortRcvErrors)] = 1;
      h.add_delta(d);
    }
}

}  // namespace

int main(int argc, char** argv) {
  int ports = argc > 1 ? std::atoi(argv[1]) : 100'000;
  rules::RuleSet rules = rules::load_rules(std::string(IBW_SOURCE_DIR) + "/config/rules.yaml");
  auto links = make_links(ports);
  std::printf("rule evaluation per sweep, %zu linked ports, %zu rules (config/rules.yaml):\n",
              links.size(), rules.rules.size());
  struct Case {
    const char* name;
    int every;         // every n-th port has errors (0: none)
    uint64_t symbols;  // per sweep: 300 crosses BER 1e-12 at 4x HDR over 12 m, 3 does not
  };
  for (auto c : {Case{"clean", 0, 0}, Case{"1% failing", 100, 300},
                 Case{"all with errors, below thresholds", 1, 3}, Case{"all failing", 1, 300}}) {
    const char* name = c.name;
    rules::History h(rules::longest_window(rules));
    if (c.every) fill(h, links, c.every, c.symbols);
    std::vector<double> ms;
    size_t verdicts = 0, windows = 0;
    for (int run = 0; run < 7; ++run) {
      auto t0 = std::chrono::steady_clock::now();
      auto w = h.windows(links);
      auto v = rules::evaluate(rules, w, kNow);
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      verdicts = v.size(), windows = w.size();
    }
    std::sort(ms.begin(), ms.end());
    std::printf("  %-34s %8.1f ms  (%zu windows, %zu verdicts; target <= 50 ms)\n", name, ms[3],
                windows, verdicts);
  }
  return 0;
}
