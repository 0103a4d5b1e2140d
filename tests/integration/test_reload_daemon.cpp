// Integration: `ibwarden run` as a systemd service. SIGHUP re-reads the rules and the tokens
// file, validated first: a bad file keeps the old ones and the log says which file and why;
// reloads while OpenSM lines arrive store each event exactly once (both on ibsim + OpenSM).
// Type=notify: READY/WATCHDOG/RELOADING/STOPPING reach a NOTIFY_SOCKET the test binds.
// journald: with stderr as the journal stream, lines carry <N> prefixes when journald is absent;
// on a socket standing in for journald (root only) PORT=, CABLE=, RULE=, DECISION= arrive.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "tests/integration/daemon_fixture.h"
#include "tests/lab/fat_tree.h"
#include "tests/lab/sim_lab.h"
#include "tests/test_paths.h"

using nlohmann::json;
using namespace ibw::test;
using ibw::lab::sim_config;
using ibw::lab::tailing_config;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace reload_daemon {

// A trap-129 line with a distinct TID per index (the TID is in the stored event's message).
std::string trap_line(int i) {
  return trap129_line(i, 2, 0x5000 + i);
}

std::string tid(int i) {
  std::string line = trap_line(i);
  return line.substr(line.find("TID:0x"), 22);
}

std::string slurp(const std::string& path) {
  return (std::stringstream() << std::ifstream(path, std::ios::binary).rdbuf()).str();
}

// The port of the last "web API listening" line: a reload starts the server anew.
int last_web_port(const Daemon& d) {
  std::string log = d.log();
  std::regex listening("\"web API listening\"[^\n]*\"port\":([0-9]+)");
  int port = 0;
  for (std::sregex_iterator it(log.begin(), log.end(), listening), end; it != end; ++it)
    port = std::stoi((*it)[1]);
  return port;
}

// The n-th (0-based) log line containing pattern; "" when there is none.
std::string log_line(const Daemon& d, const std::string& pattern, int n) {
  std::istringstream in(d.log());
  for (std::string line; std::getline(in, line);)
    if (line.find(pattern) != std::string::npos && n-- == 0) return line;
  return "";
}

// A datagram socket the test binds (NOTIFY_SOCKET, journald's socket); a thread collects
// what arrives.
class DatagramSink {
 public:
  explicit DatagramSink(std::string path) : path_(std::move(path)) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path_.c_str(), sizeof addr.sun_path - 1);
    ::unlink(path_.c_str());
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
      throw std::runtime_error("cannot bind " + path_ + ": " + std::strerror(errno));
    int size = 8 << 20;
    setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    timeval tv{0, 100000};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    reader_ = std::thread([this] {
      std::vector<char> buf(1 << 20);
      while (!stop_) {
        ssize_t n = recv(fd_, buf.data(), buf.size(), 0);
        if (n <= 0) continue;
        std::lock_guard<std::mutex> lock(mutex_);
        got_.emplace_back(buf.data(), static_cast<size_t>(n));
      }
    });
  }
  ~DatagramSink() {
    stop_ = true;
    reader_.join();
    close(fd_);
    ::unlink(path_.c_str());
  }
  std::vector<std::string> messages() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return got_;
  }
  // Index of the first message at or after `from` containing text, waiting up to timeout;
  // -1 when none arrived.
  long wait(const std::string& text, size_t from, std::chrono::milliseconds timeout = 0ms) const {
    for (auto until = std::chrono::steady_clock::now() + timeout;;
         std::this_thread::sleep_for(20ms)) {
      auto got = messages();
      for (size_t i = from; i < got.size(); ++i)
        if (got[i].find(text) != std::string::npos) return static_cast<long>(i);
      if (std::chrono::steady_clock::now() >= until) return -1;
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::vector<std::string> got_;
  std::thread reader_;
};

// journald's native protocol: KEY=value\n, or KEY\n<le64 length><data>\n for binary values.
std::multimap<std::string, std::string> journal_entry(const std::string& d) {
  std::multimap<std::string, std::string> out;
  for (size_t at = 0; at < d.size();) {
    size_t nl = d.find('\n', at), eq = d.find('=', at);
    if (nl == std::string::npos) nl = d.size();
    if (eq < nl) {
      out.emplace(d.substr(at, eq - at), d.substr(eq + 1, nl - eq - 1));
      at = nl + 1;
    } else {
      uint64_t len = 0;
      if (nl + 9 > d.size()) break;
      std::memcpy(&len, d.data() + nl + 1, 8);  // little endian, like the hosts we run on
      out.emplace(d.substr(at, nl - at), d.substr(nl + 9, len));
      at = nl + 9 + len + 1;
    }
  }
  return out;
}

// A small fabric, its plan, and the daemon's config and tokens under the lab's directory.
struct Lab {
  ibw::lab::Lab fabric;
  ibw::lab::SimLab sim;
  Lab() : fabric(ibw::lab::make_fat_tree(spec())), sim({ibw::lab::to_ibsim_net(fabric)}) {
    std::ofstream(path("plan.csv")) << ibw::lab::plan_csv(fabric);
  }
  static ibw::lab::FatTreeSpec spec() {
    ibw::lab::FatTreeSpec s;
    s.leaves = 2, s.spines = 2, s.hosts_per_leaf = 2;
    return s;
  }
  std::string path(const std::string& name) const { return sim.dir() + "/" + name; }
};

void write_tokens(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  chmod(path.c_str(), 0600);
}

// The shipped rules with one line inserted after the link_degraded rule's name.
std::string rules_with(const std::string& inserted) {
  std::string rules = slurp(std::string(IBW_SOURCE_DIR) + "/config/rules.yaml");
  const std::string anchor = "  - name: link_degraded\n";
  auto at = rules.find(anchor);
  if (at == std::string::npos) throw std::runtime_error("config/rules.yaml changed: no anchor");
  return rules.insert(at + anchor.size(), inserted);
}

std::string metrics(int port, const std::string& token) {
  auto url = "http://127.0.0.1:" + std::to_string(port) + "/api/v1/metrics";
  return run_cmd({"curl", "-s", "-H", "Authorization: Bearer " + token, url}).out;
}

}  // namespace reload_daemon

