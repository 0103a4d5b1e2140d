// The journal side of the daemon's logger (daemon/logger.h): priorities, field names, the
// PORT=/CABLE=/RULE=/DECISION= mapping a `journalctl CABLE=...` query relies on, and the
// JOURNAL_STREAM check.
#include <catch2/catch.hpp>

#include <algorithm>

#include "daemon/logger.h"

using ibw::daemon::journal_field_name;
using ibw::daemon::journal_fields;
using ibw::daemon::journal_priority;
using ibw::daemon::journal_stream_matches;
using ibw::daemon::LogLevel;
using nlohmann::json;

namespace journal_test {

// The value of KEY in a field list; "<absent>" when missing, "<twice>" when repeated.
std::string field(const std::vector<std::string>& fields, const std::string& key) {
  std::string found = "<absent>";
  int n = 0;
  for (const auto& f : fields)
    if (f.rfind(key + "=", 0) == 0) found = f.substr(key.size() + 1), ++n;
  return n > 1 ? "<twice>" : found;
}

bool has_key(const std::vector<std::string>& fields, const std::string& key) {
  return field(fields, key) != "<absent>";
}

}  // namespace journal_test

using namespace journal_test;

TEST_CASE("journal: priorities follow syslog levels", "[journal]") {
  CHECK(journal_priority(LogLevel::error) == 3);
  CHECK(journal_priority(LogLevel::warning) == 4);
  CHECK(journal_priority(LogLevel::info) == 6);
  CHECK(journal_priority(LogLevel::debug) == 7);
}

TEST_CASE("journal: field names are upper case [A-Z0-9_] without a leading underscore",
          "[journal]") {
  CHECK(journal_field_name("rows_removed") == "ROWS_REMOVED");
  CHECK(journal_field_name("tls-not.after") == "TLS_NOT_AFTER");
  CHECK(journal_field_name("_secret") == "SECRET");  // '_' first is journald's trusted field
  CHECK(journal_field_name("__cursor") == "CURSOR");
  CHECK(journal_field_name("9lives") == "LIVES");  // no leading digit either
  CHECK(journal_field_name("ms") == "MS");
  CHECK(journal_field_name("Ä") == "");  // nothing left: the field is dropped
  CHECK(journal_field_name("___") == "");
  CHECK(journal_field_name(std::string(100, 'a')).size() == 64);
  for (const auto& name : {"a b", "x=y", "k\nv", "ünï", "MiXeD_9"}) {
    std::string n = journal_field_name(name);
    INFO(name << " -> " << n);
    CHECK(std::all_of(n.begin(), n.end(), [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    }));
    CHECK((n.empty() || (n[0] != '_' && !(n[0] >= '0' && n[0] <= '9'))));
  }
}

TEST_CASE("journal: a decision names PORT CABLE RULE and DECISION", "[journal]") {
  auto f = journal_fields(LogLevel::warning, "decision",
                          {{"id", 17},
                           {"rule", "symbol_ber"},
                           {"port", "leaf003/18"},
                           {"cable_id", "C-leaf003-18"},
                           {"action", "isolate"},
                           {"status", "executed"},
                           {"reason", "BER 3e-12 over 12m"}});
  CHECK(field(f, "PRIORITY") == "4");
  CHECK(field(f, "SYSLOG_IDENTIFIER") == "ibwarden");
  CHECK(field(f, "PORT") == "leaf003/18");
  CHECK(field(f, "CABLE") == "C-leaf003-18");
  CHECK(field(f, "RULE") == "symbol_ber");
  CHECK(field(f, "DECISION") == "17");
  CHECK(field(f, "ACTION") == "isolate");
  CHECK(field(f, "REASON") == "BER 3e-12 over 12m");
  CHECK_FALSE(has_key(f, "ID"));
  CHECK_FALSE(has_key(f, "CABLE_ID"));
  CHECK_FALSE(has_key(f, "PORT_NUMBER"));
  std::string msg = field(f, "MESSAGE");
  CHECK(msg.rfind("decision ", 0) == 0);
  CHECK(msg.find("cable_id=C-leaf003-18") != std::string::npos);
  CHECK(msg.find("reason=\"BER 3e-12 over 12m\"") != std::string::npos);
  CHECK(f.front().rfind("MESSAGE=", 0) == 0);
}

