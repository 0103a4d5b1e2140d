#include "tests/lab/sim_lab.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tests/lab/child_process.h"

namespace ibw::lab {
namespace fs = std::filesystem;
namespace {

int count_of(const std::string& text, const std::string& pattern) {
  int n = 0;
  for (size_t at = text.find(pattern); at != std::string::npos; at = text.find(pattern, at + 1))
    ++n;
  return n;
}

}  // namespace

std::string umad2sim_library() {
  for (const char* p :
       {"/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so",
        "/usr/lib/aarch64-linux-gnu/umad2sim/libumad2sim.so", "/usr/lib/umad2sim/libumad2sim.so"})
    if (fs::exists(p)) return p;
  return {};
}

SimLab::SimLab(SimLabOptions options) {
  static std::atomic<int> counter{0};
  sock_ = "ibw-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
  dir_ = (fs::temp_directory_path() / sock_).string();
  fs::remove_all(dir_);
  fs::create_directories(dir_);
  { std::ofstream(dir_ + "/net") << options.net_text; }
  if (umad2sim_library().empty())
    throw std::runtime_error("ibsim-utils (umad2sim) is not installed");

  int nodes = 0, switches = 0, ports = 0;
  std::istringstream in(options.net_text);
  for (std::string line; std::getline(in, line);) {
    bool sw = line.rfind("Switch", 0) == 0, ca = line.rfind("Hca", 0) == 0;
    if (sw || ca) {
      ++nodes;
      switches += sw;
      ports += std::atoi(line.c_str() + (sw ? 6 : 3)) + 1;
    }
  }
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::vector<std::string> argv = {"ibsim", "-s"};
  auto limit = [&](const char* flag, int want, int floor) {
    argv.push_back(flag);
    argv.push_back(std::to_string(std::max(want, floor)));
  };
  limit("-N", options.max_nodes ? options.max_nodes : nodes + 16, 2048);
  limit("-S", options.max_switches ? options.max_switches : switches + 8, 256);
  limit("-P", options.max_ports ? options.max_ports : ports + 64, 13312);
  argv.push_back("net");
  ibsim_ = spawn_child(argv, dir_, {{"IBSIM_SOCKNAME", sock_}}, fds[0], dir_ + "/ibsim.out",
                       dir_ + "/ibsim.err");
  close(fds[0]);
  ibsim_stdin_ = fds[1];
  fcntl(ibsim_stdin_, F_SETFD, FD_CLOEXEC);

  auto deadline = std::chrono::steady_clock::now() + options.timeout;
  while (slurp_file(dir_ + "/ibsim.out").find("Network simulator ready") == std::string::npos) {
    if (!child_alive(ibsim_) || std::chrono::steady_clock::now() > deadline) {
      std::string why = "ibsim did not start:\n" + text_tail(slurp_file(dir_ + "/ibsim.out") +
                                                             slurp_file(dir_ + "/ibsim.err"));
      teardown();
      throw std::runtime_error(why);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!options.start_opensm) return;
  opensm_args_ = options.opensm_args;
  opensm_ = spawn_opensm("", dir_ + "/opensm.log", dir_, opensm_args_);
  auto remaining =
      std::chrono::duration_cast<std::chrono::seconds>(deadline - std::chrono::steady_clock::now());
  if (!wait_for_log("SUBNET UP", 1, remaining)) {
    std::string why = "OpenSM did not reach SUBNET UP:\n" + text_tail(opensm_log()) +
                      text_tail(slurp_file(dir_ + "/opensm.err"), 500);
    teardown();
    throw std::runtime_error(why);
  }
}

SimLab::~SimLab() {
  teardown();
}

pid_t SimLab::spawn_opensm(const std::string& host, const std::string& log,
                           const std::string& cache_dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {
      "opensm", "-f", log, "-d2", "-R", "ftree,updn,minhop", "--dump_files_dir", cache_dir};
  argv.insert(argv.end(), args.begin(), args.end());
  std::map<std::string, std::string> env = {
      {"IBSIM_SOCKNAME", sock_}, {"LD_PRELOAD", umad2sim_library()}, {"OSM_CACHE_DIR", cache_dir}};
  if (!host.empty()) env["SIM_HOST"] = host;
  std::string base = log.substr(0, log.size() - 4);  // ".log"
  return spawn_child(argv, dir_, env, -1, base + ".out", base + ".err");
}

void SimLab::kill_opensm() {
  if (opensm_ <= 0) return;
  kill(-opensm_, SIGKILL);
  waitpid(opensm_, nullptr, 0);
  opensm_ = -1;
}

void SimLab::stop_opensm() {
  if (opensm_ <= 0) return;
  kill(opensm_, SIGTERM);
  for (int i = 0; i < 200 && waitpid(opensm_, nullptr, WNOHANG) == 0; ++i)  // up to 10 s
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (kill(opensm_, 0) == 0) {  // it did not exit: as kill_opensm
    kill(-opensm_, SIGKILL);
    waitpid(opensm_, nullptr, 0);
  }
  opensm_ = -1;
}

bool SimLab::restart_opensm(std::chrono::seconds timeout) {
  int ups = count_of(opensm_log(), "SUBNET UP");
  opensm_ = spawn_opensm("", dir_ + "/opensm.log", dir_, opensm_args_);
  return wait_for_log("SUBNET UP", ups + 1, timeout);
}

pid_t SimLab::start_other_opensm(const std::string& host, const std::string& tag,
                                 const std::vector<std::string>& args) {
  std::string cache = dir_ + "/opensm-" + tag;
  fs::create_directories(cache);
  pid_t pid = spawn_opensm(host, dir_ + "/opensm-" + tag + ".log", cache, args);
  others_.push_back(pid);
  return pid;
}

void SimLab::kill_other_opensm(pid_t pid) {
  for (auto& p : others_)
    if (p == pid) {
      kill(-p, SIGKILL);
      waitpid(p, nullptr, 0);
      p = -1;
    }
}

void SimLab::teardown() {
  for (auto& p : others_) stop_child(p);
  stop_child(opensm_);
  if (ibsim_stdin_ >= 0) close(ibsim_stdin_), ibsim_stdin_ = -1;
  stop_child(ibsim_);
  if (!std::getenv("IBW_KEEP_LAB") && !dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

std::string SimLab::opensm_log() const {
  return slurp_file(dir_ + "/opensm.log");
}

void SimLab::console(const std::string& command) {
  std::string line = command + "\n";
  if (write(ibsim_stdin_, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
    throw std::runtime_error("cannot write to the ibsim console");
}

bool SimLab::wait_for_log(const std::string& pattern, int count,
                          std::chrono::seconds timeout) const {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (count_of(opensm_log(), pattern) >= count) return true;
    if (opensm_ > 0 && !child_alive(opensm_)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

RunResult SimLab::run(const std::vector<std::string>& argv, const std::string& sim_host,
                      std::chrono::seconds timeout) const {
  static std::atomic<int> seq{0};
  std::string base = dir_ + "/run" + std::to_string(seq++);
  std::map<std::string, std::string> env = {{"IBSIM_SOCKNAME", sock_},
                                            {"LD_PRELOAD", umad2sim_library()}};
  if (!sim_host.empty()) env["SIM_HOST"] = sim_host;
  return run_child(argv, dir_, env, base, timeout);
}

}  // namespace ibw::lab
