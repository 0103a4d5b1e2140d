// The affected jobs of a link; see affected_jobs.h.
#include "actions/affected_jobs.h"

#include <algorithm>
#include <unordered_set>

namespace ibw::actions {

JobIndex::JobIndex(const std::vector<SlurmJob>& jobs) {
  jobs_.reserve(jobs.size());
  for (const SlurmJob& j : jobs) {
    auto at = static_cast<uint32_t>(jobs_.size());
    jobs_.push_back({j.id, j.user, j.node_count});
    for (const auto& n : j.nodes) by_node_[n].push_back(at);
  }
}

std::vector<AffectedJob> JobIndex::on_nodes(const std::vector<std::string>& nodes) const {
  std::vector<uint32_t> hit;
  for (const auto& n : nodes)
    if (auto it = by_node_.find(n); it != by_node_.end())
      hit.insert(hit.end(), it->second.begin(), it->second.end());
  std::sort(hit.begin(), hit.end());
  hit.erase(std::unique(hit.begin(), hit.end()), hit.end());
  std::vector<AffectedJob> out;
  out.reserve(hit.size());
  for (uint32_t i : hit) out.push_back(jobs_[i]);
  return out;
}

LinkNodes link_nodes(const fabric::HostMap& hosts, const fabric::LinkHosts& crossing) {
  LinkNodes out;
  std::unordered_set<std::string> seen;
  for (uint32_t ca : crossing.cas) {
    const std::string* node = hosts.node_of(ca);
    if (!node) {
      out.unmapped.push_back(ca);
      continue;
    }
    out.mapped.emplace_back(ca, *node);
    if (seen.insert(*node).second) out.nodes.push_back(*node);
  }
  return out;
}

AffectedJobs affected_jobs(const fabric::HostMap& hosts, const fabric::LinkHosts& crossing,
                           const JobIndex& jobs) {
  LinkNodes n = link_nodes(hosts, crossing);
  auto on = jobs.on_nodes(n.nodes);
  return {crossing.cas.size(), n.unmapped.size(), std::move(n.nodes), std::move(on)};
}

nlohmann::ordered_json jobs_json(const std::vector<AffectedJob>& jobs) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& j : jobs) out.push_back({{"id", j.id}, {"user", j.user}, {"nodes", j.nodes}});
  return out;
}

std::string affected_text(const AffectedJobs& a) {
  nlohmann::ordered_json j = {{"hosts", a.hosts},
                              {"unmapped", a.unmapped},
                              {"jobs", jobs_json(a.jobs)},
                              {"nodes", a.nodes}};
  return j.dump();
}

std::optional<AffectedJobs> parse_affected(const std::string& text) {
  if (text.empty()) return std::nullopt;
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("jobs") || !j["jobs"].is_array()) return std::nullopt;
  AffectedJobs a;
  a.hosts = j.value("hosts", size_t{0});
  a.unmapped = j.value("unmapped", size_t{0});
  if (j.contains("nodes") && j["nodes"].is_array())
    for (const auto& n : j["nodes"])
      if (n.is_string()) a.nodes.push_back(n.get<std::string>());
  for (const auto& x : j["jobs"])
    if (x.is_object())
      a.jobs.push_back({x.value("id", ""), x.value("user", ""), x.value("nodes", 0)});
  return a;
}

void put_affected(nlohmann::json& out, const std::optional<AffectedJobs>& a) {
  out["affected_hosts"] = a ? nlohmann::json(a->hosts) : nlohmann::json(nullptr);
  out["affected_jobs"] = a ? nlohmann::json(jobs_json(a->jobs)) : nlohmann::json(nullptr);
}

SlurmCommands slurm_commands(const config::SlurmSection& s) {
  SlurmCommands c;
  c.scontrol = s.scontrol;
  c.squeue = s.squeue;
  c.timeout = std::chrono::milliseconds(s.timeout_us / 1000);
  return c;
}

}  // namespace ibw::actions
