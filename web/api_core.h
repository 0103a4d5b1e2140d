// Internals of the web API (web/api.h), shared by its .cpp files: the per-request context,
// strict query and body parsing, the cache of read-only store connections, the shared port
// list, and ApiCore with one member function per endpoint:
//   api.cpp              routing, authentication, authorization, error mapping
//   api_params.cpp       Query, body parsing, StorePool, UTC times
//   api_health.cpp       /health, /fabric, /metrics
//   api_ports.cpp        /ports, the port lookup of /ports/{node}/{port}
//   api_port_list.cpp    the shared port list
//   api_port_detail.cpp  /ports/{node}/{port}
//   api_remedy.cpp       /decisions, /workorders, port actions, /audit
//   api_events.cpp       /events, /stream
//   api_probes.cpp       /suspects, /routes/health, /probes (cursed routes)
//   api_fabrics.cpp      /fabrics, ?fabric= resolution, other fabrics' health
#pragma once

#include <condition_variable>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fabric/diagnostics.h"
#include "web/api.h"
#include "web/compress.h"
#include "web/guard.h"
#include "web/stream_reader.h"

namespace ibw::web {

// The query parameters of one request, checked against those the endpoint accepts: an
// unknown or repeated parameter is a 400 naming it. Getters throw ApiError 400 naming the
// parameter and what it must be.
class Query {
 public:
  Query(const std::vector<std::pair<std::string, std::string>>& items,
        const std::vector<std::string_view>& allowed);
  std::optional<std::string> get(std::string_view name) const;
  int64_t integer(std::string_view name, int64_t min, int64_t max, int64_t fallback) const;
  std::optional<bool> boolean(std::string_view name) const;  // true|false|1|0
  // A duration back from now ("10m") or a UTC time ("2026-11-22T01:00:00Z", fraction and Z
  // optional); fallback when absent.
  int64_t time(std::string_view name, int64_t now_us, int64_t fallback) const;

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

// The source health a lease row carries (store::Lease::sources, sources_json text); bad text
// reads as none.
std::vector<SourceHealth> lease_source_health(const std::string& text);

// UTC microseconds for "2026-11-22T01:00:00[.123456][Z]"; nullopt when malformed.
std::optional<int64_t> parse_utc_time(std::string_view s);

// The request's JSON object body: 415 unless Content-Type is application/json, 400 when it is
// not a JSON object or has a field not in `allowed` (an empty body reads as {}).
nlohmann::json body_object(const Request& req, std::initializer_list<std::string_view> allowed);
// A string field of at most max_len bytes ("" when absent); 400 naming it otherwise.
std::string body_string(const nlohmann::json& body, const char* field, size_t max_len);

// Read-only store connections, reused across requests, per fabric ("" = the instance's own;
// Store is not thread-safe: a lease is used by one thread at a time). A connection whose
// request failed with StoreError is dropped. At most max_idle idle connections per fabric.
class StorePool {
 public:
  StorePool(ApiBackend& backend, size_t max_idle) : backend_(backend), max_idle_(max_idle) {}

  class Lease {
   public:
    Lease(StorePool& pool, std::string fabric, std::unique_ptr<store::Store> s)
        : pool_(&pool), fabric_(std::move(fabric)), s_(std::move(s)) {}
    Lease(Lease&& o) noexcept = default;
    ~Lease();
    store::Store* operator->() const { return s_.get(); }
    store::Store& operator*() const { return *s_; }
    void discard() { s_.reset(); }  // after a failure: do not reuse

   private:
    StorePool* pool_;
    std::string fabric_;
    std::unique_ptr<store::Store> s_;
  };

  Lease acquire(const std::string& fabric);

 private:
  ApiBackend& backend_;
  size_t max_idle_;
  std::mutex mutex_;
  std::map<std::string, std::vector<std::unique_ptr<store::Store>>> idle_;
};

// What /fabric and /metrics count.
struct FabricCounts {
  int64_t nodes = 0;
  int64_t links = 0;  // distinct links with both ends known
  int64_t down = 0;   // links down (see web/README.md), not disabled by ibwarden
  std::map<std::string, int64_t> by_state;  // PortState name -> ports
};
struct PortList;

// All ports and the ports ibwarden disabled, as read at one time (shared between requests),
// with what /ports needs to answer a page without walking or rendering 200,000 ports:
// each port's JSON, dumped, and per-port flags and node indexes for the filters. Built by
// prepare() before the list is shared, then immutable but for the page cache.
struct PortList {
  int64_t loaded_us = 0;
  std::vector<store::PortRecord> ports;  // ordered by name, then port
  std::vector<core::DisabledPort> disabled;
  const core::DisabledPort* disabled_entry(uint64_t guid, int port) const;

