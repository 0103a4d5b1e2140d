// Fixtures of the web API tests (tests/unit/web/): a fake ApiBackend over a temporary SQLite
// store, a small fabric written through store::Store::write, tokens for each role, and
// request helpers. Names live in ibw::web_test (unity builds: no generic file-local names).
#pragma once

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "store/record_json.h"
#include "store/records.h"
#include "store/store.h"
#include "tests/unit/test_store_helpers.h"
#include "web/api.h"

namespace ibw::web_test {

constexpr int64_t kSecond = 1'000'000;
constexpr int64_t kNow = int64_t{1'800'000'000} * kSecond;  // 2027-01-15T08:00:00Z
constexpr uint64_t kLeaf = 0x0002'c902'0000'0001ULL;
constexpr uint64_t kHost1 = 0x0002'c903'0000'0011ULL;
constexpr uint64_t kHost2 = 0x0002'c903'0000'0012ULL;
constexpr const char* kViewerToken = "viewer-token-0123456789";
constexpr const char* kOperatorToken = "operator-token-0123456789";
constexpr const char* kAdminToken = "admin-token-0123456789abc";

inline std::string tokens_text() {
  return std::string("# web tokens\n\nviewer ") + kViewerToken + "\noperator " + kOperatorToken +
         "\nadmin " + kAdminToken + "\n";
}

// Records port actions and answers like the daemon would (a decision in the store, the
// disabled list updated when executed).
class FakeBackend : public web::ApiBackend {
 public:
  explicit FakeBackend(std::string path) : path_(std::move(path)) {}

  // fabric "" is the own one (own_name, at path_); others are in `others` (a SQLite file
  // each, standing in for one PostgreSQL store's fabrics).
  std::unique_ptr<store::Store> open_store(const std::string& fabric, bool writable) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fail_store) throw store::StoreError("cannot open " + path_ + ": disk on fire");
    ++opens;
    if (fabric.empty() || fabric == own_name) return store::Store::open(path_, !writable);
    for (const auto& o : others)
      if (o.entry.name == fabric) {
        ++other_opens;
        return store::Store::open(o.path, !writable);
      }
    throw web::ApiError(404, "no fabric " + fabric + " in the store");
  }
  std::string fabric() override { return own_name; }
  std::vector<store::FabricEntry> fabrics() override {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<store::FabricEntry> all{{own_name, own_lease}};
    for (const auto& o : others) all.push_back(o.entry);
    return all;
  }
  web::Health health() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return health_value;
  }
  core::DecisionRecord port_action(const web::PortActionRequest& r) override {
    std::lock_guard<std::mutex> lock(mutex_);
    actions.push_back(r);
    if (throw_status) throw web::ApiError(throw_status, "no topology yet");
    core::DecisionRecord d;
    d.time_us = kNow;
    d.rule = "manual";
    d.node_guid = r.node_guid;
    d.node = r.node;
    d.port = r.port;
    d.action = r.action == web::PortActionKind::disable ? "disable" : "enable";
    d.status = action_status;
    d.reason = r.actor + ": " + r.reason;
    d.link_key = core::link_key(r.node_guid, r.port, 0, 0);
    store::WriteBatch b;
    b.decisions.push_back(d);
    if (d.status == "executed" && d.action == "disable")
      b.disabled_add.push_back({r.node_guid, r.port, kNow, 0, d.link_key});
    if (d.status == "executed" && d.action == "enable")
      b.disabled_remove.emplace_back(r.node_guid, r.port);
    auto db = store::Store::open(path_);
    d.id = db->write(b).decision_ids.at(0);
    return d;
  }
  std::optional<nlohmann::json> last_audit() override {
    std::lock_guard<std::mutex> lock(mutex_);
    return audit;
  }
  nlohmann::json run_audit() override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++audits_run;
    audit = nlohmann::json{{"summary", {{"planned_links", 3}, {"ok", 2}, {"missing", 1}}},
                           {"findings", nlohmann::json::array()}};
    return *audit;
  }
  bool webhook_outbox() override { return outbox; }

  // Set by tests (before requests run).
  struct OtherFabric {
    store::FabricEntry entry;
    std::string path;
  };
  std::string own_name = "default";
  std::optional<store::Lease> own_lease;
  std::vector<OtherFabric> others;
  web::Health health_value;
  std::string action_status = "executed";
  int throw_status = 0;
  std::optional<nlohmann::json> audit;
  bool outbox = false;
  bool fail_store = false;
  // Observed.
  std::vector<web::PortActionRequest> actions;
  int audits_run = 0;
  int opens = 0;
  int other_opens = 0;

 private:
  std::mutex mutex_;
  std::string path_;
};

