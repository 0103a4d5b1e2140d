// CLI contract of `ibwarden audit`: exit codes, help, and errors that name file, line and
// field. Runs the real binary; the fabric comes from ibw-labgen's ibnetdiscover writer.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/lab/shell.h"
#include "tests/test_paths.h"

namespace {

using Out = ibw::lab::ShellOut;

// stdout and stderr of `cmd`.
Out sh(const std::string& cmd) {
  return ibw::lab::run_shell(cmd + " 2>&1");
}

std::string tmpdir(const std::string& name) {
  auto d =
      std::filesystem::temp_directory_path() / ("ibw-cli-" + name + "-" + std::to_string(getpid()));
  std::filesystem::create_directories(d);
  return d.string();
}

const std::string kBin = IBW_BINARY;

}  // namespace

TEST_CASE("cli: help on every command and exit codes for usage errors", "[cli]") {
  CHECK(sh(kBin + " --help").status == 0);
  auto help = sh(kBin + " audit --help");
  CHECK(help.status == 0);
  CHECK(help.text.find("--node-name-map") != std::string::npos);
  CHECK(sh(kBin).status == 2);
  CHECK(sh(kBin + " frobnicate").status == 2);

  auto no_plan = sh(kBin + " audit --live");
  CHECK(no_plan.status == 2);
  CHECK(no_plan.text.find("--plan is required") != std::string::npos);
  CHECK(sh(kBin + " audit --plan p.csv").status == 2);
  CHECK(sh(kBin + " audit --plan p.csv --live --topology t.txt").status == 2);
  CHECK(sh(kBin + " audit --plan p.csv --topology t.txt --ca mlx5_0").status == 2);
  CHECK(sh(kBin + " audit --plan p.csv --topology t.txt --format xml").status == 2);
  CHECK(sh(kBin + " audit --plan p.csv --topology t.txt --bogus").status == 2);
  auto missing = sh(kBin + " audit --plan /nonexistent/plan.csv --topology t.txt");
  CHECK(missing.status == 2);
  CHECK(missing.text.find("/nonexistent/plan.csv: cannot open") != std::string::npos);
}

TEST_CASE("cli: a bad plan fails with every error as file:line: field", "[cli]") {
  std::string d = tmpdir("badplan");
  std::ofstream(d + "/plan.csv") << "cable_id,a_node,a_port,b_node,b_port,colour\n"
                                    "C1,leaf001,1,spine001,x1,red\n"
                                    "C2,leaf001,1,leaf001,2,blue\n";
  std::ofstream(d + "/topo.txt") << "Switch\t4 \"leaf001\"\n";
  auto r = sh(kBin + " audit --plan " + d + "/plan.csv --topology " + d + "/topo.txt");
  CHECK(r.status == 2);
  CHECK(r.text.find(d + "/plan.csv:1: colour: unknown column") != std::string::npos);
  CHECK(r.text.find(d + "/plan.csv:2: b_port: \"x1\" is not a port number") != std::string::npos);
  CHECK(r.text.find(d + "/plan.csv:3: a_port: port leaf001/1 is already used by cable C1") !=
        std::string::npos);
  CHECK(r.text.find(d + "/plan.csv:3: b_node: self-link") != std::string::npos);
  std::filesystem::remove_all(d);
}

TEST_CASE("cli: rules validate accepts the shipped rules and names every problem", "[cli]") {
  auto ok = sh(kBin + " rules validate " + std::string(IBW_SOURCE_DIR) + "/config/rules.yaml");
  CHECK(ok.status == 0);
  CHECK(ok.text.find(": ok") != std::string::npos);
  std::string d = tmpdir("rules");
  std::ofstream(d + "/bad.yaml") << "rules:\n"
                                    "  - name: r1\n"
                                    "    type: symbol_errorz\n"
                                    "    action: disable\n"
                                    "  - name: r1\n"
                                    "    type: link_flap\n"
                                    "    action: explode\n";
  auto bad = sh(kBin + " rules validate " + d + "/bad.yaml");
  CHECK(bad.status == 2);
  CHECK(bad.text.find(d + "/bad.yaml:3: ") != std::string::npos);  // unknown type
  CHECK(bad.text.find(d + "/bad.yaml:7: ") != std::string::npos);  // bad action
  CHECK(bad.text.find(d + "/bad.yaml:5: ") != std::string::npos);  // duplicate name
  CHECK(sh(kBin + " rules validate").status == 2);
  CHECK(sh(kBin + " rules --help").status == 0);
  std::filesystem::remove_all(d);
}

