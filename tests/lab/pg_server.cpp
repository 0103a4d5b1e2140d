#include "tests/lab/pg_server.h"

#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace ibw::lab {
namespace fs = std::filesystem;
namespace pg_server_detail {

std::string log_tail(const std::string& path, size_t n = 1500) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}

// Who runs initdb and the server: nobody else (not root) or the user `postgres` (root).
struct RunAs {
  bool switch_user = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

RunAs run_as() {
  RunAs r;
  if (geteuid() != 0) return r;
  passwd* pw = getpwnam("postgres");
  if (pw == nullptr) {
    // Debian's postgresql package creates the user; a machine without it gets a system user.
    int rc = std::system(
        "useradd --system --user-group --no-create-home --shell /usr/sbin/nologin postgres");
    pw = getpwnam("postgres");
    if (pw == nullptr)
      throw std::runtime_error(
          "PgServer: running as root and there is no user postgres "
          "(useradd exit " +
          std::to_string(rc) + "): run scripts/install-deps.sh");
  }
  r.switch_user = true;
  r.uid = pw->pw_uid;
  r.gid = pw->pw_gid;
  return r;
}

// Forks argv[0] (an absolute path) with stdout and stderr to `log`, as `as`, in its own
// process group, in `cwd`. The child gets SIGQUIT when this thread dies (a test process killed
// by a timeout leaves no server behind).
pid_t spawn(const std::vector<std::string>& argv, const std::string& cwd, const std::string& log,
            const RunAs& as) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("PgServer: fork failed");
  if (pid == 0) {
    setpgid(0, 0);
    int in = open("/dev/null", O_RDONLY);
    int out = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (in < 0 || out < 0) _exit(127);
    dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    if (as.switch_user) {
      if (setgroups(1, &as.gid) != 0 || setgid(as.gid) != 0 || setuid(as.uid) != 0) _exit(126);
    }
    prctl(PR_SET_PDEATHSIG, SIGQUIT);  // after setuid, which clears it
    if (getppid() != parent) _exit(127);
    if (chdir(cwd.c_str()) != 0) _exit(127);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 63) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// Drops and creates `name` through the maintenance database at `admin_url`.
void recreate_database(const std::string& admin_url, const std::string& name) {
  if (!valid_name(name))
    throw std::runtime_error("PgServer: database name " + name + ": use [a-z0-9_], <= 63 chars");
  pg_exec(admin_url, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
  pg_exec(admin_url, "CREATE DATABASE " + name);
}

}  // namespace pg_server_detail

using namespace pg_server_detail;

std::string pg_bin_dir() {
  const char* env = std::getenv("IBW_PG_BIN");
  return env && *env ? env : "/usr/lib/postgresql/15/bin";
}

void pg_exec(const std::string& url, const std::string& sql) {
  PGconn* c = PQconnectdb(url.c_str());
  if (PQstatus(c) != CONNECTION_OK) {
    std::string err = PQerrorMessage(c);
    PQfinish(c);
    throw std::runtime_error("PostgreSQL " + url + ": " + err);
  }
  PQsetNoticeProcessor(
      c, [](void*, const char*) {}, nullptr);  // "does not exist, skipping"
  PGresult* r = PQexec(c, sql.c_str());
  ExecStatusType st = PQresultStatus(r);
  std::string err = PQresultErrorMessage(r);
  PQclear(r);
  PQfinish(c);
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
    throw std::runtime_error("PostgreSQL " + url + ": " + sql + ": " + err);
}

PgServer::PgServer() {
  std::string bin = pg_bin_dir();
  for (const char* tool : {"initdb", "postgres"})
    if (access((bin + "/" + tool).c_str(), X_OK) != 0)
      throw std::runtime_error("PgServer: " + bin + "/" + tool +
                               " not found (PostgreSQL 15 server, Debian package postgresql-15): "
                               "run scripts/install-deps.sh");
  RunAs as = run_as();
  // A short path: the socket's (dir + "/.s.PGSQL.5432") must fit in 107 bytes. As root, /tmp,
  // which the user postgres can reach whatever TMPDIR is.
  std::string base = "/tmp";
  const char* tmp = std::getenv("TMPDIR");
  if (!as.switch_user && tmp && *tmp && std::string(tmp).size() <= 60) base = tmp;
  std::string tmpl = base + "/ibw-pg-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr)
    throw std::runtime_error("PgServer: cannot create a temp dir under " + base);
  dir_ = sock_ = tmpl;
  try {
    if (as.switch_user && chown(dir_.c_str(), as.uid, as.gid) != 0)
      throw std::runtime_error("PgServer: cannot chown " + dir_ + " to postgres");
    std::string data = dir_ + "/data";
    std::string ilog = dir_ + "/initdb.log";
    int rc = wait_exit(spawn({bin + "/initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E",
                              "UTF8", "--no-locale", "--no-sync", "--no-instructions"},
                             dir_, ilog, as));
    if (rc != 0)
      throw std::runtime_error("PgServer: initdb exited " + std::to_string(rc) + ":\n" +
                               log_tail(ilog));
    std::string slog = dir_ + "/server.log";
    postmaster_ =
        spawn({bin + "/postgres", "-D", data, "-k", sock_, "-c", "listen_addresses=", "-c",
               "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"},
              dir_, slog, as);
    std::string admin = url("postgres");
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (PQping(admin.c_str()) != PQPING_OK) {
      int status = 0;
      if (waitpid(postmaster_, &status, WNOHANG) == postmaster_) {
        postmaster_ = -1;
        throw std::runtime_error("PgServer: postgres exited at start:\n" + log_tail(slog));
      }
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("PgServer: postgres not ready after 30 s:\n" + log_tail(slog));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  } catch (...) {
    stop();
    throw;
  }
}

PgServer::~PgServer() {
  stop();
}

void PgServer::stop() {
  if (postmaster_ > 0) {
    kill(postmaster_, SIGQUIT);  // what pg_ctl stop -m immediate sends
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    int status = 0;
    while (waitpid(postmaster_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(-postmaster_, SIGKILL);
        waitpid(postmaster_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    postmaster_ = -1;
  }
  if (!dir_.empty() && !std::getenv("IBW_PG_KEEP")) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

std::string PgServer::url(const std::string& database) const {
  return "postgresql:///" + database + "?host=" + sock_ + "&user=postgres";
}

std::string PgServer::create_database(const std::string& name) const {
  recreate_database(url("postgres"), name);
  return url(name);
}

PgServer& pg_test_server() {
  static PgServer server;
  return server;
}

namespace pg_server_detail {

// The databases this process made on IBW_TEST_PG_URL_BASE's server, dropped when the process
// ends: scripts/test.sh runs the whole suite on one server, which would otherwise keep one
// database (a few MB) per test case. A process killed by a timeout leaves its own behind.
struct SharedServerDatabases {
  std::mutex mu;
  std::vector<std::pair<std::string, std::string>> made;  // admin URL, database
  pid_t owner = getpid();
  ~SharedServerDatabases() {
    if (getpid() != owner) return;  // a forked child that exit()s: the databases are not its
    for (const auto& [admin, name] : made) {
      try {
        pg_exec(admin, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
      } catch (const std::exception&) {
        // The server may be gone already (the run is ending): nothing left to clean.
      }
    }
  }
};

}  // namespace pg_server_detail

std::string pg_test_database(const std::string& prefix) {
  // The pid keeps names apart between the test processes that share one server at the same
  // time (ctest -j); the counter between the test cases of one process.
  static std::atomic<int> counter{0};
  std::string name = prefix + "_" + std::to_string(getpid()) + "_" + std::to_string(++counter);
  const char* base = std::getenv("IBW_TEST_PG_URL_BASE");
  if (!base || !*base) return pg_test_server().create_database(name);
  static SharedServerDatabases shared;
  // "postgresql://AUTHORITY[/ANY]?QUERY" -> "postgresql://AUTHORITY/DB?QUERY"
  std::string b = base, query;
  if (auto q = b.find('?'); q != std::string::npos) {
    query = b.substr(q);
    b.resize(q);
  }
  if (auto scheme = b.find("://"); scheme != std::string::npos) {
    if (auto path = b.find('/', scheme + 3); path != std::string::npos) b.resize(path);
  }
  std::string admin = b + "/postgres" + query;
  recreate_database(admin, name);
  {
    std::lock_guard<std::mutex> lock(shared.mu);
    shared.made.emplace_back(admin, name);
  }
  return b + "/" + name + query;
}

}  // namespace ibw::lab
