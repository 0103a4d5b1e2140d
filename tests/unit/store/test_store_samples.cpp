// Packed counter samples (store/sample_codec.h, store/sample_tables.h): blobs round-trip every
// field, samples read the same from the stage and from runs, a run split by folding keeps
// its newer samples (both backends), and a SQLite store written with the old
// one-row-per-sample table (schema 3) migrates without losing a sample.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "store/sample_codec.h"
#include "store/schema.h"
#include "store/store.h"
#include "tests/unit/test_store_helpers.h"

using namespace ibw;
using namespace ibw::store_test;
using store::Store;

namespace {

constexpr int64_t kMin = 60LL * 1000000;
constexpr int64_t kT0 = 1'700'000'000LL * 1000000;

// n samples of one port with every kind of change: steady traffic, noise, a reset, a
// saturated reading, a switch of counter width, huge and top-bit values, uneven times.
std::vector<ingest::CounterSample> history(uint64_t guid, int port, size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<ingest::CounterSample> out;
  ingest::CounterSample c = big_sample(guid, port, kT0);
  for (size_t i = 0; i < n; ++i) {
    c.time_us = kT0 + static_cast<int64_t>(i) * kMin + static_cast<int64_t>(rng() % 50'000);
    c.value[14] += 1'000'000 + rng() % 100'000;
    c.value[15] += rng();
    if (i % 7 == 3) c.value[0] += rng() % 1000;
    if (i == n / 2) c.value[3] = 0;  // reset
    c.saturated = (i % 11 == 5) ? 0x3u : 0x5u;
    c.extended = i % 13 != 4;
    c.valid = (i % 17 == 8) ? 0x1u : 0x1fffeu;
    out.push_back(c);
  }
  return out;
}

void check_same(const std::vector<ingest::CounterSample>& got,
                const std::vector<ingest::CounterSample>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("sample " << i);
    check_same_sample(got[i], want[i]);
  }
}

}  // namespace

