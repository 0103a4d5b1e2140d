// run_command: one external command (Slurm's scontrol and squeue, actions/slurm_client.h) run
// without a shell: posix_spawnp (a bare name is looked up in PATH), stdin /dev/null, stdout and
// stderr read through pipes up to a byte cap each (the rest is drained and dropped, flagged),
// killed (SIGKILL) when it runs past its timeout. Never throws for the command's own failure:
// the result says what happened, and describe() puts it in one line for a log or an error.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace ibw::actions {

struct CommandResult {
  bool started = false;    // false: it could not be run at all (see error)
  bool timed_out = false;  // killed at the timeout
  int exit_code = -1;      // the exit status; 128+signal when killed by a signal
  std::string out, err;    // at most max_output bytes each
  bool truncated = false;  // out or err was longer than max_output
  std::string error;       // why it did not start (e.g. "No such file or directory")
  bool ok() const { return started && !timed_out && exit_code == 0 && !truncated; }
};

struct CommandLimits {
  std::chrono::milliseconds timeout{10'000};
  size_t max_output = size_t{16} << 20;
};

CommandResult run_command(const std::vector<std::string>& argv, const CommandLimits& limits);

// "scontrol update ...: exit 1: slurm_update error: Invalid node name specified" (stderr's
// first line, else stdout's), "...: timed out after 10000 ms", "...: cannot run: ENOENT ...".
std::string describe(const std::vector<std::string>& argv, const CommandResult& r);

}  // namespace ibw::actions
