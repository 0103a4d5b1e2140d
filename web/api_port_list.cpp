// The shared port list of the web API (web/api_core.h): loading it from the store, reloading
// it in the background, and what /ports needs from it (flags, node indexes, each port's JSON,
// the cache of answered pages).
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <unordered_set>

#include "store/record_json.h"
#include "web/api_core.h"

namespace ibw::web {
namespace api_port_list_detail {

// As ibqueryerrors reports ports: an error counter above zero (since the counters were last
// cleared), or one that rose in the last sweep (a counter reset in between).
bool has_errors(const store::PortRecord& p) {
  for (size_t i = 0; i < ingest::kCounterCount; ++i) {
    if (!ingest::is_error_counter(static_cast<ingest::Counter>(i))) continue;
    if ((p.counters.valid & (1u << i)) && p.counters.value[i] > 0) return true;
    if ((p.deltas_valid & (1u << i)) && p.deltas[i] > 0) return true;
  }
  return false;
}

bool same_counters(const ingest::CounterSample& a, const ingest::CounterSample& b) {
  return a.time_us == b.time_us && a.valid == b.valid && a.saturated == b.saturated &&
         a.extended == b.extended && a.value == b.value;
}

// Everything store::port_json shows is equal.
bool same_port(const store::PortRecord& a, const store::PortRecord& b) {
  if (a.ufm.has_value() != b.ufm.has_value()) return false;
  if (a.ufm && (!a.ufm->same_view(*b.ufm) || a.ufm->since_us != b.ufm->since_us)) return false;
  return a.node_guid == b.node_guid && a.port == b.port && a.node == b.node && a.lid == b.lid &&
         a.peer_guid == b.peer_guid && a.peer_node == b.peer_node && a.peer_port == b.peer_port &&
         a.cable_id == b.cable_id && a.state == b.state && a.phys_state == b.phys_state &&
         a.width == b.width && a.speed == b.speed && a.rates_valid == b.rates_valid &&
         a.deltas_valid == b.deltas_valid && a.deltas_at_least == b.deltas_at_least &&
         a.last_change_us == b.last_change_us && a.rates == b.rates && a.deltas == b.deltas &&
         same_counters(a.counters, b.counters);
}

uint64_t key(uint64_t guid, int port) {
  return guid * 256 + static_cast<uint64_t>(port & 255);
}

// The calling thread (only: Linux gives each thread its own nice value) yields the CPU to the
// threads answering requests. Raising one's own nice value needs no privilege; failure leaves
// the priority as it was.
void lower_thread_priority() {
  constexpr int kBackgroundNice = 10;
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kBackgroundNice);
}

int64_t steady_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace api_port_list_detail

const core::DisabledPort* PortList::disabled_entry(uint64_t guid, int port) const {
  for (const auto& d : disabled)
    if (d.node_guid == guid && d.port == port) return &d;
  return nullptr;
}

void PortList::prepare(const PortList* previous) {
  using namespace api_port_list_detail;
  constexpr uint8_t kPhysStateDisabled = 3;
  std::unordered_set<uint64_t> ours;
  for (const auto& d : disabled) ours.insert(key(d.node_guid, d.port));
  std::unordered_map<uint64_t, uint32_t> before;  // previous index by port
  if (previous) {
    before.reserve(previous->ports.size());
    for (uint32_t i = 0; i < previous->ports.size(); ++i)
      before.emplace(key(previous->ports[i].node_guid, previous->ports[i].port), i);
  }
  flags.resize(ports.size());
  json.resize(ports.size());
  for (uint32_t i = 0; i < ports.size(); ++i) {
    const store::PortRecord& p = ports[i];
    bool by_us = ours.count(key(p.node_guid, p.port)) > 0;
    uint8_t f = static_cast<uint8_t>(p.state >= 0 && p.state <= 4 ? p.state : 0);
    if (p.phys_state == kPhysStateDisabled) f |= kPhysDisabled;
    if (by_us) f |= kOurs;
    if (has_errors(p)) f |= kErrors;
    flags[i] = f;
    by_name[p.node].push_back(i);
    by_guid[p.node_guid].push_back(i);
    if (previous) {
      auto it = before.find(key(p.node_guid, p.port));
      if (it != before.end() && (previous->flags[it->second] & kOurs) == (f & kOurs) &&
          same_port(previous->ports[it->second], p)) {
        json[i] = previous->json[it->second];
        continue;
      }
    }
    nlohmann::ordered_json j = store::port_json(p);
    j["disabled_by_ibwarden"] = by_us;
    json[i] = std::make_shared<const std::string>(dump_json(j));
  }
  blocks_.assign(ports.size() / kBlockPorts, nullptr);
  if (!previous) return;
  std::lock_guard<std::mutex> lock(previous->blocks_mutex_);
  for (size_t b = 0; b < blocks_.size() && b < previous->blocks_.size(); ++b) {
    bool same = previous->blocks_[b] != nullptr;
    for (size_t i = b * kBlockPorts; same && i < (b + 1) * kBlockPorts; ++i)
      same = json[i] == previous->json[i];
    if (same) blocks_[b] = previous->blocks_[b];
  }
}

std::shared_ptr<const DeflateChunk> PortList::block(size_t b) const {
  {
    std::lock_guard<std::mutex> lock(blocks_mutex_);
    if (b >= blocks_.size()) return nullptr;
    if (blocks_[b]) return blocks_[b];
  }
  std::string text;  // compressed outside the lock: other pages go on meanwhile
  for (size_t i = b * kBlockPorts; i < (b + 1) * kBlockPorts; ++i) {
    text += ',';
    text += *json[i];
  }
  auto z = deflate_chunk(text);
  if (!z) return nullptr;
  auto chunk = std::make_shared<const DeflateChunk>(std::move(*z));
  std::lock_guard<std::mutex> lock(blocks_mutex_);
  if (!blocks_[b]) blocks_[b] = std::move(chunk);
  return blocks_[b];
}

size_t PortList::warm_blocks(const PortList& previous) const {
  std::vector<size_t> cold;
  {
    std::scoped_lock lock(blocks_mutex_, previous.blocks_mutex_);
    for (size_t b = 0; b < blocks_.size() && b < previous.blocks_.size(); ++b)
      if (!blocks_[b] && previous.blocks_[b]) cold.push_back(b);
  }
  for (size_t b : cold) block(b);
  return cold.size();
}

const FabricCounts& PortList::counts() const {
  std::call_once(counts_once_, [this] { counts_ = count_fabric(*this); });
  return counts_;
}

std::shared_ptr<const std::string> PortList::cached(const std::string& k) const {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  auto it = cache_.find(k);
  return it == cache_.end() ? nullptr : it->second;
}

void PortList::cache(const std::string& k, std::shared_ptr<const std::string> body) const {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  if (body->size() > kCacheBytes / 4) return;
  if (cache_bytes_ + body->size() > kCacheBytes) {  // full: start over (clients paging at
    cache_.clear();                                 // random cannot grow it)
    cache_bytes_ = 0;
  }
  if (cache_.emplace(k, body).second) cache_bytes_ += body->size();
}

ApiCore::~ApiCore() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [fabric, pc] : ports_) threads.push_back(std::move(pc.reloader));
  }
  for (auto& t : threads)
    if (t.joinable()) t.join();
}