TEST_CASE("journal: an event joins node and port - its message does not replace MESSAGE",
          "[journal]") {
  auto f = journal_fields(LogLevel::info, "event",
                          {{"id", 5},
                           {"source", "opensm"},
                           {"kind", "link_down"},
                           {"node", "leaf003"},
                           {"port", 18},
                           {"peer_node", "spine001"},
                           {"peer_port", 3},
                           {"cable_id", "C-leaf003-18"},
                           {"message", "link down"}});
  CHECK(field(f, "PRIORITY") == "6");
  CHECK(field(f, "PORT") == "leaf003/18");
  CHECK(field(f, "PEER_PORT") == "spine001/3");
  CHECK(field(f, "NODE") == "leaf003");
  CHECK(field(f, "CABLE") == "C-leaf003-18");
  CHECK(field(f, "ID") == "5");  // an event's id is not a decision
  CHECK_FALSE(has_key(f, "DECISION"));
  CHECK(field(f, "IBW_MESSAGE") == "link down");  // MESSAGE is journald's own
  CHECK(field(f, "MESSAGE").rfind("event ", 0) == 0);
  CHECK_FALSE(has_key(f, "PORT_NUMBER"));
}

TEST_CASE("journal: a port number without node - empty and null values", "[journal]") {
  auto f = journal_fields(LogLevel::debug, "web API listening",
                          {{"port", 8443},
                           {"listen", "0.0.0.0:8443"},
                           {"tls_subject", ""},
                           {"read_only", false},
                           {"nothing", nullptr},
                           {"list", {1, 2}}});
  CHECK(field(f, "PRIORITY") == "7");
  CHECK_FALSE(has_key(f, "PORT"));  // a TCP port is no fabric port
  CHECK(field(f, "PORT_NUMBER") == "8443");
  CHECK(field(f, "LISTEN") == "0.0.0.0:8443");
  CHECK_FALSE(has_key(f, "TLS_SUBJECT"));
  CHECK_FALSE(has_key(f, "NOTHING"));
  CHECK(field(f, "READ_ONLY") == "false");
  CHECK(field(f, "LIST") == "[1,2]");
  // An event without node: no PORT either, the bare number under its own name.
  auto e = journal_fields(LogLevel::info, "event", {{"node", ""}, {"port", 0}, {"kind", "trap"}});
  CHECK_FALSE(has_key(e, "PORT"));
  CHECK_FALSE(has_key(e, "NODE"));
}

TEST_CASE("journal: reconcile names the decision - colliding names appear once", "[journal]") {
  auto f = journal_fields(LogLevel::error, "pending port action reconciled",
                          {{"decision", 9},
                           {"node", "leaf001"},
                           {"port", 3},
                           {"priority", "high"},
                           {"_trusted", "x"},
                           {"Rule", "r1"},
                           {"rule", "r2"}});
  CHECK(field(f, "PRIORITY") == "3");  // the record's "priority" does not override it
  CHECK(field(f, "IBW_PRIORITY") == "high");
  CHECK(field(f, "DECISION") == "9");
  CHECK(field(f, "PORT") == "leaf001/3");
  CHECK(field(f, "TRUSTED") == "x");
  CHECK(field(f, "RULE") == "r2");  // the real rule field, once
  for (const auto& kv : f) {
    auto eq = kv.find('=');
    REQUIRE(eq != std::string::npos);
    CHECK(kv[0] != '_');
  }
}

TEST_CASE("journal: JOURNAL_STREAM must name this device and inode", "[journal]") {
  CHECK(journal_stream_matches("8:12345", 8, 12345));
  CHECK_FALSE(journal_stream_matches("8:12345", 8, 12346));
  CHECK_FALSE(journal_stream_matches("9:12345", 8, 12345));
  CHECK_FALSE(journal_stream_matches(nullptr, 8, 12345));
  CHECK_FALSE(journal_stream_matches("", 8, 12345));
  CHECK_FALSE(journal_stream_matches("8:12345x", 8, 12345));
  CHECK_FALSE(journal_stream_matches("garbage", 8, 12345));
}