  // Flags of ports[i]: its PortState (0-4) in the low bits, and:
  static constexpr uint8_t kStateMask = 7, kPhysDisabled = 8, kOurs = 16, kErrors = 32;
  std::vector<uint8_t> flags;
  // Each port's JSON as /ports serves it (store::port_json plus disabled_by_ibwarden), in
  // `ports` order. Shared with the list this one replaced where the port did not change, so
  // a reload renders only what changed (the JSON of 2,000 ports costs tens of milliseconds).
  std::vector<std::shared_ptr<const std::string>> json;
  std::unordered_map<std::string, std::vector<uint32_t>> by_name;  // node name -> indexes
  std::unordered_map<uint64_t, std::vector<uint32_t>> by_guid;     // node GUID -> indexes
  // Fills flags, json and the indexes, reusing `previous` (may be null).
  void prepare(const PortList* previous);

  // Answered /ports bodies by canonical query (dropped with the list: at most kCacheBytes).
  std::shared_ptr<const std::string> cached(const std::string& key) const;
  void cache(const std::string& key, std::shared_ptr<const std::string> body) const;
  static constexpr size_t kCacheBytes = 64u << 20;
  // count_fabric(*this), counted once per list (sets of 200,000 link keys take a while).
  const FabricCounts& counts() const;
  // Raw deflate of full block b: ports b * kBlockPorts .. + kBlockPorts - 1, each JSON
  // preceded by ','. A gzipped page copies the blocks it holds whole instead of compressing
  // them again (api_ports.cpp); compressed at first use, shared with the next list where its
  // ports did not change; null if zlib failed or b is not a full block.
  static constexpr size_t kBlockPorts = 64;
  std::shared_ptr<const DeflateChunk> block(size_t b) const;
  // Compresses the blocks `previous` had compressed that this list does not have (their ports
  // changed): a reload in the background does it before publishing, so that clients paging
  // through the list are not the ones waiting for the blocks of a new sweep. Returns how many.
  size_t warm_blocks(const PortList& previous) const;

 private:
  mutable std::mutex blocks_mutex_;
  mutable std::vector<std::shared_ptr<const DeflateChunk>> blocks_;
  mutable std::once_flag counts_once_;
  mutable FabricCounts counts_;
  mutable std::mutex cache_mutex_;
  mutable std::unordered_map<std::string, std::shared_ptr<const std::string>> cache_;
  mutable size_t cache_bytes_ = 0;
};

FabricCounts count_fabric(const PortList& list);
struct OrderCounts {
  int64_t total = 0;  // open, in_progress, reopened
  int64_t needs_human = 0;
  std::map<std::string, int64_t> by_severity;
};
OrderCounts count_orders(store::RemedyStore& st);

struct Principal {
  Role role = Role::none;
  std::string actor;  // "anonymous", "viewer@tokens:3"
};

// One request being handled.
struct Call {
  const Request& request;
  Query query;
  std::vector<std::string> params;  // path parameters, in order
  Principal who;
  int64_t now_us = 0;
  // ?fabric=: "" for the instance's own fabric (absent, or its name), else another fabric
  // the store holds (checked before the handler runs: 404 otherwise), with its entry.
  std::string fabric;
  std::optional<store::FabricEntry> other;
  std::optional<StorePool::Lease> lease;  // opened on first use, on c.fabric's rows

  store::Store& store(StorePool& pool);
};

// The port list of one fabric, shared between requests (see ApiCore::port_list).
struct PortCache {
  std::shared_ptr<const PortList> list;
  bool loading = false;
  uint64_t generation = 0;  // bumped when a port action makes the list stale
  int64_t ttl_us = 0;       // see port_list()
  std::thread reloader;     // the background reload, joined before the next and at exit
};

class ApiCore {
 public:
  ApiCore(ApiBackend& backend, ApiOptions options, std::optional<TokenSet> tokens);
  ~ApiCore();  // waits for a port list reload in progress
  Response handle(const Request& request);
  void reconfigure(bool read_only, std::optional<TokenSet> tokens);

