// The Slurm client of issue 33: drain and resume a node, read a node's state and reason, and
// list the running jobs on a set of nodes. SlurmClient is the interface (the daemon's drain
// and resume, and `ibwarden jobs --link`, call it; tests may give a fake); CommandSlurmClient
// runs Slurm's own commands (scontrol, squeue) through run_command (no shell, bounded output,
// a timeout per command) and throws SlurmError, naming the command and what it said, when
// Slurm cannot be reached or refuses. The parsers of the commands' output are pure functions,
// tested on recorded text.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "actions/command.h"

namespace ibw::actions {

// Slurm could not be reached, or refused (the message names the command and its answer).
class SlurmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One node of `scontrol show node -o`.
struct SlurmNode {
  std::string name;
  std::string state;            // as printed: "IDLE", "IDLE+DRAIN", "ALLOCATED+DRAIN", "DOWN+..."
  bool drain = false;           // DRAIN among the state's flags (draining or drained)
  bool not_responding = false;  // NOT_RESPONDING among them (or a '*' suffix)
  std::string reason;           // without Slurm's " [user@time]" suffix; empty when none
  std::string reason_user;      // who set it (the user of that suffix), when given
};

// One running job of `squeue`.
struct SlurmJob {
  std::string id;  // "123", or "123_4" for an array task
  std::string user;
  int node_count = 0;
  std::string nodelist;            // as Slurm prints it (hostlist syntax: node[0001-0003])
  std::vector<std::string> nodes;  // nodelist expanded
};

// Every node line of `scontrol show node -o` (one node a line); lines without NodeName= are
// skipped.
std::vector<SlurmNode> parse_scontrol_nodes(std::string_view text);
// The output of `squeue -h -t RUNNING -o %i|%u|%D|%N` (kSqueueFormat). A line that does not
// have that form, or whose node list does not expand, throws SlurmError naming the line.
inline constexpr const char* kSqueueFormat = "%i|%u|%D|%N";
std::vector<SlurmJob> parse_squeue(std::string_view text);

class SlurmClient {
 public:
  virtual ~SlurmClient() = default;
  // scontrol update nodename=NODE state=drain reason=REASON.
  virtual void drain(const std::string& node, const std::string& reason) = 0;
  // Lifts the drain: scontrol update nodename=NODE state=undrain (the node's base state stays).
  virtual void resume(const std::string& node) = 0;
  // The node's state and reason; throws SlurmError (also for a node Slurm does not know).
  virtual SlurmNode node(const std::string& node) = 0;
  // The running jobs with at least one node in `nodes` (all running jobs when `nodes` is
  // empty), in squeue's order.
  virtual std::vector<SlurmJob> running_jobs(const std::vector<std::string>& nodes) = 0;
};

struct SlurmCommands {
  std::string scontrol = "scontrol";  // a bare name is found in PATH
  std::string squeue = "squeue";
  std::chrono::milliseconds timeout{10'000};
};

class CommandSlurmClient : public SlurmClient {
 public:
  explicit CommandSlurmClient(SlurmCommands commands) : cmd_(std::move(commands)) {}
  void drain(const std::string& node, const std::string& reason) override;
  void resume(const std::string& node) override;
  SlurmNode node(const std::string& node) override;
  std::vector<SlurmJob> running_jobs(const std::vector<std::string>& nodes) override;

 private:
  // Runs argv; throws SlurmError unless it exited 0 with its whole output. Returns stdout.
  std::string run(const std::vector<std::string>& argv) const;

  SlurmCommands cmd_;
};

}  // namespace ibw::actions
