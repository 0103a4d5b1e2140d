// The child processes of the test labs (tests/lab/sim_lab.h, tests/lab/slurm_lab.h): one way to
// start a daemon or a tool in its own process group that dies with the test process, stop it
// (SIGTERM to the group, SIGKILL after a second), and read its output files.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace ibw::lab {

// Forks argv (looked up in PATH) in its own process group, with SIGTERM when this process dies;
// stdin from in_fd (or /dev/null), stdout/stderr truncated into the files `out` and `err`,
// `env` added to the environment, in directory `cwd`. Throws std::runtime_error when fork fails.
pid_t spawn_child(const std::vector<std::string>& argv, const std::string& cwd,
                  const std::map<std::string, std::string>& env, int in_fd, const std::string& out,
                  const std::string& err);
struct RunResult {
  int status = -1;  // exit code; 128+signal when killed
  std::string out;
  std::string err;
};
// Runs argv as spawn_child does (output in base + ".out" / ".err") and waits for it; killed
// (status 128+SIGKILL) when it runs past `timeout`.
RunResult run_child(const std::vector<std::string>& argv, const std::string& cwd,
                    const std::map<std::string, std::string>& env, const std::string& base,
                    std::chrono::milliseconds timeout);
// SIGTERM to pid's group, SIGKILL after about a second; reaps it and sets pid to -1.
void stop_child(pid_t& pid);
// True while the child pid has not exited (reaps it when it has).
bool child_alive(pid_t pid);

// A whole file ("" when missing), and the last n characters of a text.
std::string slurp_file(const std::string& path);
std::string text_tail(const std::string& s, size_t n = 1500);

}  // namespace ibw::lab