std::shared_ptr<const PortList> ApiCore::load_ports(PortCache& pc, store::Store& st,
                                                    uint64_t generation,
                                                    std::shared_ptr<const PortList> previous,
                                                    bool background) {
  int64_t t0 = api_port_list_detail::steady_us();
  std::shared_ptr<PortList> list;
  try {
    list = std::make_shared<PortList>();
    list->loaded_us = now_us();
    list->ports = st.ports();
    list->disabled = st.disabled_ports();
    // Prepared before it is shared: published first, every /ports request arriving while
    // this one renders would wait on the rendering; this way they keep answering from the
    // old list.
    list->prepare(previous.get());
    if (background && previous) list->warm_blocks(*previous);
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    pc.loading = false;
    ports_loaded_.notify_all();
    throw;
  }
  int64_t took = api_port_list_detail::steady_us() - t0;
  std::shared_ptr<const PortList> replaced;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pc.loading = false;
    pc.ttl_us = options_.ports_cache_us <= 0 ? 0 : std::max(options_.ports_cache_us, 5 * took);
    if (generation == pc.generation) {  // not if invalidated meanwhile
      replaced = std::move(pc.list);
      pc.list = list;
    }
    ports_loaded_.notify_all();
  }
  // Freeing 200,000 ports takes tens of milliseconds: never while holding the mutex.
  previous.reset();
  replaced.reset();
  return list;
}

std::shared_ptr<const PortList> ApiCore::port_list(Call& c) {
  std::unique_lock<std::mutex> lock(mutex_);
  PortCache& pc = ports_[c.fabric];  // one list per fabric
  for (;;) {
    if (pc.list) {
      bool fresh = c.now_us >= pc.list->loaded_us && c.now_us - pc.list->loaded_us < pc.ttl_us;
      if (fresh || pc.loading) return pc.list;
      if (options_.ports_cache_us <= 0) break;  // never reused: load it now
      // Stale: answer from it while a background thread reloads it.
      pc.loading = true;
      // The last reload's thread may still be freeing the list it replaced (at its low
      // priority): the new thread joins it, not this request, which holds the mutex.
      pc.reloader = std::thread([this, &pc, fabric = c.fabric, generation = pc.generation,
                                 previous = pc.list, last = std::move(pc.reloader)]() mutable {
        if (last.joinable()) last.join();
        api_port_list_detail::lower_thread_priority();
        // On failure the old list is kept; the next request after its time to live retries.
        std::optional<StorePool::Lease> lease;
        try {
          lease.emplace(stores_.acquire(fabric));
        } catch (const std::exception&) {
          std::lock_guard<std::mutex> done(mutex_);
          pc.loading = false;
          ports_loaded_.notify_all();
          return;
        }
        try {  // load_ports clears pc.loading whatever happens
          load_ports(pc, **lease, generation, std::move(previous), /*background=*/true);
        } catch (const store::StoreError&) {
          lease->discard();
        } catch (const std::exception&) {
        }
      });
      return pc.list;
    }
    if (!pc.loading) break;
    ports_loaded_.wait(lock);  // the first list (or the one after a port action) is coming
  }
  pc.loading = true;
  uint64_t generation = pc.generation;
  std::shared_ptr<const PortList> previous = pc.list;
  lock.unlock();
  store::Store* st = nullptr;
  try {
    st = &c.store(stores_);
  } catch (...) {
    lock.lock();
    pc.loading = false;
    ports_loaded_.notify_all();
    throw;
  }
  return load_ports(pc, *st, generation, std::move(previous));
}

}  // namespace ibw::web
