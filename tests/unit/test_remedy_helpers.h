// Remediation test helpers (tests/unit/actions/test_remedy*.cpp): a fake port executor that records
// its calls and answers like a switch, a bench with a real SQLite store and a two-tier
// fabric, and a symbol-error finding.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>

#include "actions/remedy.h"
#include "tests/unit/test_fabrics.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw;
using namespace ibw::actions;
using namespace ibw::test_fabric;

namespace remedy_flow_test {

constexpr int64_t kSecond = 1'000'000;
constexpr int64_t kNow = int64_t{1'800'000'000} * kSecond;

// Records calls; answers Disabled/Polling like a real switch, or fails when told to.
class FakeExecutor : public PortExecutor {
 public:
  std::vector<std::string> calls;
  bool fail = false;
  bool unknown = false;          // neither the Set nor the read-back answered (OutcomeUnknown)
  bool ignore_disable = false;   // read-back shows the port still LinkUp
  std::function<void()> during;  // runs while the port action is "on the wire"
  PortChange disable(const PortAddress& a, int port) override { return act("disable", a, port, 3); }
  PortChange enable(const PortAddress& a, int port) override { return act("enable", a, port, 2); }
  PortReading reading{4, 5};  // what read() answers (Active, LinkUp)
  bool unreadable = false;
  PortReading read(const PortAddress& a, int port) override {
    calls.push_back("read " + a.text() + " port " + std::to_string(port));
    if (unreadable) throw std::runtime_error("no answer from " + a.text());
    return reading;
  }

 private:
  PortChange act(const char* op, const PortAddress& a, int port, uint8_t phys) {
    calls.push_back(std::string(op) + " " + a.text() + " port " + std::to_string(port));
    if (during) during();
    if (fail) throw std::runtime_error("PortInfo Set failed for " + a.text());
    if (unknown) throw OutcomeUnknown("no answer to the PortInfo Set nor to the Get after it");
    PortChange c;
    c.before = {4, 5};
    c.after = {1, ignore_disable && phys == 3 ? uint8_t{5} : phys};
    c.set_reply = c.after;
    return c;
  }
};

struct Bench {
  store_test::TempDir dir;
  std::unique_ptr<store::Store> db = store::Store::open(dir.file("s.db"));
  Fabric fabric = two_tier(2, 4, 2);  // hosts 0-3, leaves 0-1 (ports 3-6 up), spines 0-3
  FakeExecutor exec;
  RemedyContext ctx{&fabric, nullptr, nullptr, PortKey{host_guid(0), 1}};

  Remediator remediator(GuardMode mode = GuardMode::enforce, int per_switch = 2) {
    RemedyConfig c;
    c.guard.mode = mode;
    c.guard.max_disabled_per_switch = per_switch;
    c.verify_after_us = 3600 * kSecond;
    c.outbox = true;
    return Remediator(c, *db, &exec);
  }
};

inline Finding symbol_errors(uint64_t guid, int port, int64_t last_time) {
  Finding f;
  f.verdict.rule = "symbol-errors";
  f.verdict.type = rules::RuleType::symbol_errors;
  f.verdict.action = rules::Action::disable;
  f.verdict.severity = ingest::Severity::error;
  f.verdict.node_guid = guid;
  f.verdict.port = port;
  f.verdict.confirmed = true;
  f.verdict.explanation = "5000 symbol errors in one sweep (jump >= 1000)";
  f.verdict.evidence.counter = "SymbolErrorCounter";
  f.verdict.evidence.total = 5000;
  f.verdict.evidence.last_time_us = last_time;
  f.counters.time_us = last_time;
  f.counters.node_guid = guid;
  f.counters.port = port;
  f.counters.value[0] = 5000;
  f.counters.valid = 1;
  return f;
}

}  // namespace remedy_flow_test
