// CongestionBoard (daemon/congestion_state.h): the latest congestion finding per port, one
// `congestion` event when a port becomes congested and one `congestion_cleared` when it is
// no longer found, the count of findings since start, and the JSON the web API serves.
#include <catch2/catch.hpp>

#include <algorithm>

#include "daemon/congestion_state.h"

using namespace ibw;
using daemon::CongestionBoard;

namespace congestion_state_test {

constexpr int64_t kSec = 1'000'000;
constexpr int64_t kNow = 1'800'000'000 * kSec;

rules::Verdict finding(uint64_t guid, int port, double ratio, double drops = 0) {
  rules::Verdict v;
  v.rule = "congestion", v.type = rules::RuleType::congestion, v.action = rules::Action::none;
  v.severity = ingest::Severity::warning, v.node_guid = guid, v.port = port, v.confirmed = true;
  v.evidence.wait_ratio = ratio, v.evidence.lost_gbps = ratio * 200, v.evidence.max_rate = drops;
  v.explanation = "congested: " + std::to_string(ratio);
  return v;
}

TEST_CASE("congestion board: events when a port becomes congested and when it clears", "[daemon]") {
  CongestionBoard b;
  auto ev = b.update({finding(0x10, 1, 0.3), finding(0x20, 2, 0, 150)}, kNow);
  REQUIRE(ev.size() == 2);
  for (const auto& e : ev) {
    CHECK(e.kind == "congestion");
    CHECK(e.severity == ingest::Severity::warning);
    CHECK(e.source == ingest::EventSource::counters);
    CHECK_FALSE(e.dedup_key.empty());
  }
  CHECK(b.ports() == 2);
  CHECK(b.findings_total() == 2);

  // Still congested: no new event, the start of the stretch is kept, the values follow.
  ev = b.update({finding(0x10, 1, 0.5), finding(0x20, 2, 0, 150)}, kNow + 10 * kSec);
  CHECK(ev.empty());
  CHECK(b.findings_total() == 2);
  for (const auto& c : b.snapshot())
    if (c.node_guid == 0x10) {
      CHECK(c.since_us == kNow);
      CHECK(c.time_us == kNow + 10 * kSec);
      CHECK(c.wait_ratio == 0.5);
    }

  // 0x20/2 no longer found: cleared (info); it counts again when it comes back.
  ev = b.update({finding(0x10, 1, 0.5)}, kNow + 20 * kSec);
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].kind == "congestion_cleared");
  CHECK(ev[0].severity == ingest::Severity::info);
  CHECK(ev[0].node_guid == 0x20);
  CHECK(b.ports() == 1);
  b.update({finding(0x10, 1, 0.5), finding(0x20, 2, 0.2)}, kNow + 30 * kSec);
  CHECK(b.findings_total() == 3);
}

TEST_CASE("congestion board: one entry per port and only congestion verdicts", "[daemon]") {
  CongestionBoard b;
  rules::Verdict other = finding(0x30, 1, 0.9);
  other.type = rules::RuleType::error_counters;
  b.update({finding(0x10, 1, 0.2), finding(0x10, 1, 0.4), other}, kNow);
  auto all = b.snapshot();
  REQUIRE(all.size() == 1);
  CHECK(all[0].wait_ratio == 0.4);  // the strongest finding of the port
  auto j = b.to_json();
  REQUIRE(j["ports"].size() == 1);
  CHECK(j["ports"][0]["node_guid"] == "0x0000000000000010");
  CHECK(j["ports"][0]["port"] == 1);
  CHECK(j["ports"][0]["wait_ratio"] == 0.4);
  CHECK(j["ports"][0]["lost_gbps"] == Approx(80));
  CHECK(j["findings_total"] == 1);
}

}  // namespace congestion_state_test

namespace congestion_state_test {

TEST_CASE("congestion board: a report-only rule gives one finding event and one when it clears",
          "[daemon]") {
  CongestionBoard b;
  rules::Verdict v = finding(0x30, 2, 0);
  v.rule = "rcv_watch", v.type = rules::RuleType::error_counters;
  v.severity = ingest::Severity::error, v.explanation = "PortRcvErrors 12/s over 10/s";
  auto ev = b.update({v, finding(0x10, 1, 0.3)}, kNow);
  REQUIRE(ev.size() == 2);
  auto found =
      std::find_if(ev.begin(), ev.end(), [](const auto& e) { return e.kind == "finding"; });
  REQUIRE(found != ev.end());
  CHECK(found->node_guid == 0x30);
  CHECK(found->port == 2);
  CHECK(found->severity == ingest::Severity::error);  // the rule's
  CHECK(found->message == "rcv_watch: PortRcvErrors 12/s over 10/s");
  const std::string first_key = found->dedup_key;  // (ev is reassigned below)
  CHECK(b.reports() == 1);
  CHECK(b.reports_total() == 1);
  CHECK(b.ports() == 1);  // not a congestion finding
  CHECK(b.to_json()["ports"].size() == 1);

  // Still matching: nothing new. Another rule on the same port is a finding of its own.
  rules::Verdict w = v;
  w.rule = "rcv_watch_2";
  ev = b.update({v, w, finding(0x10, 1, 0.3)}, kNow + 10 * kSec);
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].kind == "finding");
  CHECK(ev[0].message.starts_with("rcv_watch_2: "));
  CHECK(b.reports_total() == 2);

  // No longer found: cleared, info; the congestion finding clears on its own terms.
  ev = b.update({w, finding(0x10, 1, 0.3)}, kNow + 20 * kSec);
  REQUIRE(ev.size() == 1);
  CHECK(ev[0].kind == "finding_cleared");
  CHECK(ev[0].severity == ingest::Severity::info);
  CHECK(ev[0].message == "rcv_watch: no longer found");
  CHECK(ev[0].dedup_key != first_key);
  CHECK(b.reports() == 1);
}

}  // namespace congestion_state_test
