// run_shell: one shell command's exit status and standard output, for the tests that run the
// ibwarden binary or stock tools (groff, man) the way a user's shell would.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace ibw::lab {

struct ShellOut {
  int status = -1;   // the exit status; -1 when killed by a signal
  std::string text;  // standard output (and standard error when `cmd` redirects it: 2>&1)
};

// Runs `cmd` with /bin/sh (popen); throws std::runtime_error when no shell can be started.
inline ShellOut run_shell(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot start a shell for: " + cmd);
  ShellOut o;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.text.append(buf.data(), n);
  int st = pclose(p);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}

}  // namespace ibw::lab
