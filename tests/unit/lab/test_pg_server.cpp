// The private PostgreSQL of the tests (tests/lab/pg_server.h): it starts, hands out fresh
// databases that are really separate, and runs as an unprivileged user on a private socket.
#include <catch2/catch.hpp>

#include <libpq-fe.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include <filesystem>
#include <optional>
#include <string>

#include "tests/lab/pg_server.h"

namespace {

std::string query_one(const std::string& url, const std::string& sql) {
  PGconn* c = PQconnectdb(url.c_str());
  REQUIRE(PQstatus(c) == CONNECTION_OK);
  PGresult* r = PQexec(c, sql.c_str());
  std::string v =
      PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 ? PQgetvalue(r, 0, 0) : "<error>";
  PQclear(r);
  PQfinish(c);
  return v;
}

}  // namespace

TEST_CASE("pg_server: fresh databases are empty and separate", "[pg_server]") {
  std::string a = ibw::lab::pg_test_database("pgsrv");
  std::string b = ibw::lab::pg_test_database("pgsrv");
  REQUIRE(a != b);
  ibw::lab::pg_exec(a, "CREATE TABLE t (x int)");
  ibw::lab::pg_exec(a, "INSERT INTO t VALUES (7)");
  CHECK(query_one(a, "SELECT x FROM t") == "7");
  CHECK(query_one(b, "SELECT count(*) FROM pg_tables WHERE tablename = 't'") == "0");
  CHECK(query_one(a, "SHOW server_version_num").substr(0, 2) == "15");
  CHECK_THROWS_WITH(ibw::lab::pg_exec(a, "SELECT nope"), Catch::Contains("nope"));
}

TEST_CASE("pg_server: private server on its own socket without TCP", "[pg_server]") {
  // A server of its own, not pg_test_server(): checked also when IBW_TEST_PG_URL_BASE names
  // another server (scripts/test.sh sets it for the whole run).
  ibw::lab::PgServer s;
  CHECK(std::filesystem::exists(s.socket_dir() + "/.s.PGSQL.5432"));
  std::string url = s.create_database("pgsrv_private");
  CHECK(url == "postgresql:///pgsrv_private?host=" + s.socket_dir() + "&user=postgres");
  CHECK(query_one(url, "SHOW listen_addresses") == "");
  CHECK(query_one(url, "SHOW fsync") == "off");
  // initdb and the server refuse root: as root they run as the user postgres.
  std::filesystem::path data = s.dir() + "/data";
  struct stat st {};
  REQUIRE(stat(data.c_str(), &st) == 0);
  CHECK(st.st_uid != 0);
  CHECK_THROWS_WITH(s.create_database("Bad-Name"), Catch::Contains("[a-z0-9_]"));
}

namespace {

// Sets an environment variable for one scope, restoring the old value (or none) after.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) {
    if (const char* v = std::getenv(name.c_str())) old = v;
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old)
      ::setenv(name.c_str(), old->c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
};

}  // namespace

TEST_CASE("pg_server: IBW_TEST_PG_URL_BASE names the server of the fresh databases",
          "[pg_server]") {
  ibw::lab::PgServer s;
  ScopedEnv env("IBW_TEST_PG_URL_BASE", "postgresql://?host=" + s.socket_dir() + "&user=postgres");
  std::string a = ibw::lab::pg_test_database("pgbase");
  std::string b = ibw::lab::pg_test_database("pgbase");
  REQUIRE(a != b);
  // Both live on s (its socket dir), named with this process's pid.
  std::string pid = std::to_string(getpid());
  CHECK(a.rfind("postgresql:///pgbase_" + pid + "_", 0) == 0);
  CHECK(a.find("?host=" + s.socket_dir() + "&user=postgres") != std::string::npos);
  ibw::lab::pg_exec(a, "CREATE TABLE t (x int)");
  CHECK(query_one(b, "SELECT count(*) FROM pg_tables WHERE tablename = 't'") == "0");
  CHECK(query_one(s.url("postgres"),
                  "SELECT count(*) FROM pg_database WHERE datname LIKE 'pgbase_" + pid + "_%'") ==
        "2");
}
