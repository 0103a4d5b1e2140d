// Differential test of the PostgreSQL store's core against SqliteStore: the same random batches
// (duplicate dedup keys and port keys inside a batch and across batches, counter readings of
// unknown ports, UFM upserts and removals, counter resets and width changes) written to both,
// then every read compared, before and after compactions (which fold part of the samples,
// then merge into hours already folded). Ids are compared by position only: PostgreSQL's
// identity may skip values where SQLite's AUTOINCREMENT does not.
#if __has_include("tests/lab/pg_server.h")

#include <catch2/catch.hpp>

#include <random>

#include "store/pg_store.h"
#include "tests/lab/pg_server.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw;
using namespace ibw::store_test;
using store::Store;

namespace {

constexpr int64_t kMin = 60LL * 1000000;
constexpr int64_t kT0 = 1'700'000'000'000'000 - 1'700'000'000'000'000 % (3600 * 1000000LL);
const uint64_t kGuids[] = {1, 2, 0x8000'0000'0000'0001ULL, 0xffff'ffff'ffff'fff0ULL};
const char* const kNodes[] = {"leaf1", "Leaf2", "spine", "leaf1", "ä-node"};

struct Gen {
  std::mt19937_64 rng{20261126};
  int64_t now = kT0;
  std::map<std::pair<uint64_t, int>, ingest::CounterSample> last;

  int pick(int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }
  uint64_t guid() { return kGuids[pick(4)]; }

  ingest::CounterSample sample(uint64_t g, int port, int64_t t) {
    ingest::CounterSample& prev = last[{g, port}];
    ingest::CounterSample s = big_sample(g, port, t);
    for (size_t i = 0; i < ingest::kCounterCount; ++i)
      s.value[i] = pick(10) == 0 ? rng() % 5 : prev.value[i] + rng() % 1000;  // resets too
    s.value[3] = rng();  // anything, above 2^63 half the time
    s.valid = static_cast<uint32_t>(rng()) & 0x1ffff;
    s.saturated = pick(3) == 0 ? static_cast<uint32_t>(rng()) & 0x1ffff : 0;
    s.extended = pick(8) != 0;
    prev = s;
    return s;
  }