  // Endpoints.
  Response get_health(Call& c);
  Response get_fabric(Call& c);
  Response get_ports(Call& c);
  Response get_port(Call& c);
  Response get_metrics(Call& c);
  Response get_events(Call& c);
  Response get_stream(Call& c);
  Response get_decisions(Call& c);
  Response get_workorders(Call& c);
  Response get_workorder(Call& c);
  Response patch_workorder(Call& c);
  Response post_disable(Call& c);
  Response post_enable(Call& c);
  Response get_audit(Call& c);
  Response post_audit(Call& c);
  Response get_whoami(Call& c);
  // The probe runner, or ApiError(404) when probing is off.
  ProbeBackend& probes();
  Response get_suspects(Call& c);
  Response get_congestion(Call& c);
  Response get_route_check(Call& c);
  Response get_incidents(Call& c);
  Response get_route_health(Call& c);
  Response post_probes(Call& c);
  Response get_fabrics(Call& c);

  int64_t now_us() const;
  GuardStats& guard() { return guard_; }

 private:
  // ?fabric= of a request: sets c.fabric and c.other (404 for a fabric not in the store).
  void resolve_fabric(Call& c);
  // The display name of c's fabric (the own one's when c.fabric is "").
  std::string fabric_name(const Call& c);
  // For routes about this daemon's live state asked about another fabric: throws 409 naming
  // the fabric's leader ("fabric B is watched by X; ask it"). No-op for the own fabric.
  void only_own_fabric(const Call& c);
  // GET /health?fabric=OTHER: from the fabric's lease row.
  Response other_health(Call& c);
  // The parts of /health both kinds share: the per-source entries, raising *status to the
  // worst source's; and the store's entry, *status "down" when the store cannot be read,
  // "degraded" when `own` (this daemon's writer's checkpoints) says its checkpoint thread
  // fails.
  static nlohmann::ordered_json health_sources(const std::vector<SourceHealth>& sources,
                                               std::string* status);
  nlohmann::ordered_json health_store(Call& c, std::string* status,
                                      const store::CheckpointStats* own = nullptr);
  // GET /fabrics entries, and the per-fabric lease metrics.
  nlohmann::ordered_json fabrics_json(const std::vector<store::FabricEntry>& all);
  // Who presents `token` (from bearer_token(); "" for none): anonymous without tokens.
  Principal authenticate(std::string_view token,
                         const std::shared_ptr<const TokenSet>& tokens) const;
  // The shared port list. Older than its time to live (options.ports_cache_us, or five times
  // what the last load took, whichever is longer: reloads use at most ~20% of a core), it is
  // still answered while one background thread reloads it (at a lower CPU priority than the
  // threads answering requests); only the first request, the one after a port action and
  // every request with ports_cache_us 0 wait for a load.
  std::shared_ptr<const PortList> port_list(Call& c);
  // Reads and prepares a list (reusing `previous`'s JSON); publishes it unless a port action
  // invalidated the list meanwhile (generation changed). background: a reload while the old
  // list is still answered; it also warms the blocks the old list had (PortList::warm_blocks).
  std::shared_ptr<const PortList> load_ports(PortCache& pc, store::Store& st, uint64_t generation,
                                             std::shared_ptr<const PortList> previous,
                                             bool background = false);
  // The port records of {node} (name or 0xGUID) and {port}: 404 when unknown, 400 when the
  // name is ambiguous or the port is not a number.
  store::PortRecord find_port(Call& c, const PortList& list);
  Response port_action(Call& c, PortActionKind kind);
  // One read-modify-write of PATCH /workorders/{id}; throws store::StoreConflict when the
  // order changed between the read and the write.
  Response patch_once(Call& c, store::RemedyStore& st, int64_t id, const nlohmann::json& body,
                      const std::string& status, const std::string& assignee,
                      const std::string& note);

  ApiBackend& backend_;
  ApiOptions options_;
  AuthLimiter auth_limiter_;
  GuardStats guard_;
  StorePool stores_;
  mutable std::mutex mutex_;  // guards tokens_, read_only_ and ports_
  std::shared_ptr<const TokenSet> tokens_;
  bool read_only_ = false;
  std::map<std::string, PortCache> ports_;  // by Call::fabric (map: entries never move)
  // The event streams' shared readers, by Call::fabric (web/stream_reader.h).
  std::map<std::string, std::shared_ptr<StreamReader>> stream_readers_;
  std::condition_variable ports_loaded_;
};

}  // namespace ibw::web
