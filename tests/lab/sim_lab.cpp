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

namespace ibw::lab {
namespace fs = std::filesystem;
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string tail(const std::string& s, size_t n = 1500) {
  return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}

// Forks a child in its own process group that dies with us; stdin from in_fd (or
// /dev/null), stdout/stderr to files. env entries are added to the environment.
pid_t spawn(const std::vector<std::string>& argv, const std::string& cwd,
            const std::map<std::string, std::string>& env, int in_fd, const std::string& out,
            const std::string& err) {
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    if (chdir(cwd.c_str()) != 0) _exit(127);
    int in = in_fd >= 0 ? in_fd : open("/dev/null", O_RDONLY);
    int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(in, 0);
    dup2(o, 1);
    dup2(e, 2);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);
  return pid;
}

void stop(pid_t& pid) {
  if (pid <= 0) return;
  kill(-pid, SIGTERM);
  for (int i = 0; i < 50; ++i) {
    if (waitpid(pid, nullptr, WNOHANG) == pid) {
      pid = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(-pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  pid = -1;
}

bool alive(pid_t pid) {
  return pid > 0 && waitpid(pid, nullptr, WNOHANG) == 0;
}

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
  ibsim_ = spawn(argv, dir_, {{"IBSIM_SOCKNAME", sock_}}, fds[0], dir_ + "/ibsim.out",
                 dir_ + "/ibsim.err");
  close(fds[0]);
  ibsim_stdin_ = fds[1];
  fcntl(ibsim_stdin_, F_SETFD, FD_CLOEXEC);

  auto deadline = std::chrono::steady_clock::now() + options.timeout;
  while (slurp(dir_ + "/ibsim.out").find("Network simulator ready") == std::string::npos) {
    if (!alive(ibsim_) || std::chrono::steady_clock::now() > deadline) {
      std::string why =
          "ibsim did not start:\n" + tail(slurp(dir_ + "/ibsim.out") + slurp(dir_ + "/ibsim.err"));
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
    std::string why = "OpenSM did not reach SUBNET UP:\n" + tail(opensm_log()) +
                      tail(slurp(dir_ + "/opensm.err"), 500);
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
  return spawn(argv, dir_, env, -1, base + ".out", base + ".err");
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
  for (auto& p : others_) stop(p);
  stop(opensm_);
  if (ibsim_stdin_ >= 0) close(ibsim_stdin_), ibsim_stdin_ = -1;
  stop(ibsim_);
  if (!std::getenv("IBW_KEEP_LAB") && !dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

std::string SimLab::opensm_log() const {
  return slurp(dir_ + "/opensm.log");
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
    if (opensm_ > 0 && !alive(opensm_)) return false;
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
  pid_t pid = spawn(argv, dir_, env, -1, base + ".out", base + ".err");
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  RunResult r;
  while (true) {
    pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid) {
      r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.status = 128 + SIGKILL;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  return r;
}

}  // namespace ibw::lab