  store::WriteBatch batch() {
    store::WriteBatch w;
    for (int i = pick(12); i > 0; --i) {
      ingest::Event e = full_event(pick(1000));
      e.time_us = now - pick(120) * kMin;
      e.node_guid = guid();
      e.port = 1 + pick(3);
      e.dedup_key = pick(4) == 0 ? "" : "k" + std::to_string(pick(40));
      w.events.push_back(e);
    }
    for (uint64_t g : kGuids)
      for (int port = 1; port <= 3; ++port)
        if (pick(4) != 0) w.samples.push_back(sample(g, port, now + pick(3) * 1000));
    if (pick(5) == 0 && !w.samples.empty()) w.samples.push_back(w.samples.back());  // same time
    for (int i = pick(6); i > 0; --i) {
      store::PortRecord p = full_port(guid(), 1 + pick(3), kNodes[pick(5)]);
      p.counters = sample(p.node_guid, p.port, now);
      p.state = pick(5);
      w.ports.push_back(p);
    }
    for (int i = pick(6); i > 0; --i) {
      ingest::CounterDelta d;
      d.sample = sample(guid(), 1 + pick(4), now);  // port 4 never has a row
      d.delta[2] = rng();
      d.rate[1] = static_cast<double>(rng() % 100000) / 7.0;
      d.valid = static_cast<uint32_t>(rng()) & 0x1ffff;
      d.at_least = pick(2);
      w.port_counters.push_back(d);
    }
    for (int i = pick(4); i > 0; --i) {
      ingest::UfmPortState u;
      u.node_guid = guid();
      u.port = 1 + pick(3);
      u.name = "u" + std::to_string(pick(100));
      u.peer_guid = rng();
      u.since_us = now;
      w.ufm_ports.push_back(u);
    }
    if (pick(4) == 0) w.ufm_ports_removed.push_back({guid(), 1 + pick(3)});
    for (int i = pick(3); i > 0; --i)
      w.cursors.push_back({"src" + std::to_string(pick(3)), std::to_string(rng())});
    now += 7 * kMin;
    return w;
  }
};

void check_same_events(Store& a, Store& b, const store::EventQuery& q) {
  auto x = a.events(q);
  auto y = b.events(q);
  REQUIRE(x.size() == y.size());
  for (size_t i = 0; i < x.size(); ++i) check_same_event(x[i].event, y[i].event);
}

void check_same_store(Store& a, Store& b) {
  store::EventQuery all;
  all.limit = 0;
  check_same_events(a, b, all);
  for (uint64_t g : kGuids) {
    store::EventQuery q;
    q.node_guid = g;
    q.since_us = kT0 + 30 * kMin;
    check_same_events(a, b, q);
    q.port = 2;
    q.limit = 3;
    check_same_events(a, b, q);
  }
  // Paging: after the 5th event of each.
  auto ea = a.events(all);
  auto eb = b.events(all);
  if (ea.size() > 5) {
    store::EventQuery qa, qb;
    qa.after_id = ea[4].id;
    qb.after_id = eb[4].id;
    auto pa = a.events(qa);
    auto pb = b.events(qb);
    REQUIRE(pa.size() == pb.size());
    for (size_t i = 0; i < pa.size(); ++i) check_same_event(pa[i].event, pb[i].event);
  }
  for (const std::string& filter : {std::string(), std::string("leaf1"), std::string("ä-node"),
                                    std::string("0x8000000000000001"), std::string("0X2")}) {
    INFO("ports " << filter);
    auto pa = a.ports(filter);
    auto pb = b.ports(filter);
    REQUIRE(pa.size() == pb.size());
    for (size_t i = 0; i < pa.size(); ++i) {
      check_same_port(pa[i], pb[i]);
      REQUIRE(pa[i].ufm.has_value() == pb[i].ufm.has_value());
      if (pa[i].ufm) CHECK(pa[i].ufm->same_view(*pb[i].ufm));
    }
  }
  auto ua = a.ufm_ports();
  auto ub = b.ufm_ports();
  REQUIRE(ua.size() == ub.size());
  for (size_t i = 0; i < ua.size(); ++i) CHECK(ua[i].same_view(ub[i]));
  for (const char* src : {"src0", "src1", "src2", "none"}) CHECK(a.cursor(src) == b.cursor(src));
  for (uint64_t g : kGuids)
    for (int port = 1; port <= 3; ++port) {
      INFO("samples " << g << "/" << port);
      auto sa = a.samples(g, port, kT0 + 20 * kMin);
      auto sb = b.samples(g, port, kT0 + 20 * kMin);
      REQUIRE(sa.size() == sb.size());
      for (size_t i = 0; i < sa.size(); ++i) check_same_sample(sa[i], sb[i]);
      auto aa = a.aggregates(g, port, 0);
      auto ab = b.aggregates(g, port, 0);
      REQUIRE(aa.size() == ab.size());
      for (size_t i = 0; i < aa.size(); ++i) check_same_aggregate(aa[i], ab[i]);
    }
}

}  // namespace

TEST_CASE("pg store: the same batches give the same reads as SQLite before and after compaction") {
  TempDir dir;
  auto lite = Store::open(dir.file("diff.db"));
  auto pg = Store::open(pg_store_spec(lab::pg_test_database("ibwdiff"), "diff"));
  Gen gen;
  store::Retention keep;
  keep.raw_window_us = 2 * 3600 * 1000000LL;
  keep.event_window_us = 6 * 3600 * 1000000LL;
  keep.aggregate_window_us = 5 * 3600 * 1000000LL;
  for (int round = 0; round < 4; ++round) {
    INFO("round " << round);
    for (int i = 0; i < 25; ++i) {
      const store::WriteBatch w = gen.batch();
      const store::WriteResult ra = lite->write(w);
      const store::WriteResult rb = pg->write(w);
      CHECK(ra.events_inserted == rb.events_inserted);
      REQUIRE(ra.event_ids.size() == rb.event_ids.size());
      for (size_t k = 0; k < ra.event_ids.size(); ++k)
        CHECK((ra.event_ids[k] == 0) == (rb.event_ids[k] == 0));
    }
    check_same_store(*lite, *pg);
    CHECK(lite->compact(gen.now, keep) == pg->compact(gen.now, keep));
    check_same_store(*lite, *pg);
  }
}

#endif  // tests/lab/pg_server.h
