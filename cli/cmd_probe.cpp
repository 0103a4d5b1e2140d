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

namespace ibw::cli {

using daemon::discover_topology;
namespace cmd_probe_detail {

constexpr const char* kProbeHelp =
    R"(usage: ibwarden probe --config FILE [--output FILE] [--count N] [--format jsonl|csv]

Sends one round of SubnGet(NodeInfo) SMPs from the local port (fabric.ca, fabric.ca_port):
LID-routed to every switch and CA LID, and by directed route through every link (the
request crosses it one way, the reply the other). Writes one route observation per target
with sent, lost and RTT p50/p99 (microseconds). Limits come from the probes: section.

--output   where to write (default or "-": standard output)
--count    MADs per target (default: probes.count)
--format   jsonl (default) or csv (with a header)
A summary goes to standard error.
Exit status: 0 the round ran, 2 usage, input or port error.
)";

// Private serialisation of observations (the layout ingest/observation.h documents).
// TODO(observation.cpp): replace with ingest::observation_jsonl/_csv once they exist.
std::string routing_text(ingest::Routing r) {
  switch (r) {
    case ingest::Routing::static_lft:
      return "static";
    case ingest::Routing::adaptive:
      return "adaptive";
    case ingest::Routing::directed:
      return "directed";
    case ingest::Routing::unspecified:
      break;
  }
  return "";
}

std::string path_text(const std::vector<int>& path) {
  std::string s;
  for (int p : path) s += (s.empty() ? "" : ",") + std::to_string(p);
  return s;
}

std::string time_text(int64_t us) {  // "2026-11-25T02:00:00Z"
  if (us <= 0) return "";
  std::time_t secs = static_cast<std::time_t>(us / 1'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string number_text(double v) {
  nlohmann::json j = v;
  return j.dump();
}

std::string jsonl(const ingest::Observation& o) {
  nlohmann::ordered_json j = {{"src", o.src}, {"dst", o.dst}, {"sent", o.sent}, {"lost", o.lost}};
  if (o.rtt_p50_us) j["rtt_p50_us"] = *o.rtt_p50_us;
  if (o.rtt_p99_us) j["rtt_p99_us"] = *o.rtt_p99_us;
  if (o.routing != ingest::Routing::unspecified) j["routing"] = routing_text(o.routing);
  if (!o.path.empty()) j["path"] = path_text(o.path);
  if (o.time_us) j["time"] = time_text(o.time_us);
  return j.dump();
}

constexpr const char* kCsvHeader = "src,dst,sent,lost,rtt_p50_us,rtt_p99_us,routing,path,time";

std::string csv(const ingest::Observation& o) {
  auto opt = [](const std::optional<double>& v) { return v ? number_text(*v) : std::string(); };
  std::string path = path_text(o.path);
  return o.src + "," + o.dst + "," + std::to_string(o.sent) + "," + std::to_string(o.lost) + "," +
         opt(o.rtt_p50_us) + "," + opt(o.rtt_p99_us) + "," + routing_text(o.routing) + "," +
         (path.empty() ? "" : "\"" + path + "\"") + "," + time_text(o.time_us);
}

}  // namespace cmd_probe_detail

int cmd_probe(int argc, char** argv, int first) {
  using namespace cmd_probe_detail;
  try {
    Args args({{"config"}, {"output"}, {"count"}, {"format"}, {"help", false}}, argc, argv, first);
    if (args.has("help")) return std::cout << kProbeHelp, 0;
    if (!args.has("config")) throw UsageError("--config is required");
    std::string format = args.get("format").value_or("jsonl");
    if (format != "jsonl" && format != "csv") throw UsageError("--format must be jsonl or csv");
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
    auto topo = discover_topology(cfg, nullptr, &names, clock.now_us(),
                                  /*isolated=*/cfg.fabric.discovery == "live");

    ingest::ProbeOptions opts;
    opts.ca = cfg.fabric.ca;
    opts.ca_port = cfg.fabric.ca_port;
    opts.count = count ? static_cast<unsigned>(*count) : cfg.probes.count;
    opts.timeout_ms = cfg.probes.timeout_ms;
    opts.max_in_flight = cfg.probes.max_in_flight;
    opts.max_rate = cfg.probes.max_rate;
    auto prober = ingest::Prober::open(opts, clock);
    const ingest::Vantage& v = prober->vantage();
    ingest::ProbeRound round = ingest::probe_fabric(*prober, topo->fabric);

    if (format == "csv") out << kCsvHeader << "\n";
    size_t lids = 0, links = 0;
    for (const auto& o : round.observations) {
      out << (format == "csv" ? csv(o) : jsonl(o)) << "\n";
      (o.routing == ingest::Routing::directed ? links : lids)++;
    }
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + output);
    for (const auto& w : round.warnings) std::cerr << "ibwarden probe: warning: " << w << "\n";
    const ingest::ProbeStats& s = round.stats;
    double pct = s.mads_sent ? 100.0 * static_cast<double>(s.lost) / s.mads_sent : 0.0;
    std::fprintf(stderr,
                 "ibwarden probe: from LID %u (%s port %d): %zu LIDs, %zu links; %llu MADs sent, "
                 "%llu lost (%.2f%%), %llu mismatched; %.3f s (max %u in flight, %u MADs/s "
                 "limit)\n",
                 v.lid, fabric::format_guid(v.node_guid).c_str(), v.port, lids, links,
                 static_cast<unsigned long long>(s.mads_sent),
                 static_cast<unsigned long long>(s.lost), pct,
                 static_cast<unsigned long long>(s.mismatched), s.duration_us / 1e6,
                 s.max_outstanding, opts.max_rate);
    return 0;
  } catch (const UsageError& e) {
    return usage_error("probe", e.what(), kProbeHelp);
  } catch (const std::exception& e) {
    std::cerr << "ibwarden probe: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace ibw::cli
