#include "actions/slurm_client.h"

#include <charconv>
#include <unordered_set>

#include "core/hostlist.h"
#include "fabric/text_util.h"

namespace ibw::actions {
namespace {

// The value of " KEY=" in a `scontrol show node -o` line, up to the next blank ("" if none).
std::string_view word_after(std::string_view line, std::string_view key) {
  size_t at = line.rfind(key, 0) == 0 ? 0 : line.find(" " + std::string(key));
  if (at == std::string_view::npos) return {};
  at += (at == 0 ? 0 : 1) + key.size();
  size_t end = line.find(' ', at);
  return line.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
}

bool has_flag(std::string_view state, std::string_view flag) {
  size_t start = 0;
  while (start <= state.size()) {
    size_t plus = state.find('+', start);
    std::string_view part =
        state.substr(start, plus == std::string_view::npos ? plus : plus - start);
    while (!part.empty() && (part.back() == '*' || part.back() == '~' || part.back() == '#'))
      part.remove_suffix(1);
    if (part == flag) return true;
    if (plus == std::string_view::npos) break;
    start = plus + 1;
  }
  return false;
}

// Splits Slurm's "TEXT [user@2026-11-28T00:43:42]" into TEXT and user.
void split_reason(std::string_view r, SlurmNode& n) {
  while (!r.empty() && (r.back() == ' ' || r.back() == '\r')) r.remove_suffix(1);
  size_t open = r.rfind(" [");
  if (!r.empty() && r.back() == ']' && open != std::string_view::npos) {
    std::string_view tag = r.substr(open + 2, r.size() - open - 3);
    size_t at = tag.find('@');
    if (at != std::string_view::npos && tag.find(' ') == std::string_view::npos) {
      n.reason_user = std::string(tag.substr(0, at));
      r = r.substr(0, open);
    }
  }
  n.reason = std::string(r);
}

}  // namespace

std::vector<SlurmNode> parse_scontrol_nodes(std::string_view text) {
  std::vector<SlurmNode> nodes;
  fabric::text::for_each_line(text, [&](std::string_view line, int) {
    if (line.rfind("NodeName=", 0) != 0) return;
    SlurmNode n;
    n.name = std::string(word_after(line, "NodeName="));
    n.state = std::string(word_after(line, "State="));
    n.drain = has_flag(n.state, "DRAIN");
    n.not_responding =
        has_flag(n.state, "NOT_RESPONDING") || n.state.find('*') != std::string::npos;
    // Reason= runs to the end of the line (it holds blanks); it is the line's last field.
    if (size_t at = line.find(" Reason="); at != std::string_view::npos)
      split_reason(line.substr(at + 8), n);
    nodes.push_back(std::move(n));
  });
  return nodes;
}

std::vector<SlurmJob> parse_squeue(std::string_view text) {
  std::vector<SlurmJob> jobs;
  fabric::text::for_each_line(text, [&](std::string_view line, int line_no) {
    if (line.empty()) return;
    std::string_view f[4];
    size_t at = 0;
    int i = 0;
    for (; i < 3; ++i) {
      size_t bar = line.find('|', at);
      if (bar == std::string_view::npos) break;
      f[i] = line.substr(at, bar - at);
      at = bar + 1;
    }
    auto bad = [&](const std::string& why) {
      return SlurmError("squeue output line " + std::to_string(line_no) + ": " + why + ": \"" +
                        std::string(line.substr(0, 200)) + "\"");
    };
    if (i < 3) throw bad("expected JOBID|USER|NODES|NODELIST");
    f[3] = line.substr(at);
    SlurmJob j;
    j.id = std::string(f[0]);
    j.user = std::string(f[1]);
    j.nodelist = std::string(f[3]);
    if (j.id.empty() ||
        std::from_chars(f[2].data(), f[2].data() + f[2].size(), j.node_count).ec != std::errc())
      throw bad("no job id or node count");
    core::HostlistError err;
    j.nodes = core::expand_hostlist(j.nodelist, &err);
    if (j.nodes.empty() && !j.nodelist.empty())
      throw bad("node list at " + std::to_string(err.offset) + ": " + err.message);
    jobs.push_back(std::move(j));
  });
  return jobs;
}

std::string CommandSlurmClient::run(const std::vector<std::string>& argv) const {
  CommandResult r = run_command(argv, {cmd_.timeout, size_t{16} << 20});
  if (!r.ok()) throw SlurmError("Slurm: " + describe(argv, r));
  return r.out;
}

void CommandSlurmClient::drain(const std::string& node, const std::string& reason) {
  run({cmd_.scontrol, "update", "nodename=" + node, "state=drain", "reason=" + reason});
}

void CommandSlurmClient::resume(const std::string& node) {
  // UNDRAIN, not RESUME: only the drain is lifted and the node keeps its base state (a node
  // that is DOWN for another reason stays down). Slurm 22.05 answers "Invalid node state
  // specified" for a node in state UNKNOWN (never registered) yet lifts its drain: the node is
  // read back, and only a drain still in place is an error.
  try {
    run({cmd_.scontrol, "update", "nodename=" + node, "state=undrain"});
  } catch (const SlurmError&) {
    SlurmNode now = this->node(node);
    if (now.drain) throw;
  }
}

SlurmNode CommandSlurmClient::node(const std::string& node) {
  auto nodes = parse_scontrol_nodes(run({cmd_.scontrol, "show", "node", "-o", node}));
  for (auto& n : nodes)
    if (n.name == node) return std::move(n);
  throw SlurmError("Slurm: scontrol show node " + node + ": no such node in its answer");
}

std::vector<SlurmJob> CommandSlurmClient::running_jobs(const std::vector<std::string>& nodes) {
  // All running jobs, filtered here: squeue -w fails as a whole on one unknown node name.
  auto jobs = parse_squeue(run({cmd_.squeue, "-h", "-t", "RUNNING", "-o", kSqueueFormat}));
  if (nodes.empty()) return jobs;
  std::unordered_set<std::string> wanted(nodes.begin(), nodes.end());
  std::vector<SlurmJob> out;
  for (auto& j : jobs)
    for (const auto& n : j.nodes)
      if (wanted.count(n)) {
        out.push_back(std::move(j));
        break;
      }
  return out;
}

}  // namespace ibw::actions