TEST_CASE("sample codec: blocks - chunks and time lists round-trip every field", "[store]") {
  for (size_t n : {1, 2, 3, 60, 200}) {
    INFO(n << " samples");
    auto h = history(0x8000'0000'0000'0001ULL, 7, n, static_cast<unsigned>(n));
    std::vector<int64_t> none;
    std::vector<ingest::CounterSample> got;
    store::sample_codec::decode_block(store::sample_codec::encode_block(h.data(), n, none),
                                      h[0].node_guid, 7, none, got);
    check_same(got, h);
    // Times from a shared list: stored as an index range.
    std::vector<int64_t> times{kT0 - 5};
    for (const auto& s : h) times.push_back(s.time_us);
    times.push_back(times.back() + 1);
    auto shared = store::sample_codec::decode_times(store::sample_codec::encode_times(times));
    CHECK(shared == times);
    got.clear();
    const std::string block = store::sample_codec::encode_block(h.data(), n, times);
    store::sample_codec::decode_block(block, h[0].node_guid, 7, times, got);
    check_same(got, h);
    std::vector<const ingest::CounterSample*> refs;
    for (const auto& s : h) refs.push_back(&s);
    got.clear();
    store::sample_codec::decode_chunk(store::sample_codec::encode_chunk(refs), got);
    check_same(got, h);
    CHECK_THROWS_AS(
        store::sample_codec::decode_block(block.substr(0, block.size() - 1), 1, 7, times, got),
        store::StoreError);
  }
}

TEST_CASE("sample codec: a port's counter state round-trips every bit and refuses damage",
          "[store]") {
  const store::PortRecord want = store_test::full_port(0x8000'0000'0000'0001ULL, 3, "leaf");
  const std::string blob = store::sample_codec::encode_port_state(want);
  store::PortRecord got;
  got.node = "kept";  // fields outside the counter state are left alone
  store::sample_codec::decode_port_state(blob, got);
  CHECK(got.node == "kept");
  got.node = want.node;
  got.node_guid = want.node_guid;
  got.port = want.port;
  got.lid = want.lid;
  got.peer_guid = want.peer_guid;
  got.peer_node = want.peer_node;
  got.peer_port = want.peer_port;
  got.cable_id = want.cable_id;
  got.state = want.state;
  got.phys_state = want.phys_state;
  got.width = want.width;
  got.speed = want.speed;
  got.last_change_us = want.last_change_us;
  store_test::check_same_port(got, want);  // rates compared by bit pattern (NaN, -0.0)
  // An all-zero state is short, and still exact.
  store::PortRecord zero, back;
  back.rates_valid = 9;
  store::sample_codec::decode_port_state(store::sample_codec::encode_port_state(zero), back);
  CHECK(back.rates_valid == 0);
  CHECK(store::sample_codec::encode_port_state(zero).size() < 16);
  for (size_t cut : {size_t{0}, size_t{1}, blob.size() / 2, blob.size() - 1})
    CHECK_THROWS_AS(store::sample_codec::decode_port_state(blob.substr(0, cut), got),
                    store::StoreError);
  CHECK_THROWS_AS(store::sample_codec::decode_port_state(blob + "x", got), store::StoreError);
}

TEST_CASE("store samples: the same from the stage - from runs - and after a split", "[store]") {
  STORE_UNDER_TEST(db, s);
  std::vector<std::vector<ingest::CounterSample>> ports;
  for (int p = 1; p <= 40; ++p) ports.push_back(history(0x1000 + p / 8, p, 120, p));
  // One batch per minute, every port in it, as a sweep writes them.
  for (size_t i = 0; i < 120; ++i) {
    store::WriteBatch b;
    for (const auto& h : ports) b.samples.push_back(h[i]);
    s->write(b);
    if (i == 59) {  // a compaction that folds nothing: the first hour becomes a run
      store::Retention keep;
      CHECK(s->compact(kT0 + 60 * kMin, keep) == 0);
    }
  }
  for (const auto& h : ports) check_same(s->samples(h[0].node_guid, h[0].port, 0), h);
  const auto& h = ports[5];
  auto since = s->samples(h[0].node_guid, h[0].port, h[70].time_us);
  check_same(since, std::vector<ingest::CounterSample>(h.begin() + 70, h.end()));
  CHECK(s->samples(h[0].node_guid, 99, 0).empty());

  // Folding the first 90 minutes splits the second run; the rest reads back unchanged.
  store::Retention r;
  r.raw_window_us = 30 * kMin;
  const int64_t now = h[90].time_us - 1 + r.raw_window_us;
  CHECK(s->compact(now, r) > 0);
  for (const auto& p : ports) {
    auto got = s->samples(p[0].node_guid, p[0].port, 0);
    std::vector<ingest::CounterSample> want;
    for (const auto& c : p)
      if (c.time_us >= now - r.raw_window_us) want.push_back(c);
    check_same(got, want);
    CHECK(s->aggregates(p[0].node_guid, p[0].port, 0).size() >= 1);
  }
}

TEST_CASE("store migration: samples of a schema 3 store survive the move to blocks", "[store]") {
  // SQLite only: legacy files (PostgreSQL stores start at the current schema).
  TempDir dir;
  const std::string path = dir.file("old.db");
  {
    auto s = Store::open(path);
    store::WriteBatch b;
    b.events = {store_test::full_event(1)};
    b.ports = {store_test::full_port(0x10, 1, "a")};
    s->write(b);
  }
  // Back to schema 3: the one-row-per-sample table as migration 1 made it, with rows in it.
  store_test::undo_port_state(path);
  raw_exec(path,
           std::string(store_test::kUndoPackedSamples) +
               "INSERT INTO samples VALUES (16, 1, 300, "
               "'[1,2,3,4,5,6,7,8,9,10,11,12,18446744073709551615,9223372036854775808,0,0,7]', "
               "131070, 5, 1); "
               "INSERT INTO samples VALUES (16, 1, 100, '[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1]', "
               "1, 0, 0); "
               "INSERT INTO samples VALUES (17, 2, 200, '[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2]', "
               "1, 0, 1); "
               "PRAGMA user_version = 3;");
  CHECK_THROWS_AS(Store::open(path, /*read_only=*/true), store::StoreError);  // needs migrating
  auto s = Store::open(path);
  CHECK(s->schema_version() == store::schema::latest_version());
  CHECK(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'samples'") == 0);
  auto got = s->samples(16, 1, 0);
  REQUIRE(got.size() == 2);
  CHECK(got[0].time_us == 100);
  CHECK(got[0].value[16] == 1);
  CHECK(got[0].valid == 1);
  CHECK_FALSE(got[0].extended);
  CHECK(got[1].time_us == 300);
  CHECK(got[1].value[12] == UINT64_MAX);
  CHECK(got[1].value[13] == uint64_t{1} << 63);
  CHECK(got[1].value[0] == 1);
  CHECK(got[1].valid == 131070);
  CHECK(got[1].saturated == 5);
  CHECK(got[1].extended);
  REQUIRE(s->samples(17, 2, 0).size() == 1);
  CHECK(s->events({}).size() == 1);  // the rest of the store is untouched
  CHECK(s->ports().size() == 1);
  // After the move the samples fold like any others.
  store::Retention r;
  r.raw_window_us = 1;
  CHECK(s->compact(1000, r) == 3);
  CHECK(s->samples(16, 1, 0).empty());
  CHECK(s->aggregates(16, 1, 0).size() == 1);
}