using namespace reload_daemon;

TEST_CASE("reload daemon: SIGHUP applies new rules and tokens - bad files keep the old ones",
          "[integration][reload][web]") {
  Lab lab;
  const std::string A = "viewer-token-aaaaaaaaaaaa", B = "operator-token-bbbbbbbbbbbb",
                    C = "viewer-token-cccccccccccc", D = "viewer-token-dddddddddddd";
  std::ofstream(lab.path("rules.yaml")) << rules_with("");
  write_tokens(lab.path("tokens"), "viewer " + A + "\noperator " + B + "\n");
  std::string config = lab.path("ibwarden.yaml");
  sim_config()
      .set("rules", "file", "rules.yaml")
      .set("actions", "mode", "dry-run")
      .set("web", {{"listen", "127.0.0.1:0"}, {"tokens_file", "tokens"}})
      .write(config);
  Daemon d({config, lab.sim.dir(), lab.sim.sockname(), lab.path("daemon.log")});
  d.start();
  REQUIRE(d.wait_log("web API listening", 1, 30s));
  INFO(d.log());
  int port = last_web_port(d);
  auto loaded = [&](const std::string& token) {
    auto h = http_call(port, "GET", "/api/v1/health", token);
    return h.status == 200 ? h.body["rules"]["loaded"].get<int>() : -100 - h.status;
  };
  const int before = loaded(A);
  REQUIRE(before >= 2);
  CHECK(metrics(port, A).find("ibwarden_rules_loaded{fabric=\"fabric\"} " +
                              std::to_string(before)) != std::string::npos);

  // (1) A good rules file (one rule disabled) and a new token: applied on SIGHUP.
  std::ofstream(lab.path("rules.yaml")) << rules_with("    enabled: false\n");
  write_tokens(lab.path("tokens"), "viewer " + C + "\noperator " + B + "\n");
  d.signal(SIGHUP);
  REQUIRE(d.wait_log("configuration reloaded", 1, 20s));
  REQUIRE(d.wait_log("web API listening", 2, 20s));
  port = last_web_port(d);
  CHECK(loaded(C) == before - 1);
  CHECK(metrics(port, C).find("ibwarden_rules_loaded{fabric=\"fabric\"} " +
                              std::to_string(before - 1)) != std::string::npos);
  CHECK(http_call(port, "GET", "/api/v1/health", A).status == 401);  // removed
  CHECK(http_call(port, "GET", "/api/v1/health", B).status == 200);  // kept

  // (2) Bad files: an unknown key, a YAML error, a bad tokens file. Each is rejected, the log
  // names the file and the problem, and the rules and tokens in force stay.
  struct Bad {
    std::string rules, tokens, file, problem;
  };
  const std::vector<Bad> bad = {
      {rules_with("    threshhold: 3\n"), "viewer " + D + "\n", "rules.yaml", "threshhold"},
      {"rules:\n  - name: [oops\n", "viewer " + D + "\n", "rules.yaml", "rules.yaml"},
      // Valid rules (the shipped ones, all enabled) with a broken tokens file: nothing applies.
      {rules_with(""), "superuser " + D + "\n", "tokens", "must be viewer, operator or admin"},
  };
  for (size_t i = 0; i < bad.size(); ++i) {
    INFO("bad case " << i);
    std::ofstream(lab.path("rules.yaml")) << bad[i].rules;
    write_tokens(lab.path("tokens"), bad[i].tokens);
    d.signal(SIGHUP);
    REQUIRE(d.wait_log("new configuration rejected", static_cast<int>(i) + 1, 20s));
    std::string why = log_line(d, "new configuration rejected", static_cast<int>(i));
    CHECK(why.find(lab.path(bad[i].file)) != std::string::npos);
    CHECK(why.find(bad[i].problem) != std::string::npos);
    CHECK(last_web_port(d) == port);  // the running generation was not restarted
    CHECK(loaded(C) == before - 1);
    CHECK(http_call(port, "GET", "/api/v1/health", D).status == 401);
    CHECK(http_call(port, "GET", "/api/v1/health", A).status == 401);
  }

  // Fixed files are taken again.
  write_tokens(lab.path("tokens"), "viewer " + D + "\n");
  d.signal(SIGHUP);
  REQUIRE(d.wait_log("configuration reloaded", 2, 20s));
  REQUIRE(d.wait_log("web API listening", 3, 20s));
  port = last_web_port(d);
  CHECK(loaded(D) == before);
  CHECK(http_call(port, "GET", "/api/v1/health", C).status == 401);
  CHECK(d.stop() == 0);
}

