// SimLab: a real InfiniBand control plane for one test: ibsim simulating a fabric from a net
// file, OpenSM (under umad2sim) bringing it to SUBNET UP, and a way to run infiniband-diags
// or ibwarden against it. Each instance gets its own IBSIM_SOCKNAME and working directory,
// so tests can run in parallel. The destructor tears everything down even after a failed
// assertion; children also get SIGTERM if the test process dies (PR_SET_PDEATHSIG).
#pragma once

#include <sys/types.h>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "tests/lab/child_process.h"

namespace ibw::lab {

struct SimLabOptions {
  std::string net_text;  // ibsim net file contents
  bool start_opensm = true;
  std::chrono::seconds timeout{90};                    // for SUBNET UP
  int max_nodes = 0, max_switches = 0, max_ports = 0;  // ibsim -N/-S/-P; 0 = derive
  std::vector<std::string> opensm_args;  // appended to OpenSM's command line, e.g. {"-D", "0x43"}
};

class SimLab {
 public:
  explicit SimLab(SimLabOptions options);  // throws std::runtime_error with log tails
  ~SimLab();
  SimLab(const SimLab&) = delete;
  SimLab& operator=(const SimLab&) = delete;

  const std::string& dir() const { return dir_; }
  const std::string& sockname() const { return sock_; }
  std::string opensm_log() const;

  // Sends one console command to ibsim (e.g. `Unlink "leaf003"[17]`).
  void console(const std::string& command);
  // Runs argv in dir() under umad2sim, attached at SIM_HOST=host when given.
  RunResult run(const std::vector<std::string>& argv, const std::string& sim_host = "",
                std::chrono::seconds timeout = std::chrono::seconds(120)) const;
  // Waits until pattern appears in the OpenSM log `count` times or the timeout passes.
  bool wait_for_log(const std::string& pattern, int count, std::chrono::seconds timeout) const;

  // Kills the OpenSM the lab started (SIGKILL: a crash; the fabric keeps its LIDs and LFTs).
  void kill_opensm();
  // Stops it cleanly (SIGTERM: OpenSM logs "Exiting SM" and exits) and waits for it.
  void stop_opensm();
  // Starts it again with the same flags (its log goes on in opensm.log); false when it did
  // not log one more SUBNET UP within `timeout`.
  bool restart_opensm(std::chrono::seconds timeout);
  // Starts another OpenSM attached at SIM_HOST=`host` with `args` (e.g. {"-p", "1"}), logging
  // to dir()/opensm-<tag>.log with its own cache dir; returns its pid (stopped at teardown).
  pid_t start_other_opensm(const std::string& host, const std::string& tag,
                           const std::vector<std::string>& args);
  void kill_other_opensm(pid_t pid);

 private:
  void teardown();
  pid_t spawn_opensm(const std::string& host, const std::string& log, const std::string& cache_dir,
                     const std::vector<std::string>& args);

  std::string dir_;
  std::string sock_;
  pid_t ibsim_ = -1;
  pid_t opensm_ = -1;
  std::vector<std::string> opensm_args_;  // the lab OpenSM's extra flags (for a restart)
  std::vector<pid_t> others_;             // start_other_opensm()
  int ibsim_stdin_ = -1;
};

// Path of the umad2sim preload library; empty when ibsim-utils is not installed.
std::string umad2sim_library();

}  // namespace ibw::lab
