// `ibwarden localize`: route observations (ibwarden probe output, ib_write_bw/lat matrices,
// nccl-tests, burn-in results) in, ranked suspect links out (rules/localize.h). The fabric
// comes from the configured discovery (live or a file), the LFTs from opensm.dump_dir's
// opensm-lfts.dump (else live over SMPs, only when a record is static), cables from the plan.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "config/config.h"
#include "daemon/topology.h"
#include "fabric/diagnostics.h"
#include "fabric/plan.h"
#include "rules/localize.h"

namespace ibw::cli {

using daemon::discover_fabric;

namespace {

// Static records need the LFTs (from the dump, else read live). Only a file with the word
// "static" in it can hold one; such files are read once more to be sure.
bool needs_lfts(ingest::Routing default_routing,
                const std::vector<std::pair<std::string, fabric::FileText>>& files) {
  if (default_routing == ingest::Routing::static_lft) return true;
  for (const auto& [file, text] : files) {
    std::string_view t = text.text();
    if (!::memmem(t.data(), t.size(), "static", 6)) continue;  // glibc's two-way search
    bool found = false;
    ingest::for_each_observation(text.text(), file, [&](const ingest::Observation& o, int) {
      found = found || o.routing == ingest::Routing::static_lft;
    });
    if (found) return true;
  }
  return false;
}

}  // namespace

int cmd_localize(const CmdArgs& args) {
  try {
    if (!args.has("config")) throw UsageError("--config is required");
    if (!args.has("probes")) throw UsageError("--probes is required");
    std::string format = args.choice("format", "text");
    rules::LocalizeOptions opt;
    if (args.has("routes")) {
      auto routing = ingest::parse_routing(args.choice("routes", "adaptive"));
      if (!routing || *routing == ingest::Routing::directed)
        throw UsageError("--routes must be static or adaptive");
      opt.default_routing = *routing;
    }
    std::vector<std::pair<std::string, fabric::FileText>> files;  // (path, text)
    for (const std::string& file : args.all("probes")) files.emplace_back(file, file);
    config::Config cfg = config::load_config(*args.get("config"));
    fabric::NodeNameMap names;
    if (cfg.fabric.node_name_map) names = fabric::load_node_name_map(*cfg.fabric.node_name_map);
    std::unique_ptr<fabric::Plan> plan;
    if (cfg.fabric.plan) plan = std::make_unique<fabric::Plan>(fabric::load_plan(*cfg.fabric.plan));
    // While the fabric loads, a second thread counts the records and looks for static ones.
    auto scan = std::async(std::launch::async, [&] {
      size_t lines = 0;
      for (const auto& [file, text] : files) {
        std::string_view t = text.text();
        lines += static_cast<size_t>(std::count(t.begin(), t.end(), '\n')) + 1;
      }
      return std::pair{lines, needs_lfts(opt.default_routing, files)};
    });
    fabric::RecoveryReport recovery;
    fabric::MadLocks mad;  // this process's: discovery and the LFT reads share it
    const fabric::Fabric fab = discover_fabric(mad, cfg, &names, false, &recovery);
    print_recovery(recovery, "ibwarden localize");
    // Active ports still without a peer: this discovery is incomplete (a lossy link, often the
    // one being looked for, hid nodes from it), so records naming what it did not find, or
    // routed over it, are gaps of the discovery, not errors of the input: left out and counted.
    const bool incomplete = !recovery.unresolved.empty();
    opt.skip_unresolved = opt.skip_unroutable = incomplete;
    const auto [lines, static_records] = scan.get();
    std::unique_ptr<fabric::RoutingTables> tables;
    std::string dump = cfg.opensm.dump_dir + "/opensm-lfts.dump";
    if (static_records)
      tables = std::make_unique<fabric::RoutingTables>(
          std::filesystem::exists(dump)
              ? fabric::load_lft_dump(dump)
              : fabric::read_lfts_live(mad, fab, cfg.fabric.ca, cfg.fabric.ca_port));
    fabric::RouteModel model(fab, tables.get());
    // Records go straight from the reader into the localizer, one at a time.
    rules::Localizer localizer(model, opt);
    localizer.reserve(lines);
    for (const auto& entry : files) {  // not a structured binding: clang 14 cannot capture one
      const std::string& file = entry.first;
      ingest::for_each_observation(
          entry.second.text(), file,
          [&](const ingest::Observation& o, int line) { localizer.add(o, file, line); });
    }
    rules::LocalizeResult result = localizer.run();
    if (result.skipped_unresolved + result.skipped > 0)
      std::cerr << "ibwarden localize: warning: " << result.skipped_unresolved + result.skipped
                << " of " << result.observations
                << " record(s) left out: they name endpoints or routes this discovery did not "
                   "find ("
                << recovery.unresolved.size()
                << " Active port(s) without a peer); localize again when the fabric answers\n";
    if (format == "json") {
      std::unordered_map<uint64_t, std::string> cables;
      if (plan) cables = fabric::planned_cables(fab, *plan);
      auto cable = [&](uint64_t guid, int port) {
        auto it = cables.find(fabric::planned_cable_key(guid, port));
        return it == cables.end() ? std::string() : it->second;
      };
      std::cout << rules::localize_json(fab, result, cable).dump(2) << "\n";
    } else {
      std::cout << result.observations << " observations, " << result.pairs << " pairs: "
                << (result.suspects.empty() ? "no suspects"
                                            : std::to_string(result.suspects.size()) + " suspects")
                << "\n";
      for (const auto& s : result.suspects) {
        std::cout << "#" << s.rank << "  loss " << s.loss * 100 << "%  score " << s.score << "  "
                  << (s.links.size() > 1 ? "one of " + std::to_string(s.links.size()) + ": " : "")
                  << rules::suspect_label(fab, s) << "  (" << s.bad_observations << " bad, "
                  << s.good_observations << " good observations)\n";
        for (const auto& p : s.sample_bad_pairs) std::cout << "      " << p << "\n";
      }
    }
    return result.suspects.empty() ? 0 : 1;
  } catch (const UsageError& e) {
    return args.usage_error(e.what());
  } catch (const fabric::InputError& e) {
    const auto& all = e.diagnostics();
    for (size_t i = 0; i < all.size() && i < 20; ++i)
      std::cerr << fabric::format_diagnostic(all[i]) << "\n";
    if (all.size() > 20) std::cerr << "... and " << all.size() - 20 << " more errors\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ibwarden localize: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace ibw::cli