TEST_CASE("reload daemon: SIGHUPs while OpenSM lines arrive store every event exactly once",
          "[integration][reload]") {
  Lab lab;
  std::string config = lab.path("ibwarden.yaml"), log = lab.path("opensm-feed.log");
  auto write_config = [&](const std::string& level) {
    tailing_config()
        .unset("fabric", "discovery")
        .set("fabric", "plan", "plan.csv")
        .set("opensm", "log", "opensm-feed.log")
        .set("log", "level", level)
        .write(config);
  };
  write_config("info");
  std::string query = lab.path("query.yaml");  // stays valid while the daemon's is broken
  std::ofstream(query) << slurp(config);
  std::ofstream(log) << "";
  Daemon d({config, lab.sim.dir(), lab.sim.sockname(), lab.path("daemon.log")});
  d.start();
  REQUIRE(d.wait_log("fabric discovered", 1, 30s));

  const int lines = 300;
  std::thread feeder([&] {
    for (int i = 0; i < lines; ++i) {
      std::ofstream(log, std::ios::app) << trap_line(i);
      std::this_thread::sleep_for(15ms);
    }
  });
  int rejected = 0;
  for (int k = 0; k < 8; ++k) {  // during the ~4.5 s of lines
    std::this_thread::sleep_for(450ms);
    if (k == 4) {
      std::ofstream(config) << "opensm: [broken\n";
      ++rejected;
    } else {
      write_config(k % 2 ? "debug" : "info");
    }
    d.signal(SIGHUP);
    if (k == 4) REQUIRE(d.wait_log("new configuration rejected", 1, 10s));
  }
  feeder.join();
  write_config("info");
  // Signals that come while a reload is under way merge into one: at least half of them apply.
  REQUIRE(d.wait_log("configuration reloaded", 4, 20s));
  INFO(d.log().substr(0, 4000));

  auto traps = [&] {  // TID -> stored trap events; events without a TID count as themselves
    std::map<std::string, int> seen;
    for (const auto& e : query_json("events", query))
      if (e["kind"] == "trap") {
        std::string m = e.value("message", "");
        seen[m.find("TID:0x") == std::string::npos ? m : m.substr(m.find("TID:0x"), 22)]++;
      }
    return seen;
  };
  wait_query(
      "events", query, {}, [](const json& j) { return j.size() >= 300u; }, 30s);
  std::this_thread::sleep_for(500ms);  // nothing extra may follow
  auto seen = traps();
  int missing = 0, repeated = 0;
  for (int i = 0; i < lines; ++i) missing += !seen.count(tid(i)), repeated += seen[tid(i)] > 1;
  CHECK(missing == 0);
  CHECK(repeated == 0);
  CHECK(seen.size() == static_cast<size_t>(lines));  // and nothing else
  CHECK(rejected == 1);
  CHECK(d.stop() == 0);
}

