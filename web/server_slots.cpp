// The connection caps of the Beast server (web/server.h, server_core.h): admission of a new
// connection (per address, in total, eviction of the longest-idle one, the reserve slots),
// its release, and the event-stream caps (in total and per token).
#include <boost/asio/post.hpp>

#include "web/server_core.h"

namespace ibw::web::server_detail {

void Core::count(Slot& slot, bool reserve) {
  slot.reserve = reserve;
  slot.counted = true;
  if (reserve) {
    ++reserved;
  } else {
    ++regular;
    ++per_address[slot.address];
  }
}

void Core::uncount(Slot& slot) {
  if (!slot.counted) return;
  slot.counted = false;
  if (slot.reserve) {
    --reserved;
    return;
  }
  --regular;
  auto it = per_address.find(slot.address);
  if (it != per_address.end() && --it->second == 0) per_address.erase(it);
}

std::shared_ptr<SessionBase> Core::claim_idle(bool reserve, const std::string* address) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    Entry* best = nullptr;
    int64_t best_since = 0;
    for (auto& [ptr, e] : sessions) {
      Slot& s = *e.slot;
      if (!s.counted || s.reserve != reserve || (address && s.address != *address)) continue;
      int64_t since = s.idle_since.load();
      if (since > 0 && (!best || since < best_since)) best = &e, best_since = since;
    }
    if (!best) return nullptr;
    if (!best->slot->idle_since.compare_exchange_strong(best_since, Slot::kClaimed))
      continue;  // it just became busy: look again
    uncount(*best->slot);
    stats.add(GuardStats::dropped_evicted);
    if (auto s = best->session.lock()) return s;
    return nullptr;  // ending anyway
  }
  return nullptr;
}

bool Core::admit(Slot& slot, std::shared_ptr<SessionBase>& victim) {
  auto mine = per_address.find(slot.address);
  bool address_full =
      mine != per_address.end() && mine->second >= options.max_connections_per_address;
  bool total_full = regular >= options.max_connections;
  if (!address_full && !total_full) return count(slot, false), true;
  // A full cap: the longest-idle connection (of this address when its cap is the one hit)
  // makes room. A client that is not sending a request holds no slot against new ones.
  if ((victim = claim_idle(false, address_full ? &slot.address : nullptr)))
    return count(slot, false), true;
  if (reserved < options.reserve_connections) return count(slot, true), true;
  if ((victim = claim_idle(true, nullptr))) return count(slot, true), true;
  stats.add(address_full ? GuardStats::refused_per_address : GuardStats::refused_total);
  return false;
}

bool Core::add(SessionBase* s, const std::shared_ptr<SessionBase>& p,
               const std::shared_ptr<Slot>& slot) {
  std::shared_ptr<SessionBase> victim;
  bool admitted = false;
  bool address_full = false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (stopping) return false;
    admitted = admit(*slot, victim);
    if (admitted) sessions.emplace(s, Entry{p, slot});
    address_full = per_address.count(slot->address) &&
                   per_address[slot->address] >= options.max_connections_per_address;
    stats.connections = static_cast<int64_t>(sessions.size());
  }
  if (victim) {
    net::post(victim->executor(), [victim] { victim->shutdown(); });
    noisy("web: closed an idle connection to make room for one from " + slot->address +
          (address_full
               ? " (web.max_connections_per_address " +
                     std::to_string(options.max_connections_per_address) + ")"
               : " (web.max_connections " + std::to_string(options.max_connections) + ")"));
  }
  if (!admitted)
    noisy("web: refused a connection from " + slot->address + ": " +
          (address_full ? "web.max_connections_per_address (" +
                              std::to_string(options.max_connections_per_address) + ")"
                        : "web.max_connections (" + std::to_string(options.max_connections) + ")") +
          " reached and no idle connection to close");
  else if (slot->reserve)
    noisy("web: connection from " + slot->address +
          " on a reserve slot (caps reached): health and metrics only");
  return admitted;
}

void Core::remove(SessionBase* s) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = sessions.find(s);
  if (it == sessions.end()) return;
  uncount(*it->second.slot);
  sessions.erase(it);
  stats.connections = static_cast<int64_t>(sessions.size());
  if (sessions.empty()) drained.notify_all();
}

void Core::release(SessionBase* s) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = sessions.find(s);
  if (it != sessions.end()) uncount(*it->second.slot);
}

std::string Core::admit_stream(Slot& slot, const std::string& key) {
  std::string refusal;
  {
    std::lock_guard<std::mutex> lock(mutex);
    size_t& mine = streams_by_key[key];
    if (streams >= options.max_streams) {
      stats.add(GuardStats::streams_total);
      refusal = "too many event streams (web.max_streams " + std::to_string(options.max_streams) +
                "); retry later";
    } else if (mine >= options.max_streams_per_token) {
      stats.add(GuardStats::streams_per_token);
      refusal = "too many event streams for this token (web.max_streams_per_token " +
                std::to_string(options.max_streams_per_token) + "); close one";
    } else {
      ++mine, ++streams;
      slot.stream_key = key;
    }
    if (mine == 0) streams_by_key.erase(key);
    stats.streams = static_cast<int64_t>(streams);
  }
  if (!refusal.empty()) noisy("web: event stream refused for " + slot.address + ": " + refusal);
  return refusal;
}

void Core::release_stream(Slot& slot) {
  std::lock_guard<std::mutex> lock(mutex);
  if (slot.stream_key.empty()) return;
  auto it = streams_by_key.find(slot.stream_key);
  if (it != streams_by_key.end() && --it->second == 0) streams_by_key.erase(it);
  --streams;
  slot.stream_key.clear();
  stats.streams = static_cast<int64_t>(streams);
}

}  // namespace ibw::web::server_detail
