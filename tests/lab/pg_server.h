// PgServer: a real, private PostgreSQL 15 (Debian's /usr/lib/postgresql/15/bin) for tests and
// benchmarks of the postgres store. initdb into a fresh temp dir, then the postmaster as a
// child of this process on a Unix socket in that dir only (listen_addresses='', no TCP), with
// fsync off (a test server need not survive a power cut). initdb refuses root, so as root
// both run as the unprivileged user `postgres` (created with useradd --system when missing)
// and the temp dir is chowned to it. The server gets SIGQUIT (immediate shutdown) when this
// process dies, and the destructor stops it the same way and removes the dir.
//
// Tests use one shared server per process (pg_test_server(), started on first use in about a
// second) and a fresh database per test case (pg_test_database()). Setting
// IBW_TEST_PG_URL_BASE to a libpq URL without a database name, e.g.
// "postgresql://?host=/work/pgdev&user=postgres", uses that server instead: scripts/test.sh
// starts one server for the whole run and sets it, so ctest's one process per test case does
// not pay an initdb each.
// IBW_PG_BIN overrides the bin dir; IBW_PG_KEEP=1 keeps the temp dir (its logs) at the end.
#pragma once

#include <sys/types.h>

#include <string>

namespace ibw::lab {

class PgServer {
 public:
  // Starts the server; throws std::runtime_error (what is missing and "run
  // scripts/install-deps.sh", or the tail of the server's log).
  PgServer();
  ~PgServer();
  PgServer(const PgServer&) = delete;
  PgServer& operator=(const PgServer&) = delete;

  const std::string& dir() const { return dir_; }          // temp dir: data/, server.log
  const std::string& socket_dir() const { return sock_; }  // where .s.PGSQL.5432 is
  // The libpq URL of one database: postgresql:///NAME?host=SOCKDIR&user=postgres.
  std::string url(const std::string& database) const;
  // Drops (if any) and creates database `name` ([a-z0-9_], at most 63 characters); returns
  // url(name). Throws std::runtime_error with the server's message.
  std::string create_database(const std::string& name) const;

 private:
  void stop();

  std::string dir_;
  std::string sock_;
  pid_t postmaster_ = -1;
};

// Where the bin directory of PostgreSQL 15 is (IBW_PG_BIN overrides /usr/lib/postgresql/15/bin).
std::string pg_bin_dir();

// Runs `sql` (one statement, no result) on database `url`; throws std::runtime_error.
void pg_exec(const std::string& url, const std::string& sql);

// The process's shared test server, started on first use (not used when IBW_TEST_PG_URL_BASE
// is set). Throws as PgServer().
PgServer& pg_test_server();

// A fresh, empty database for one test case on the shared server (or IBW_TEST_PG_URL_BASE's):
// named `prefix` + "_" + pid + "_" + a counter, so parallel test processes sharing one server
// (scripts/test.sh starts one per run) never meet. Returns its libpq URL. On
// IBW_TEST_PG_URL_BASE's server the process drops the databases it made when it exits.
std::string pg_test_database(const std::string& prefix = "ibwt");

}  // namespace ibw::lab
