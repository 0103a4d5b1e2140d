// The UFM load lab's model (tests/lab/ufm_lab_model.h): what it serves parses as UFM Telemetry
// and UFM REST, counters move between scrapes, and flaps become link events.
#include <catch2/catch.hpp>

#include "ingest/ufm/events.h"
#include "ingest/ufm/resources.h"
#include "ingest/ufm/telemetry.h"
#include "tests/lab/ufm_lab_model.h"

namespace {

using ibw::ingest::Counter;

std::string render(const std::function<void(const ibw::lab::LabSink&)>& fn) {
  std::string out;
  fn([&](std::string_view s) { out += s; });
  return out;
}

ibw::lab::Lab small_tree() {
  ibw::lab::FatTreeSpec spec;
  spec.tiers = 3, spec.k = 4, spec.spare_ports = 0;  // 16 hosts, 20 switches, 48 links
  return ibw::lab::make_fat_tree(spec);
}

}  // namespace

TEST_CASE("ufm lab: telemetry rows parse and counters move every scrape", "[ufm][lab]") {
  ibw::lab::UfmLabOptions o;
  o.flap_per_min = 0, o.burst_per_min = 0, o.background_share = 0;
  int64_t t0 = 1'700'000'000'000'000;
  ibw::lab::UfmLabModel model(small_tree(), o, t0);
  REQUIRE(model.port_count() == 96);
  model.advance(t0 + 60'000'000);
  auto first = ibw::ingest::parse_telemetry(
      render([&](const auto& s) { model.telemetry_csv(t0 + 60'000'000, s); }), 0);
  REQUIRE(first.ok);
  REQUIRE(first.samples.size() == 96);
  CHECK(first.samples[0].time_us == t0 + 60'000'000);
  model.advance(t0 + 120'000'000);
  auto prom = ibw::ingest::parse_telemetry(
      render([&](const auto& s) { model.telemetry_prometheus(t0 + 120'000'000, s); }), 0);
  REQUIRE(prom.ok);
  REQUIRE(prom.samples.size() == 96);
  for (const auto& s : prom.samples) {
    const auto* before = &first.samples[0];
    for (const auto& f : first.samples)
      if (f.node_guid == s.node_guid && f.port == s.port) before = &f;
    REQUIRE(before->node_guid == s.node_guid);
    CHECK(s.get(Counter::PortXmitPkts) > before->get(Counter::PortXmitPkts));
    CHECK(s.get(Counter::SymbolErrorCounter) == 0);
  }
}

TEST_CASE("ufm lab: flaps are link events and leave the telemetry while down", "[ufm][lab]") {
  ibw::lab::UfmLabOptions o;
  o.flap_per_min = 600, o.flap_down_s = 1000, o.burst_per_min = 0, o.events_keep = 100000;
  int64_t t0 = 1'700'000'000'000'000;
  ibw::lab::UfmLabModel model(small_tree(), o, t0);
  model.advance(t0 + 1'000'000);  // about 10 flaps
  REQUIRE(model.stats().flaps > 0);
  auto events =
      ibw::ingest::parse_ufm_events(render([&](const auto& s) { model.events_json(s); }), {});
  REQUIRE(events.ok);
  REQUIRE(events.items.size() == model.stats().events);
  for (const auto& e : events.items) CHECK(e.type == 329);
  CHECK(model.up_ports() == 96 - 2 * model.stats().flaps);
  auto tele = ibw::ingest::parse_telemetry(
      render([&](const auto& s) { model.telemetry_csv(t0 + 1'000'000, s); }), 0);
  CHECK(tele.samples.size() == model.up_ports());
  auto ports = ibw::ingest::parse_ufm_ports(render([&](const auto& s) { model.ports_json(s); }));
  REQUIRE(ports.ok);
  CHECK(ports.items.size() == 96);
  auto links = ibw::ingest::parse_ufm_links(render([&](const auto& s) { model.links_json(s); }));
  REQUIRE(links.ok);
  CHECK(links.items.size() == 48 - model.stats().flaps);
  model.advance(t0 + 1'002'000'000);  // the first flaps are over: link-up events
  auto later =
      ibw::ingest::parse_ufm_events(render([&](const auto& s) { model.events_json(s); }), {});
  size_t ups = 0;
  for (const auto& e : later.items) ups += e.type == 328;
  CHECK(ups >= events.items.size());
}