namespace reload_daemon {

// A daemon without simulator: the topology from an ibnetdiscover file, one trap line.
std::string file_lab(const std::string& name) {
  std::string dir = (fs::temp_directory_path() / (name + std::to_string(getpid()))).string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto fabric = ibw::lab::make_fat_tree(Lab::spec());
  std::ofstream(dir + "/topology.txt") << ibw::lab::to_ibnetdiscover(fabric);
  std::ofstream(dir + "/plan.csv") << ibw::lab::plan_csv(fabric);
  std::ofstream(dir + "/opensm.log") << trap_line(0);
  tailing_config().set("fabric", "plan", "plan.csv").write(dir + "/ibwarden.yaml");
  return dir;
}

}  // namespace reload_daemon

TEST_CASE("reload daemon: Type=notify gets READY - WATCHDOG - RELOADING and STOPPING",
          "[integration][reload][systemd]") {
  std::string dir = file_lab("ibw-notify-");
  DatagramSink notify(dir + "/notify.sock");
  unsetenv("WATCHDOG_PID");  // not inherited from whoever runs the tests
  std::vector<std::pair<std::string, std::string>> env = {{"NOTIFY_SOCKET", dir + "/notify.sock"},
                                                          {"WATCHDOG_USEC", "2000000"}};
  Daemon d({dir + "/ibwarden.yaml", dir, "", dir + "/daemon.log", env});
  d.start();
  long ready = notify.wait("READY=1", 0, 20s);
  REQUIRE(ready >= 0);
  INFO(d.log());
  CHECK(notify.messages()[ready].find("STATUS=watching fabric") != std::string::npos);
  CHECK(notify.wait("STOPPING=1", 0) < 0);
  // 2 s watchdog: pinged every second from the main loop.
  size_t from = notify.messages().size();
  std::this_thread::sleep_for(3s);
  int pings = 0;
  for (size_t i = from; i < notify.messages().size(); ++i)
    pings += notify.messages()[i] == "WATCHDOG=1";
  CHECK((pings >= 2 && pings <= 4));  // at half the interval, not at every loop turn

  // A good reload: RELOADING=1 (with MONOTONIC_USEC) then READY=1 once the new generation runs.
  from = notify.messages().size();
  d.signal(SIGHUP);
  long reloading = notify.wait("RELOADING=1", from, 10s);
  REQUIRE(reloading >= 0);
  CHECK(notify.messages()[reloading].find("MONOTONIC_USEC=") != std::string::npos);
  REQUIRE(notify.wait("READY=1", reloading + 1, 10s) > reloading);
  CHECK(d.wait_log("configuration reloaded", 1, 5s));
  // A rejected reload also ends in READY=1, saying so in STATUS=.
  std::ofstream(dir + "/ibwarden.yaml", std::ios::app) << "counterz: 1\n";
  from = notify.messages().size();
  d.signal(SIGHUP);
  reloading = notify.wait("RELOADING=1", from, 10s);
  REQUIRE(reloading >= 0);
  long again = notify.wait("READY=1", reloading + 1, 10s);
  REQUIRE(again > reloading);
  CHECK(notify.messages()[again].find("reload rejected") != std::string::npos);
  // Pings go on after reloads.
  from = notify.messages().size();
  CHECK(notify.wait("WATCHDOG=1", from, 3s) >= 0);

  from = notify.messages().size();
  CHECK(d.stop() == 0);
  CHECK(notify.wait("STOPPING=1", from, 2s) >= 0);
  fs::remove_all(dir);
}

