// Feeds web API requests to web::Api::handle, the function the HTTP server calls: mainly the
// request bodies (POST /ports/{node}/{port}/disable|enable, PATCH /workorders/{id},
// POST /audit, POST /probes with each accepted Content-Type), and, in one mode, any method,
// target and query. Input: one selector byte (endpoint, Content-Type, role of the bearer
// token), then the body; in the raw mode the first line is "METHOD TARGET".
// The backend is a fake over a small SQLite store in /dev/shm, created once per process and
// only read: writable stores are refused (503), so PATCH stops after its body is validated.
// POST /probes goes through ingest::parse_observations as the daemon's backend does.
// Findings: a 500 answer (an exception the API did not expect), a JSON answer that is not
// JSON, and a port action reaching the backend with a blank reason.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz/fuzz_util.h"
#include "ingest/observation.h"
#include "store/records.h"
#include "store/store.h"
#include "web/api.h"

namespace {

using namespace ibw;
constexpr int64_t kNow = int64_t{1'800'000'000} * 1'000'000;
constexpr uint64_t kLeaf = 0x0002'c902'0000'0001ULL, kHost = 0x0002'c903'0000'0011ULL;
const char* const kTokens[] = {"", "viewer-token-0123456789", "operator-token-0123456789",
                               "admin-token-0123456789abc"};

class FuzzBackend : public web::ApiBackend, public web::ProbeBackend {
 public:
  explicit FuzzBackend(std::string path) : path_(std::move(path)) {}
  std::unique_ptr<store::Store> open_store(const std::string& fabric, bool writable) override {
    if (!fabric.empty()) throw web::ApiError(404, "no fabric " + fabric + " in the store");
    if (writable) throw web::ApiError(503, "fuzz: the store is read-only");
    return store::Store::open(path_, /*read_only=*/true);
  }
  web::Health health() override { return {}; }
  store::DecisionRecord port_action(const web::PortActionRequest& r) override {
    if (r.reason.find_first_not_of(" \t\r\n") == std::string::npos) __builtin_trap();
    store::DecisionRecord d;
    d.id = 1, d.time_us = kNow, d.rule = "manual";
    d.node_guid = r.node_guid, d.node = r.node, d.port = r.port;
    d.action = r.action == web::PortActionKind::disable ? "disable" : "enable";
    d.status = r.force ? "executed" : "dry_run";
    d.reason = r.actor + ": " + r.reason;
    return d;
  }
  std::optional<nlohmann::json> last_audit() override { return std::nullopt; }
  nlohmann::json run_audit() override { return {{"summary", {{"planned_links", 0}}}}; }
  bool webhook_outbox() override { return false; }
  web::ProbeBackend* probes() override { return this; }
  nlohmann::json suspects() override { return {{"suspects", nlohmann::json::array()}}; }
  nlohmann::json route_health() override { return nlohmann::json::object(); }
  nlohmann::json submit_probes(const std::string& text, const std::string&,
                               const std::string&) override {
    return {{"accepted", ingest::parse_observations(text, "POST /api/v1/probes").size()}};
  }

 private:
  std::string path_;
};

store::PortRecord port(uint64_t guid, int num, const char* node, uint64_t peer,
                       const char* peer_node) {
  store::PortRecord p;
  p.node_guid = guid, p.port = num, p.node = node, p.lid = 7, p.state = 4, p.phys_state = 5;
  p.width = 4, p.speed = "HDR", p.peer_guid = peer, p.peer_node = peer_node, p.peer_port = 1;
  return p;
}

struct Bench {
  std::filesystem::path dir;
  std::unique_ptr<FuzzBackend> backend;
  std::unique_ptr<web::Api> api;

  Bench() {
    std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    dir = base + "/ibw-fuzz-web-" + std::to_string(getpid());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::string path = (dir / "web.db").string();
    store::WriteBatch b;
    b.ports = {port(kLeaf, 1, "leaf001", kHost, "node0001 mlx5_0"),
               port(kHost, 1, "node0001 mlx5_0", kLeaf, "leaf001")};
    store::WorkOrder o;
    o.link_key = store::link_key(kLeaf, 1, kHost, 1);
    o.a = {kLeaf, "leaf001", 1, "R1"}, o.b = {kHost, "node0001 mlx5_0", 1, "R1"};
    o.summary = "symbol errors", o.opened_us = kNow;
    b.workorders.push_back(o);
    store::Store::open(path)->write(b);
    backend = std::make_unique<FuzzBackend>(path);
    web::ApiOptions options;
    options.now_us = [] { return kNow; };
    std::string tokens = std::string("viewer ") + kTokens[1] + "\noperator " + kTokens[2] +
                         "\nadmin " + kTokens[3] + "\n";
    api = std::make_unique<web::Api>(*backend, options, web::TokenSet::parse(tokens, "tokens"));
  }
  ~Bench() {
    api.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

Bench& bench() {
  static Bench b;
  return b;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  bench();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  uint8_t sel = data[0];
  std::string_view rest = ibw::fuzz::as_text(data + 1, size - 1);
  web::Request req;
  req.peer = "192.0.2.1";
  if (const char* token = kTokens[sel >> 6]; *token)
    req.headers["authorization"] = std::string("Bearer ") + token;
  static const char* const kJsonTypes[] = {"application/json", "application/json; charset=utf-8",
                                           "text/plain", ""};
  static const char* const kProbeTypes[] = {"application/x-ndjson", "application/jsonl",
                                            "application/json", "text/csv", "text/plain"};
  req.headers["content-type"] = kJsonTypes[(sel >> 3) % 4];
  switch (sel % 6) {
    case 0:
      req.method = "POST", req.target = "/api/v1/ports/leaf001/1/disable";
      break;
    case 1:
      req.method = "POST", req.target = "/api/v1/ports/0x0002c90300000011/1/enable";
      break;
    case 2:
      req.method = "PATCH", req.target = "/api/v1/workorders/1";
      break;
    case 3:
      req.method = "POST", req.target = "/api/v1/audit";
      break;
    case 4:
      req.method = "POST", req.target = "/api/v1/probes";
      req.headers["content-type"] = kProbeTypes[(sel >> 3) % 5];
      break;
    default: {  // "METHOD TARGET\n" then the body
      size_t eol = rest.find('\n'), sp = rest.substr(0, eol).find(' ');
      if (eol == std::string_view::npos || sp == std::string_view::npos) return 0;
      req.method = std::string(rest.substr(0, sp));
      req.target = std::string(rest.substr(sp + 1, eol - sp - 1));
      rest.remove_prefix(eol + 1);
      break;
    }
  }
  req.body = std::string(rest);
  web::Response res = bench().api->handle(req);
  if (res.status == 500) __builtin_trap();  // the API met an exception it did not expect
  if (res.content_type == "application/json" && !res.stream && !res.head &&
      !nlohmann::json::accept(res.body))
    __builtin_trap();
  return 0;
}
