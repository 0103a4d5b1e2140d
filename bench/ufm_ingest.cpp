// ibw-bench-ufm_ingest: UFM event ingest of a backlog, as the daemon's UFM source runs it,
// against the UFM emulator (tests/ufm_emulator, started here) serving a generated fat tree.
//  1. backlog poll: UfmEventPoller::poll() with no cursor: GET /app/events over HTTP (the
//     emulator's answer is rendered once beforehand, so the fetch is transfer, not Python),
//     parse, de-duplication, storm grouping, mapping to events;
//  2. correlation: display names, peer and cable from the fabric and plan (Correlator);
//  3. store: the events and the cursor in one transaction (SQLite, WAL), as the daemon does;
//  4. steady poll: the next poll of the same list (nothing new), which every poll interval
//     costs while UFM retains the backlog.
// ibwarden's share = parse + ingest + correlate + store. Prints each step with events/s and
// writes the raw answer to --payload for the baselines of bench/bench_ufm.sh.
//
// usage: ibw-bench-ufm_ingest [--events N] [--payload FILE] [--dir DIR]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fabric/ibnetdiscover_parser.h"
#include "fabric/node_name_map.h"
#include "fabric/plan.h"
#include "ingest/correlator.h"
#include "ingest/ufm/event_poller.h"
#include "store/store.h"
#include "tests/lab/fat_tree.h"
#include "tests/ufm_emulator/emulator_fixture.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

void line(const char* what, double s, size_t events) {
  std::printf("%-58s %8.3f s %12.0f events/s\n", what, s, s > 0 ? events / s : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  size_t n = 50000;
  std::string payload, dir = "/tmp";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--events") n = std::strtoul(argv[i + 1], nullptr, 10);
    if (a == "--payload") payload = argv[i + 1];
    if (a == "--dir") dir = argv[i + 1];
  }
  std::string work = dir + "/ibw-bench-ufm-" + std::to_string(getpid());
  std::filesystem::create_directories(work);
  ibw::lab::FatTreeSpec spec;
  spec.leaves = 16, spec.spines = 8, spec.hosts_per_leaf = 16;
  ibw::lab::Lab lab = ibw::lab::make_fat_tree(spec);
  std::ofstream(work + "/topology.txt") << ibw::lab::to_ibnetdiscover(lab);
  std::ofstream(work + "/plan.csv") << ibw::lab::plan_csv(lab);
  int status = 0;
  try {
    ibw::test::UfmEmulator emu({"--topology", work + "/topology.txt"});
    emu.post("backlog?n=" + std::to_string(n) + "&spacing_ms=100");
    ibw::ingest::SystemClock clock;
    auto options = emu.client_options(ibw::ingest::UfmApi::v1);
    options.timeout_ms = 60000;
    ibw::ingest::UfmClient client(options, clock);
    auto warm = client.get("/app/events");  // the emulator renders and caches its answer
    if (!warm.ok) throw std::runtime_error(warm.error);
    if (!payload.empty()) std::ofstream(payload) << warm.body;
    std::printf("## UFM event backlog: %zu events, %.1f MB of JSON, fabric of %zu nodes\n", n,
                warm.body.size() / 1e6, lab.nodes.size());

    ibw::ingest::UfmEventPoller poller(client, {}, std::nullopt);
    ibw::ingest::UfmPollResult r = poller.poll();
    if (!r.ok) throw std::runtime_error(r.error);
    double poll_s = r.elapsed_us / 1e6, parse_s = r.parse_us / 1e6, ingest_s = r.ingest_us / 1e6;

    auto t = Clock::now();
    ibw::fabric::Fabric fab = ibw::fabric::load_ibnetdiscover_file(work + "/topology.txt");
    ibw::fabric::apply_node_names(fab, nullptr);
    ibw::fabric::Plan plan = ibw::fabric::load_plan(work + "/plan.csv");
    ibw::ingest::Correlator corr(fab, &plan);
    double build_s = seconds_since(t);
    t = Clock::now();
    for (auto& e : r.events) corr.enrich(e);
    double correlate_s = seconds_since(t);

    auto db = ibw::store::Store::open(work + "/ibwarden.db");
    ibw::store::WriteBatch batch;
    batch.events = std::move(r.events);
    batch.cursors.emplace_back("ufm", r.cursor);
    t = Clock::now();
    auto written = db->write(batch);
    double store_s = seconds_since(t);

    ibw::ingest::UfmPollResult steady = poller.poll();
    double share = parse_s + ingest_s + correlate_s + store_s;
    std::printf("delivered %zu events (%zu storms), stored %zu\n", batch.events.size(),
                r.storms.size(), written.events_inserted);
    line("backlog poll, whole (HTTP fetch + parse + ingest)", poll_s, n);
    line("  fetch (HTTP transfer from the emulator)", poll_s - parse_s - ingest_s, n);
    line("  parse (GET /app/events JSON -> UfmEvent)", parse_s, n);
    line("  ingest (de-duplication, storms, mapping to events)", ingest_s, n);
    line("correlate (names, peer, cable; correlator built once)", correlate_s, n);
    std::printf("%-58s %8.3f s\n", "  (correlator build, per re-discovery)", build_s);
    line("store (one SQLite transaction, events + cursor)", store_s, n);
    line("ibwarden's share (parse + ingest + correlate + store)", share, n);
    line("backlog poll to stored (whole poll + correlate + store)", poll_s + correlate_s + store_s,
         n);
    line("steady poll of the same list (nothing new)", steady.elapsed_us / 1e6, steady.fetched);
    std::printf("parse_s %.6f share_s %.6f\n", parse_s, share);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ibw-bench-ufm_ingest: %s\n", e.what());
    status = 1;
  }
  std::error_code ec;
  std::filesystem::remove_all(work, ec);
  return status;
}