TEST_CASE("reload daemon: stderr as the journal stream - priority prefixes and native fields",
          "[integration][journal]") {
  const std::string journal_socket = "/run/systemd/journal/socket";
  if (fs::exists(journal_socket)) {
    WARN("skipped: " << journal_socket << " exists: journald runs here, no fallback to see");
    return;
  }
  // (a) journald absent: the stderr lines get <N> prefixes; a terminal keeps plain lines.
  std::string dir = file_lab("ibw-journal-");
  std::string config = dir + "/ibwarden.yaml";
  auto run_once = [&](const std::string& name, bool as_journal) {
    std::string out = dir + "/" + name;
    std::ofstream(out) << "";
    struct stat st {};
    REQUIRE(stat(out.c_str(), &st) == 0);
    std::string stream = as_journal
                             ? std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino)
                             : std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino + 1);
    Daemon d({config, dir, "", out, {{"JOURNAL_STREAM", stream}}});
    d.start();
    REQUIRE(d.wait_log("fabric discovered", 1, 20s));
    std::string good = slurp(config);
    std::ofstream(config, std::ios::app) << "counterz: 1\n";
    d.signal(SIGHUP);
    REQUIRE(d.wait_log("new configuration rejected", 1, 10s));
    std::ofstream(config) << good;
    CHECK(d.stop() == 0);
    return slurp(out);
  };
  std::string journal = run_once("journal.log", true);
  INFO(journal);
  std::istringstream lines(journal);
  std::set<std::string> prefixes;
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    std::smatch m;
    REQUIRE(std::regex_search(line, m, std::regex("^<([3467])>\\{\"ts\":")));
    prefixes.insert(m[1]);
  }
  CHECK(n >= 3);
  CHECK(prefixes.count("6"));  // ibwarden started, event
  CHECK(prefixes.count("3"));  // the rejected configuration
  CHECK(journal.find("<3>{\"ts\"") < journal.find("new configuration rejected"));
  std::string terminal = run_once("terminal.log", false);  // JOURNAL_STREAM names another file
  CHECK(terminal.rfind("{\"ts\":", 0) == 0);
  CHECK(terminal.find("\n<") == std::string::npos);

  // (b) A stand-in journald socket (root only): records arrive natively with the link names.
  if (geteuid() != 0) {
    WARN("skipped the native part: binding " << journal_socket << " needs root");
    fs::remove_all(dir);
    return;
  }
  std::vector<fs::path> made;  // directories this test creates, removed afterwards
  for (fs::path p = fs::path(journal_socket).parent_path(); !fs::exists(p); p = p.parent_path())
    made.insert(made.begin(), p);
  for (const auto& p : made) fs::create_directory(p);
  std::shared_ptr<void> cleanup(nullptr, [&made](void*) {  // also after a failed REQUIRE
    for (auto it = made.rbegin(); it != made.rend(); ++it) fs::remove(*it);
  });
  Lab lab;
  DatagramSink journald(journal_socket);
  std::string cfg = lab.path("ibwarden.yaml"), out = lab.path("stderr.log");
  sim_config()
      .set("opensm", "rediscover_delay", "200ms")
      .set("rules", "file", shipped_rules())
      .set("actions", "mode", "enforce")
      .set("log", "level", "debug")
      .write(cfg);
  std::ofstream(out) << "";
  struct stat st {};
  REQUIRE(stat(out.c_str(), &st) == 0);
  Daemon d({cfg,
            lab.sim.dir(),
            lab.sim.sockname(),
            out,
            {{"JOURNAL_STREAM", std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino)}}});
  d.start();
  REQUIRE(journald.wait("MESSAGE=fabric discovered", 0, 30s) >= 0);
  long sweep = journald.wait("MESSAGE=counter sweep", 0, 20s);  // the counters' baseline
  REQUIRE(sweep >= 0);
  CHECK(journal_entry(journald.messages()[sweep]).find("PRIORITY")->second == "7");
  lab.sim.console("PerformanceSet \"leaf001\"[3] PortCounters.SymbolErrorCounter=5000");
  long at = journald.wait("MESSAGE=decision ", 0, 30s);
  INFO(d.log());
  REQUIRE(at >= 0);
  auto entry = journal_entry(journald.messages()[at]);
  auto one = [&](const std::string& key) {
    auto r = entry.equal_range(key);
    return std::distance(r.first, r.second) == 1 ? r.first->second : "<" + key + " not once>";
  };
  CHECK(one("PRIORITY") == "4");
  CHECK(one("SYSLOG_IDENTIFIER") == "ibwarden");
  CHECK(one("RULE") == "symbol_ber");
  CHECK(one("PORT") == "leaf001/3");
  CHECK(one("CABLE") == "C-leaf001-3");
  CHECK(std::regex_match(one("DECISION"), std::regex("[0-9]+")));
  CHECK(entry.count("ACTION") == 1);
  CHECK(d.stop() == 0);
  CHECK(journald.wait("MESSAGE=ibwarden stopped", 0) >= 0);
  CHECK(d.log().find("\"msg\":\"decision\"") == std::string::npos);  // not also on stderr
  fs::remove_all(dir);
}
