// The OpenSM watcher: tails the OpenSM log (cursor "opensm", stored with the events it produced)
// and turns lines into events; after a link-state trap it runs the link check
// (daemon/sources/link_check.h) on the trapping switches, after a trap or SUBNET UP it
// requests a re-discovery (opensm.rediscover_delay), and it reloads OpenSM's LFT dump
// (opensm-lfts.dump) when it changes and checks the routes (credit loops per VL with the
// SL-to-VL tables of opensm-sl2vl.dump when OpenSM writes one, unreachable pairs, OpenSM's
// routing engine: events credit_loop, routing_fallback, unreachable). Health "opensm": down
// while the log cannot be read.
#include "daemon/sources/sources.h"

#include <sys/stat.h>
#include <chrono>
#include <optional>
#include <string>

#include "daemon/logger.h"
#include "daemon/sources/link_check.h"
#include "ingest/file_tailer.h"
#include "ingest/opensm_ingest.h"
#include "ingest/opensm_routing.h"

namespace ibw::daemon {

namespace {

// (mtime, size) of a file; nullopt when it is not there.
std::optional<std::pair<int64_t, int64_t>> file_stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::pair<int64_t, int64_t>{st.st_mtim.tv_sec * 1'000'000'000LL + st.st_mtim.tv_nsec,
                                     st.st_size};
}

// Reloads OpenSM's LFT dump when its size or mtime changed since the last look (and its
// SL-to-VL dump, written after it in the same pass, when that changed or went), then runs the
// route check (fabric/route_check.h) on it and OpenSM's log, once a topology is known; the
// new findings are published as events (daemon/route_check_state.h).
class RouteWatcher {
 public:
  RouteWatcher(const std::string& dir, std::string log)
      : path_(dir + "/opensm-lfts.dump"),
        sl2vl_path_(dir + "/opensm-sl2vl.dump"),
        log_(std::move(log)) {}
  void check(SourceContext& ctx) {
    FabricState& fab = ctx.fabric();
    check_sl2vl();
    if (auto stamp = file_stamp(path_)) {
      if (*stamp != stamp_) {
        stamp_ = *stamp;
        try {
          auto tables = std::make_shared<const fabric::RoutingTables>(fabric::load_lft_dump(path_));
          log(LogLevel::info, "routing tables loaded",
              {{"path", path_}, {"switches", tables->by_switch.size()}});
          fab.set_routes(std::move(tables));
          pending_ = true;
        } catch (const std::exception& e) {  // OpenSM may be rewriting it: retry on the next change
          log(LogLevel::warning, "routing tables not loaded",
              {{"path", path_}, {"error", e.what()}});
          stamp_ = {};
        }
      }
    }
    if (pending_) run_check(ctx);
  }

 private:
  void check_sl2vl() {
    auto stamp = file_stamp(sl2vl_path_);
    if (stamp == sl2vl_stamp_) return;
    sl2vl_stamp_ = stamp;
    pending_ = true;
    sl2vl_ = {};
    if (!stamp) return;
    try {
      sl2vl_ = fabric::load_sl2vl_dump(sl2vl_path_);
      log(LogLevel::info, "SL-to-VL tables loaded",
          {{"path", sl2vl_path_}, {"switches", sl2vl_.by_switch.size()}});
    } catch (const std::exception& e) {  // being rewritten: retry on the next change
      log(LogLevel::warning, "SL-to-VL tables not loaded",
          {{"path", sl2vl_path_}, {"error", e.what()}});
      sl2vl_stamp_ = {};
    }
  }

  void run_check(SourceContext& ctx) {
    auto topo = ctx.topology();
    auto tables = ctx.fabric().routes();
    if (!topo || !tables) return;  // after the first discovery
    pending_ = false;
    auto t0 = std::chrono::steady_clock::now();
    fabric::RouteCheckOptions options;
    options.sl2vl = &sl2vl_;
    fabric::RouteCheck check = fabric::check_routes(topo->fabric, *tables, options);
    fabric::RoutingEngineInfo engine = ingest::read_routing_engine(log_);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    store::WriteBatch batch;
    batch.events =
        ctx.fabric().route_check.update(topo->fabric, check, engine, ctx.clock().now_us(), seconds);
    log(check.credit_loops.empty() && !check.unreachable_pairs && !engine.fallback()
            ? LogLevel::info
            : LogLevel::warning,
        "route check",
        {{"credit_loops", check.credit_loops.size()},
         {"unreachable_pairs", check.unreachable_pairs},
         {"engine", engine.in_use},
         {"fallback", engine.fallback()},
         {"new_events", batch.events.size()},
         {"seconds", seconds}});
    if (batch.events.empty()) return;
    enrich_all(topo.get(), batch.events);
    ctx.publish(topo, std::move(batch), nullptr, Evaluate::never);
  }

  std::string path_, sl2vl_path_, log_;
  std::pair<int64_t, int64_t> stamp_{};
  std::optional<std::pair<int64_t, int64_t>> sl2vl_stamp_;
  fabric::Sl2VlTables sl2vl_;  // none while OpenSM writes no opensm-sl2vl.dump
  bool pending_ = false;       // tables loaded and not checked yet
};

void run_opensm_watcher(SourceContext& ctx, const std::optional<std::string>& stored) {
  const config::Config& cfg = ctx.cfg();
  RouteWatcher routes(cfg.opensm.dump_dir, cfg.opensm.log);
  std::optional<ingest::TailCursor> cursor;
  if (stored) cursor = ingest::TailCursor::parse(*stored);
  ingest::FileTailer tailer(cfg.opensm.log, cursor,
                            /*start_at_end=*/!cursor && !cfg.opensm.read_existing);
  if (!cursor) {  // store where reading starts, so a restart resumes there, not at the end
    if (auto pos = tailer.position()) {
      store::WriteBatch start;
      start.cursors.emplace_back("opensm", pos->serialize());
      ctx.push(std::move(start));
    }
  }
  std::string last_error;
  while (ctx.running()) {
    int64_t now = ctx.clock().now_us();
    ingest::OsmLogContext osm_ctx{now, cfg.opensm.utc_offset_s};
    ingest::OsmBatch osm = ingest::read_opensm_log(tailer, osm_ctx);
    bool ok = tailer.error().empty();
    now = ctx.clock().now_us();
    ctx.report({"opensm", ok ? ingest::HealthState::ok : ingest::HealthState::down, tailer.error(),
                ok ? now : 0, now});
    if (tailer.error() != last_error) {
      last_error = tailer.error();
      if (!last_error.empty())
        log(LogLevel::warning, "opensm log unavailable",
            {{"path", cfg.opensm.log}, {"error", last_error}});
    }
    if (osm.rediscover) ctx.fabric().request_discovery(cfg.opensm.rediscover_delay_us);
    if (osm.cursor) {
      store::WriteBatch batch;
      batch.events = std::move(osm.events);
      auto topo = ctx.topology();
      enrich_all(topo.get(), batch.events);
      batch.cursors.emplace_back("opensm", osm.cursor->serialize());
      if (!ctx.push(std::move(batch))) return;
    }
    check_links(ctx, osm.link_change_lids);
    routes.check(ctx);
    ctx.nap(std::chrono::microseconds(cfg.opensm.poll_us));
  }
}

}  // namespace

std::unique_ptr<Source> make_opensm_watcher() {
  return std::make_unique<FunctionSource>("opensm", run_opensm_watcher, /*resumes=*/true);
}

}  // namespace ibw::daemon
