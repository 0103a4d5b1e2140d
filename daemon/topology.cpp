#include "daemon/topology.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "fabric/ibnd_loader.h"
#include "fabric/lost_links.h"
#include "fabric/topology.h"

#include <algorithm>
#include <unordered_map>

namespace ibw::daemon {

std::shared_ptr<const Topology> make_topology(fabric::Fabric fab, const fabric::Plan* plan,
                                              int64_t now_us) {
  auto topo = std::make_shared<Topology>();
  topo->fabric = std::move(fab);
  topo->correlator = std::make_unique<ingest::Correlator>(topo->fabric, plan);
  topo->discovered_us = now_us;
  std::unordered_map<std::string, const fabric::PlannedLink*> planned;
  if (plan)
    for (const auto& l : plan->links) planned.emplace(l.cable_id, &l);
  for (uint32_t i = 0; i < topo->fabric.size(); ++i) {
    const fabric::Node& n = topo->fabric.node(i);
    const fabric::Port* p0 = n.port(0);
    uint16_t sw_lid = (n.type == fabric::NodeType::sw && p0) ? p0->lid : 0;
    for (const fabric::Port& p : n.ports) {
      if (p.number == 0 || !p.has_peer()) continue;
      uint16_t lid = n.type == fabric::NodeType::sw ? sw_lid : p.lid;
      if (lid) topo->targets.push_back({n.guid, lid, p.number});
      const fabric::Node& peer = topo->fabric.node(p.peer_node);
      const fabric::Port* far = peer.port(p.peer_port);
      rules::LinkInfo l;
      l.node_guid = n.guid, l.port = p.number;
      l.peer_guid = peer.guid, l.peer_port = p.peer_port;
      l.switch_node = n.type == fabric::NodeType::sw;
      l.peer_switch = peer.type == fabric::NodeType::sw;
      l.active_width = p.width_active, l.active_speed = p.speed_active;
      const fabric::EnabledRate enabled = fabric::enabled_rate(p, far);
      l.enabled_width = enabled.width, l.enabled_speed = enabled.speed;
      if (auto it = planned.find(topo->correlator->cable_at(n.guid, p.number)); it != planned.end())
        l.plan_width = it->second->width, l.plan_speed = it->second->speed;
      topo->links.push_back(l);
    }
  }
  rules::link_peers(topo->links);  // every sweep's windows and verdicts find peers by it
  return topo;
}

namespace topology_detail {

// Runs `ibwarden discover-cache` (this very binary) and loads the cache it writes.
fabric::Fabric discover_in_child(const config::Config& cfg, std::chrono::milliseconds timeout) {
  char tmpl[] = "/tmp/ibwarden-discovery.XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("cannot create a directory for the discovery cache");
  std::string dir = tmpl, cache = dir + "/fabric.cache";
  struct Cleanup {
    std::string dir;
    ~Cleanup() { std::filesystem::remove_all(dir); }
  } cleanup{dir};
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<std::string> args = {self,  "discover-cache", "--output",
                                   cache, "--ca-port",      std::to_string(cfg.fabric.ca_port)};
  if (!cfg.fabric.ca.empty()) args.insert(args.end(), {"--ca", cfg.fabric.ca});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    throw std::runtime_error("cannot start the discovery process " + self);
  auto until = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      throw std::runtime_error("live discovery did not finish within " +
                               std::to_string(timeout.count()) + " ms; killed");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(
        "live discovery failed (discovery process exit status " +
        std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) +
        "): is the port up and umad accessible?");
  return fabric::load_topology_file(cache);
}

}  // namespace topology_detail

int cmd_discover_cache(int argc, char** argv, int first) {
  std::string out, ca;
  int ca_port = 0;
  for (int i = first; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--output")
      out = argv[i + 1];
    else if (flag == "--ca")
      ca = argv[i + 1];
    else if (flag == "--ca-port")
      ca_port = std::atoi(argv[i + 1]);
  }
  if (out.empty()) {
    std::fprintf(stderr, "usage: ibwarden discover-cache --output FILE [--ca CA] [--ca-port N]\n");
    return 2;
  }
  try {
    fabric::LiveDiscoveryOptions opts;
    opts.ca = ca;
    opts.ca_port = ca_port;
    fabric::MadLocks mad;  // this child process's own
    fabric::discover_live_to_cache(mad, opts, out);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ibwarden discover-cache: %s\n", e.what());
    return 1;
  }
}

fabric::Fabric discover_fabric(fabric::MadLocks& mad, const config::Config& cfg,
                               const fabric::NodeNameMap* names, bool isolated,
                               fabric::RecoveryReport* recovery) {
  fabric::Fabric fab;
  if (cfg.fabric.discovery == "live" && isolated) {
    fab = topology_detail::discover_in_child(cfg, std::chrono::seconds(120));
  } else if (cfg.fabric.discovery == "live") {
    fabric::LiveDiscoveryOptions opts;
    opts.ca = cfg.fabric.ca;
    opts.ca_port = cfg.fabric.ca_port;
    fab = fabric::discover_live(mad, opts);
  } else {
    fab = fabric::load_topology_file(cfg.fabric.discovery);
  }
  if (cfg.fabric.discovery == "live") {
    // Names first, so the recovered links are labelled as on-call knows the nodes.
    fabric::apply_node_names(fab, names && !names->empty() ? names : nullptr);
    fabric::RecoveryOptions opts;
    opts.ca = cfg.fabric.ca;
    opts.ca_port = cfg.fabric.ca_port;
    opts.subnet_list = cfg.opensm.dump_dir + "/opensm-subnet.lst";
    fabric::RecoveryReport report = fabric::recover_lost_links(mad, fab, opts);
    if (recovery) *recovery = std::move(report);
  }
  fabric::apply_node_names(fab, names && !names->empty() ? names : nullptr);
  return fab;
}

std::shared_ptr<const Topology> discover_topology(fabric::MadLocks& mad, const config::Config& cfg,
                                                  const fabric::Plan* plan,
                                                  const fabric::NodeNameMap* names, int64_t now_us,
                                                  bool isolated, const fabric::Fabric* previous,
                                                  std::vector<std::string>* kept,
                                                  fabric::RecoveryReport* recovery) {
  fabric::Fabric fab = discover_fabric(mad, cfg, names, isolated, recovery);
  if (previous && cfg.fabric.discovery == "live") {
    auto restored = fabric::keep_lost_links(fab, *previous);
    if (kept) *kept = std::move(restored);
  }
  return make_topology(std::move(fab), plan, now_us);
}

}  // namespace ibw::daemon
