// JobBoard and LinkJobs; see job_board.h.
#include "daemon/job_board.h"

#include <algorithm>

#include "daemon/fabric_state.h"

namespace ibw::daemon {

void JobBoard::configure(bool enabled) {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.enabled = enabled;
}

void JobBoard::set(std::vector<actions::SlurmJob> jobs, int64_t now_us) {
  uint64_t dropped = 0;
  if (jobs.size() > kMaxJobs) {
    dropped = jobs.size() - kMaxJobs;
    jobs.resize(kMaxJobs);
  }
  auto index = std::make_shared<const actions::JobIndex>(jobs);  // built outside the lock
  std::lock_guard<std::mutex> lock(mutex_);
  index_ = std::move(index);
  stats_.running = static_cast<int64_t>(jobs.size());
  stats_.capped += dropped;
  stats_.refreshed_us = now_us;
}

void JobBoard::failed() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.failures;
}

std::shared_ptr<const actions::JobIndex> JobBoard::index() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return index_;
}

JobBoard::Stats JobBoard::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

std::optional<actions::AffectedJobs> LinkJobs::of(const PortRefs& ports) {
  if (!cfg_.slurm.enabled) return std::nullopt;
  auto jobs = fabric_.jobs.index();
  auto topo = fabric_.topology();
  if (!jobs || !topo) return std::nullopt;
  const fabric::Fabric& fab = topo->fabric;
  std::shared_ptr<const fabric::HostMap> hosts;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (mapped_ != topo) {
      hosts_ = std::make_shared<const fabric::HostMap>(fab, &fabric_.slurm_map);
      mapped_ = topo;
    }
    hosts = hosts_;
  }
  auto routes = cfg_.probes.routes == "static" ? fabric_.routes() : nullptr;
  fabric::LinkHosts all;
  for (auto [guid, port] : ports) {
    uint32_t node = fab.find_guid(guid);
    if (node == fabric::kNoNode) continue;
    std::vector<int> asked;  // port 0: every linked port of the node
    if (port > 0) asked.push_back(port);
    for (int p = 1; port == 0 && p <= fab.node(node).num_ports; ++p)
      if (const fabric::Port* q = fab.node(node).port(p); q && q->has_peer()) asked.push_back(p);
    for (int p : asked) {
      if (const fabric::Port* q = fab.node(node).port(p); !q || !q->present) continue;
      fabric::LinkHosts h = fabric::hosts_of_link(fab, routes.get(), node, p);
      all.cas.insert(all.cas.end(), h.cas.begin(), h.cas.end());
      all.pairs += h.pairs;
    }
  }
  std::sort(all.cas.begin(), all.cas.end());
  all.cas.erase(std::unique(all.cas.begin(), all.cas.end()), all.cas.end());
  return actions::affected_jobs(*hosts, all, *jobs);
}

}  // namespace ibw::daemon
