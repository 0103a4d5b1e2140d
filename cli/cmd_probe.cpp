// `ibwarden probe`: one round of active probes from the local port (ingest/prober.h): every
// LID LID-routed and every link by directed route, written as route observations (one per
// target: JSONL by default, or CSV with a header) for the localizer. The fabric comes from
// the configured discovery (live in a child process, or an ibnetdiscover file), the local
// port from fabric.ca/fabric.ca_port, the limits from the probes: section.
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "config/config.h"
#include "daemon/topology.h"
#include "ingest/prober.h"
#include "ingest/sequential.h"

namespace ibw::cli {

using daemon::discover_topology;

void print_recovery(const fabric::RecoveryReport& r, const char* who) {
  for (const auto& l : r.links) {
    std::cerr << who << ": warning: the discovery lost link " << l.label << " (found again "
              << (l.how == "opensm" ? std::string("in OpenSM's subnet list")
                                    : "by re-asking: " + std::to_string(l.smps_lost) + " of " +
                                          std::to_string(l.smps_sent) + " SMPs lost")
              << "): evidence of loss\n";
  }
  for (const auto& p : r.unresolved)
    std::cerr << who << ": warning: " << p << " is Active but no peer answered through it\n";
  for (const auto& w : r.warnings) std::cerr << who << ": warning: " << w << "\n";
  if (auto s = fabric::recovery_summary(r); !s.empty())
    std::cerr << who << ": discovery: " << s << "\n";
}
int cmd_probe(const CmdArgs& args) {
  return run_command(args, "probe", [&] {
    if (!args.has("config")) throw UsageError("--config is required");
    std::string format = args.choice("format", "jsonl");
    std::optional<int> count = args.get_int("count", 1, 10000);
    config::Config cfg = config::load_config(*args.get("config"));

    std::string output = args.get("output").value_or("-");
    std::ofstream file;
    if (output != "-") {
      file.open(output, std::ios::trunc);
      if (!file) throw std::runtime_error("cannot write " + output);
    }
    std::ostream& out = output == "-" ? std::cout : file;

    ingest::SystemClock clock;
    fabric::NodeNameMap names;
    if (cfg.fabric.node_name_map) names = fabric::load_node_name_map(*cfg.fabric.node_name_map);
    // Live discovery runs in a child: libibnetdisc must not keep SMP agents in this process.
    fabric::RecoveryReport recovery;
    fabric::MadLocks mad;  // this process's: the recovery and the prober share it
    auto topo =
        discover_topology(mad, cfg, nullptr, &names, clock.now_us(),
                          /*isolated=*/cfg.fabric.discovery == "live", nullptr, nullptr, &recovery);

    ingest::ProbeOptions opts;
    opts.ca = cfg.fabric.ca;
    opts.ca_port = cfg.fabric.ca_port;
    opts.count = count ? static_cast<unsigned>(*count) : cfg.probes.count;
    opts.timeout_ms = cfg.probes.timeout_ms;
    opts.max_in_flight = cfg.probes.max_in_flight;
    opts.max_rate = cfg.probes.max_rate;
    auto prober = ingest::Prober::open(mad, opts, clock);
    const ingest::Vantage& v = prober->vantage();
    ingest::ProbeRound round = ingest::probe_fabric(*prober, topo->fabric);
    // Every link again until Wald's test decides: a fixed count misses weak loss.
    ingest::SequentialStats seq = ingest::probe_until_decided(*prober, round, {});

    if (format == "csv") out << ingest::observation_csv_header() << "\n";
    size_t lids = 0, links = 0;
    for (const auto& o : round.observations) {
      out << (format == "csv" ? ingest::observation_csv(o) : ingest::observation_jsonl(o)) << "\n";
      (o.routing == ingest::Routing::directed ? links : lids)++;
    }
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + output);
    for (const auto& w : round.warnings) std::cerr << "ibwarden probe: warning: " << w << "\n";
    print_recovery(recovery, "ibwarden probe");
    const ingest::ProbeStats& s = round.stats;
    double pct = s.mads_sent ? 100.0 * static_cast<double>(s.lost) / s.mads_sent : 0.0;
    std::fprintf(stderr,
                 "ibwarden probe: from LID %u (%s port %d): %zu LIDs, %zu links; %llu MADs sent, "
                 "%llu lost (%.2f%%), %llu mismatched; %zu links probed again (%llu MADs): %zu "
                 "lossy, %zu undecided; %.3f s (max %u in flight, %u MADs/s limit)\n",
                 v.lid, fabric::format_guid(v.node_guid).c_str(), v.port, lids, links,
                 static_cast<unsigned long long>(s.mads_sent),
                 static_cast<unsigned long long>(s.lost), pct,
                 static_cast<unsigned long long>(s.mismatched), seq.probed_again,
                 static_cast<unsigned long long>(seq.mads), seq.lossy, seq.undecided,
                 s.duration_us / 1e6, s.max_outstanding, opts.max_rate);
    return 0;
  });
}

}  // namespace ibw::cli