inline store::PortRecord port_record(uint64_t guid, int port, const std::string& node, int state,
                                     uint64_t peer_guid, const std::string& peer_node,
                                     int peer_port, const std::string& cable) {
  store::PortRecord p;
  p.node_guid = guid, p.port = port, p.node = node, p.lid = 7;
  p.state = state, p.phys_state = state == 4 ? 5 : 2, p.width = state == 4 ? 4 : 0;
  p.speed = state == 4 ? "HDR" : "";
  p.peer_guid = peer_guid, p.peer_node = peer_node, p.peer_port = peer_port;
  p.cable_id = cable;
  p.counters.time_us = kNow - 10 * kSecond;
  p.counters.node_guid = guid, p.counters.port = port;
  p.counters.valid = 0x1ffff;
  p.deltas_valid = 0x1ffff;
  p.last_change_us = kNow - 3600 * kSecond;
  return p;
}

inline ingest::Event port_event(int i, uint64_t guid, int port, const std::string& node,
                                const std::string& kind) {
  ingest::Event e;
  e.time_us = kNow - 600 * kSecond + i * kSecond;
  e.source = ingest::EventSource::opensm;
  e.kind = kind;
  e.severity = ingest::Severity::warning;
  e.node_guid = guid, e.port = port, e.node = node;
  e.message = kind + " " + node + "/" + std::to_string(port);
  e.dedup_key = "test:" + std::to_string(i);
  return e;
}

// A leaf with four ports and two hosts:
//   leaf001/1 - node0001 mlx5_0/1  Active, SymbolErrorCounter +5 in the last sweep
//   leaf001/2 - node0002 mlx5_0/1  Active, clean
//   leaf001/3                      Down, planned cable, disabled by ibwarden, order 1
//   leaf001/4                      Down, unplanned (an unused port)
// Events 1-6 (ten minutes ago), samples of leaf001/1, decisions, and two orders.
struct WebBench {
  store_test::TempDir dir;
  std::string path = dir.file("web.db");
  std::unique_ptr<store::Store> db = store::Store::open(path);
  FakeBackend backend{path};
  int64_t order_disabled = 0;  // order of leaf001/3 (its port disabled)
  int64_t order_open = 0;      // order of leaf001/1

