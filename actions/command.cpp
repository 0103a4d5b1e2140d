#include "actions/command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace ibw::actions {
namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
};

// Appends what is readable on fd to out (up to cap; beyond it the bytes are dropped and
// *truncated set). Returns false at end of file.
bool drain_fd(int fd, std::string& out, size_t cap, bool* truncated) {
  char buf[65536];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  size_t room = out.size() < cap ? cap - out.size() : 0;
  out.append(buf, std::min(room, static_cast<size_t>(n)));
  if (static_cast<size_t>(n) > room) *truncated = true;
  return true;
}

int status_code(int status) {
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv, const CommandLimits& limits) {
  CommandResult r;
  if (argv.empty()) return r.error = "no command", r;
  Pipe out, err;
  if (pipe2(out.fd, O_CLOEXEC) != 0 || pipe2(err.fd, O_CLOEXEC) != 0)
    return r.error = std::string("pipe: ") + std::strerror(errno), r;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err.fd[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(out.fd[1]), out.fd[1] = -1;
  close(err.fd[1]), err.fd[1] = -1;
  if (rc != 0) return r.error = std::strerror(rc), r;
  r.started = true;
  auto deadline = std::chrono::steady_clock::now() + limits.timeout;
  bool out_open = true, err_open = true;
  while (out_open || err_open) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      break;
    }
    pollfd fds[2] = {{out_open ? out.fd[0] : -1, POLLIN, 0},
                     {err_open ? err.fd[0] : -1, POLLIN, 0}};
    int n = poll(fds, 2, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (n < 0 && errno != EINTR) break;
    if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
      out_open = drain_fd(out.fd[0], r.out, limits.max_output, &r.truncated);
    if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
      err_open = drain_fd(err.fd[0], r.err, limits.max_output, &r.truncated);
  }
  int status = 0;
  if (r.timed_out) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    r.exit_code = status_code(status);
    return r;
  }
  // Both pipes closed: the command is exiting; wait for it, but never past the deadline.
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    usleep(1000);
  }
  r.exit_code = status_code(status);
  return r;
}

std::string describe(const std::vector<std::string>& argv, const CommandResult& r) {
  std::string cmd;
  for (size_t i = 0; i < argv.size() && i < 3; ++i) cmd += (i ? " " : "") + argv[i];
  if (argv.size() > 3) cmd += " ...";
  if (!r.started) return cmd + ": cannot run: " + r.error;
  if (r.timed_out) return cmd + ": timed out (killed)";
  auto first_line = [](const std::string& s) {
    std::string l = s.substr(0, s.find('\n'));
    return l.size() > 300 ? l.substr(0, 300) + "..." : l;
  };
  std::string said = first_line(r.err.empty() ? r.out : r.err);
  if (r.exit_code != 0)
    return cmd + ": exit " + std::to_string(r.exit_code) + (said.empty() ? "" : ": " + said);
  if (r.truncated) return cmd + ": output over the cap (cut)";
  return cmd + ": ok";
}

}  // namespace ibw::actions
