#include "tests/integration/daemon_fixture.h"

#include <catch2/catch.hpp>

#include <cstdio>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>

#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"
#include "tests/test_paths.h"

namespace ibw::test {
namespace daemon_fixture_detail {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace daemon_fixture_detail

std::string topology_dir(const std::string& prefix) {
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / (prefix + std::to_string(getpid()))).string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir + "/topology.txt") << lab::to_ibnetdiscover(lab::two_tier_lab(2, 1, 2));
  return dir;
}

using daemon_fixture_detail::slurp;

Daemon::Daemon(DaemonOptions options) : options_(std::move(options)) {}

Daemon::Daemon(Daemon&& other) noexcept
    : options_(std::move(other.options_)), pid_(std::exchange(other.pid_, -1)) {}

Daemon started(Daemon d, const std::string& pattern, int count, std::chrono::milliseconds timeout) {
  d.start();
  bool seen = d.wait_log(pattern, count, timeout);
  INFO("daemon log:\n" << d.log());
  REQUIRE(seen);
  return d;
}

nlohmann::json only_decision(const std::string& config, const Daemon& d) {
  nlohmann::json decisions = wait_decided(config);
  INFO(d.log());
  REQUIRE(decisions.size() == 1);
  return decisions[0];
}

Daemon::~Daemon() {
  if (pid_ > 0) stop();
}

void Daemon::start() {
  pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    if (!options_.workdir.empty() && chdir(options_.workdir.c_str()) != 0) _exit(127);
    int fd = open(options_.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    int nul = open("/dev/null", O_RDONLY);
    dup2(nul, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    for (const auto& [name, value] : options_.env) setenv(name.c_str(), value.c_str(), 1);
    if (!options_.sim_socket.empty()) {
      setenv("IBSIM_SOCKNAME", options_.sim_socket.c_str(), 1);
      setenv("LD_PRELOAD", ibw::lab::umad2sim_library().c_str(), 1);
    }
    execl(IBW_BINARY, IBW_BINARY, "run", "--config", options_.config_path.c_str(), nullptr);
    _exit(127);
  }
}

int Daemon::stop() {
  if (pid_ <= 0) return -1;
  kill(pid_, SIGTERM);
  int status = 0;
  for (int i = 0; i < 200; ++i) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return 128 + SIGKILL;
}

void Daemon::signal(int sig) const {
  if (pid_ > 0) kill(pid_, sig);
}

bool Daemon::running() const {
  return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0;
}

std::string Daemon::log() const {
  return slurp(options_.log_path);
}

bool Daemon::wait_log(const std::string& pattern, int count,
                      std::chrono::milliseconds timeout) const {
  auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    std::string text = log();
    int n = 0;
    for (size_t at = text.find(pattern); at != std::string::npos; at = text.find(pattern, at + 1))
      ++n;
    if (n >= count) return true;
    if (!running()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

CmdResult run_cmd(const std::vector<std::string>& argv) {
  char out_tmpl[] = "/tmp/ibw-cmd-out-XXXXXX";
  char err_tmpl[] = "/tmp/ibw-cmd-err-XXXXXX";
  int out = mkstemp(out_tmpl), err = mkstemp(err_tmpl);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out, 1);
    dup2(err, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  close(out);
  close(err);
  CmdResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out_tmpl), slurp(err_tmpl)};
  unlink(out_tmpl);
  unlink(err_tmpl);
  return r;
}

nlohmann::json query_json(const std::string& command, const std::string& config,
                          const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {IBW_BINARY, command, "--config", config, "--format", "json"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  CmdResult r = run_cmd(argv);
  if (r.status != 0)
    throw std::runtime_error("ibwarden " + command + " exited " + std::to_string(r.status) + ": " +
                             r.err);
  return nlohmann::json::parse(r.out);
}

HttpResult http_call(int port, const std::string& method, const std::string& path,
                     const std::string& token, const std::string& body,
                     const std::string& content_type) {
  std::vector<std::string> argv = {
      "curl", "-s",   "-o",
      "-",    "-w",   "\n%{http_code}",
      "-X",   method, "http://127.0.0.1:" + std::to_string(port) + path};
  if (!token.empty()) argv.insert(argv.end(), {"-H", "Authorization: Bearer " + token});
  if (!body.empty())
    argv.insert(argv.end(), {"-H", "Content-Type: " + content_type, "--data-binary", body});
  CmdResult r = run_cmd(argv);
  HttpResult h;
  auto nl = r.out.rfind('\n');
  if (nl == std::string::npos) throw std::runtime_error("curl answered nothing: " + r.err);
  h.status = std::stoi(r.out.substr(nl + 1));
  h.body = nlohmann::json::parse(r.out.substr(0, nl), nullptr, false);
  return h;
}

int web_port(const Daemon& daemon) {
  std::string log = daemon.log();
  std::smatch m;
  std::regex listening("\"web API listening\"[^\n]*\"port\":([0-9]+)");
  return std::regex_search(log, m, listening) ? std::stoi(m[1]) : 0;
}

std::string trap129_line(int i, int hour, uint64_t tid) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "Nov 22 %02d:%02d:%02d %06d [5704E6C0] 0x01 -> log_trap_info: Received Generic "
                "Notice type:1 num:129 (Local Link Integrity threshold reached) Producer:2 "
                "(Switch) from LID:3 TID:0x%016llx\n",
                hour, (i / 60) % 60, i % 60, i % 1000000, static_cast<unsigned long long>(tid));
  return buf;
}

}  // namespace ibw::test