  WebBench() {
    store::WriteBatch b;
    b.ports.push_back(port_record(kLeaf, 1, "leaf001", 4, kHost1, "node0001 mlx5_0", 1, "C-1"));
    b.ports.back().deltas[0] = 5;  // SymbolErrorCounter
    b.ports.push_back(port_record(kLeaf, 2, "leaf001", 4, kHost2, "node0002 mlx5_0", 1, "C-2"));
    b.ports.push_back(port_record(kLeaf, 3, "leaf001", 1, 0, "", 0, "C-3"));
    b.ports.push_back(port_record(kLeaf, 4, "leaf001", 1, 0, "", 0, ""));
    b.ports.push_back(port_record(kHost1, 1, "node0001 mlx5_0", 4, kLeaf, "leaf001", 1, "C-1"));
    b.ports.push_back(port_record(kHost2, 1, "node0002 mlx5_0", 4, kLeaf, "leaf001", 2, "C-2"));
    for (int i = 1; i <= 6; ++i)
      b.events.push_back(i <= 3 ? port_event(i, kLeaf, 1, "leaf001", "link_down")
                                : port_event(i, kHost2, 1, "node0002 mlx5_0", "link_up"));
    for (int i = 0; i < 10; ++i) {
      ingest::CounterSample s = b.ports[0].counters;
      s.time_us = kNow - (10 - i) * 60 * kSecond;
      s.value[0] = 100 + i * 5;
      b.samples.push_back(s);
    }
    std::string key3 = core::link_key(kLeaf, 3, 0, 0);
    std::string key1 = core::link_key(kLeaf, 1, kHost1, 1);
    core::DecisionRecord d;
    d.time_us = kNow - 300 * kSecond;
    d.rule = "symbol_errors";
    d.node_guid = kLeaf, d.node = "leaf001", d.port = 1;
    d.action = "work_order", d.status = "dry_run", d.reason = "errors on leaf001/1";
    d.link_key = key1;
    b.decisions.push_back(d);
    d.port = 3, d.action = "disable", d.status = "executed", d.reason = "BER 1e-10 over 12m";
    d.link_key = key3;
    b.decisions.push_back(d);  // last: the disabled entry below refers to it
    b.workorders.push_back(order(key3, 3, 0, "critical", true));
    b.workorders.push_back(order(key1, 1, kHost1, "warning", false));
    b.disabled_add.push_back({kLeaf, 3, kNow - 300 * kSecond, 0, key3});
    auto res = db->write(b);
    order_disabled = res.workorder_ids.at(0);
    order_open = res.workorder_ids.at(1);
  }

  static core::WorkOrder order(const std::string& key, int port, uint64_t peer,
                               const std::string& severity, bool disabled) {
    core::WorkOrder o;
    o.link_key = key;
    o.cable_id = "C-" + std::to_string(port);
    o.a = {kLeaf, "leaf001", port, "R1-U40"};
    o.b = {peer, peer ? "node0001 mlx5_0" : "", peer ? 1 : 0, ""};
    o.severity = severity;
    o.rule = "symbol_errors";
    o.summary = "errors on leaf001/" + std::to_string(port);
    o.needs_human = !disabled;
    o.port_disabled = disabled;
    o.opened_us = kNow - 300 * kSecond;
    o.updated_us = o.opened_us;
    return o;
  }

  web::ApiOptions options(bool read_only = false) const {
    web::ApiOptions o;
    o.read_only = read_only;
    o.now_us = [] { return kNow; };
    o.ports_cache_us = 0;
    return o;
  }
  std::unique_ptr<web::Api> api(bool read_only = false, bool with_tokens = true) {
    std::optional<web::TokenSet> tokens;
    if (with_tokens) tokens = web::TokenSet::parse(tokens_text(), "tokens");
    return std::make_unique<web::Api>(backend, options(read_only), std::move(tokens));
  }
};

inline web::Request request(const std::string& method, const std::string& target,
                            const char* token = kViewerToken, const std::string& body = "") {
  web::Request r;
  r.method = method;
  r.target = target;
  if (token) r.headers["authorization"] = std::string("Bearer ") + token;
  if (!body.empty()) r.headers["content-type"] = "application/json";
  r.body = body;
  return r;
}

inline nlohmann::json body_of(const web::Response& r) {
  INFO("status " << r.status << " body " << r.body);
  REQUIRE(r.content_type == "application/json");
  return nlohmann::json::parse(r.body);
}

inline std::string error_of(const web::Response& r) {
  return body_of(r).value("error", "");
}

// A raw loopback TCP client of the web server (no HTTP library): for malformed requests, limits
// and what the server sends byte for byte. Receives time out after 5 s.
struct RawClient {
  int fd = -1;
  explicit RawClient(uint16_t port) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  }
  ~RawClient() { ::close(fd); }
  void send_all(const std::string& data) {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return;  // the server may close early (413)
      done += static_cast<size_t>(n);
    }
  }
  // Reads until `until` appears in what was read, EOF or the timeout.
  std::string read_until(const std::string& until = "") {
    std::string out;
    char buf[4096];
    while (until.empty() || out.find(until) == std::string::npos) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }
};

}  // namespace ibw::web_test