TEST_CASE("cli: formats and --output on a generated 3-tier fabric", "[cli]") {
  std::string d = tmpdir("formats");
  REQUIRE(sh(std::string(IBW_LABGEN) + " --out " + d +
             " --tiers 3 --k 6 --no-net --ibnetdiscover "
             "--swap 1 --drop 1 --degrade 1 --seed 4")
              .status == 0);
  std::string base = kBin + " audit --plan " + d + "/plan.csv --topology " + d + "/topology.txt";
  auto text = sh(base);
  CHECK(text.status == 1);
  CHECK(text.text.find("[swapped]") != std::string::npos);
  CHECK(text.text.find("advice:") != std::string::npos);

  auto csv = sh(base + " --format csv");
  CHECK(csv.status == 1);
  CHECK(csv.text.rfind("kind,cables,planned,found,locations,advice\n", 0) == 0);
  CHECK(std::count(csv.text.begin(), csv.text.end(), '\n') == 4);  // header + 3 findings

  REQUIRE(sh(base + " --format json --output " + d + "/report.json").status == 1);
  std::ifstream in(d + "/report.json");
  auto report = nlohmann::json::parse(in);
  CHECK(report["summary"]["planned_links"] ==
        54 + 54 + 54);  // k^3/4 hosts, k^3/4 leaf-spine, k^3/4 spine-core
  CHECK(report["summary"]["swapped"] == 1);
  CHECK(report["summary"]["missing"] == 1);
  CHECK(report["summary"]["degraded"] == 1);
  CHECK(report["summary"]["ok"] == 162 - 4);
  CHECK(report["findings"].size() == 3);
  std::filesystem::remove_all(d);
}

namespace {

// GLIBC_TUNABLES of `ibwarden audit` while it waits to open a plan that is a FIFO, as seen in
// /proc/PID/environ; `env` holds what the binary is started with (VAR=value pairs).
std::string tunables_seen(const std::vector<std::string>& env) {
  std::string d = tmpdir("tunables");
  std::string fifo = d + "/plan.csv";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  std::ofstream(d + "/topo.txt") << "Switch\t4 \"leaf001\"\n";
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::vector<std::string> parts = {"env", "-u", "GLIBC_TUNABLES", "-u", "IBW_MALLOC_TUNING"};
    parts.insert(parts.end(), env.begin(), env.end());
    for (std::string a : {kBin, std::string("audit"), std::string("--plan"), fifo,
                          std::string("--topology"), d + "/topo.txt"})
      parts.push_back(a);
    std::vector<char*> argv;
    for (auto& p : parts) argv.push_back(p.data());
    argv.push_back(nullptr);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 2);
    execvp("env", argv.data());
    _exit(127);
  }
  int w = open(fifo.c_str(), O_WRONLY);  // returns once ibwarden opened the plan for reading
  std::string environ;
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  environ.assign(std::istreambuf_iterator<char>(in), {});
  close(w);
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK(WIFEXITED(st));
  std::filesystem::remove_all(d);
  std::string key = std::string("GLIBC_TUNABLES=");
  auto at = environ.find(key);
  if (at == std::string::npos) return "(unset)";
  return environ.substr(at + key.size(), environ.find('\0', at) - at - key.size());
}

}  // namespace

TEST_CASE("cli: ibwarden re-executes itself once with the allocator tunables", "[cli]") {
  std::string tuned = tunables_seen({});
#if defined(IBW_SANITIZED)
  CHECK(tuned == "(unset)");  // the sanitizer's allocator replaces glibc's
#else
  // glibc shortens the variable in the environment it parsed; the first tunable remains.
  CHECK(tuned.find("glibc.malloc.hugetlb=1") != std::string::npos);
  CHECK(tunables_seen({"IBW_MALLOC_TUNING=off"}) == "(unset)");
  CHECK(tunables_seen({"GLIBC_TUNABLES=glibc.malloc.top_pad=0"}) == "glibc.malloc.top_pad=0");
#endif
}
