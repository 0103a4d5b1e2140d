// Many fabrics in one API (web/api.h): GET /fabrics, ?fabric= on every route (which fabric's
// rows a request reads), /health of another fabric from its lease row, and the 409 of routes
// about this daemon's live state when asked about a fabric another instance watches.
#include "store/record_json.h"
#include "web/api_core.h"

namespace ibw::web {
namespace api_fabrics_detail {

using nlohmann::ordered_json;

SourceStatus status_named(std::string_view s) {
  if (s == "ok") return SourceStatus::ok;
  if (s == "degraded") return SourceStatus::degraded;
  if (s == "down") return SourceStatus::down;
  return SourceStatus::disabled;
}

// The holder's source health as its lease row carries it (sources_json text); entries that
// are not objects with a string name are skipped, bad text reads as none.
std::vector<SourceHealth> lease_sources(const std::string& text) {
  std::vector<SourceHealth> out;
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) return out;
  for (const auto& e : j) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) continue;
    SourceHealth s;
    s.name = e["name"].get<std::string>();
    if (e.contains("status") && e["status"].is_string())
      s.status = status_named(e["status"].get<std::string>());
    if (e.contains("detail") && e["detail"].is_string()) s.detail = e["detail"].get<std::string>();
    if (e.contains("last_ok") && e["last_ok"].is_string())
      s.last_ok_us = parse_utc_time(e["last_ok"].get<std::string>()).value_or(0);
    out.push_back(std::move(s));
  }
  return out;
}

ordered_json sources_array(const std::vector<SourceHealth>& sources) {
  ordered_json a = ordered_json::array();
  for (const auto& s : sources)
    a.push_back({{"name", s.name},
                 {"status", source_status_name(s.status)},
                 {"detail", s.detail},
                 {"last_ok", store::iso_time(s.last_ok_us)}});
  return a;
}

// The lease's holder, or null when no lease row (SQLite, HA off) or it was never taken. An
// expired lease keeps its last holder: lease_expires (in the past) says nobody acts now.
ordered_json leader_of(const store::FabricEntry& f) {
  if (!f.lease || f.lease->holder.empty()) return nullptr;
  return f.lease->holder;
}

ordered_json expires_of(const store::FabricEntry& f) {
  if (!f.lease || f.lease->expires_us <= 0) return nullptr;
  return store::iso_time(f.lease->expires_us);
}

}  // namespace api_fabrics_detail

std::string sources_json(const std::vector<SourceHealth>& sources) {
  return api_fabrics_detail::sources_array(sources).dump();
}

std::vector<SourceHealth> lease_source_health(const std::string& text) {
  return api_fabrics_detail::lease_sources(text);
}

void ApiCore::resolve_fabric(Call& c) {
  auto name = c.query.get("fabric");
  if (!name || name->empty() || *name == backend_.fabric()) return;  // the own fabric
  for (auto& f : backend_.fabrics())
    if (f.name == *name) {
      c.fabric = *name;
      c.other = std::move(f);
      return;
    }
  throw ApiError(404, "no fabric " + *name + " in the store");
}

std::string ApiCore::fabric_name(const Call& c) {
  return c.fabric.empty() ? backend_.fabric() : c.fabric;
}

void ApiCore::only_own_fabric(const Call& c) {
  if (!c.other) return;
  std::string leader = c.other->lease ? c.other->lease->holder : "";
  throw ApiError(409, "fabric " + c.fabric + " is watched by " +
                          (leader.empty() ? std::string("no instance holding its lease") : leader) +
                          "; ask it (this instance watches " + backend_.fabric() + ")");
}

Response ApiCore::other_health(Call& c) {
  using namespace api_fabrics_detail;
  const store::FabricEntry& f = *c.other;
  std::vector<SourceHealth> sources =
      f.lease ? lease_sources(f.lease->sources) : std::vector<SourceHealth>{};
  // Nobody holds a live lease: nothing watches the fabric.
  bool watched = f.lease && !f.lease->holder.empty() && f.lease->expires_us > f.lease->now_us;
  std::string status = watched ? "ok" : "down";
  ordered_json by_name = health_sources(sources, &status);
  ordered_json st = health_store(c, &status);
  ordered_json j;
  j["status"] = status;
  j["time"] = store::iso_time(c.now_us);
  j["fabric"] = f.name;
  j["leader"] = leader_of(f);
  j["lease_expires"] = expires_of(f);
  j["watched"] = watched;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    j["read_only"] = read_only_;
  }
  j["sources"] = by_name;
  j["store"] = st;
  return json_response(200, j);
}

nlohmann::ordered_json ApiCore::fabrics_json(const std::vector<store::FabricEntry>& all) {
  using namespace api_fabrics_detail;
  std::string own = backend_.fabric();
  ordered_json out = ordered_json::array();
  bool own_listed = false;
  auto entry = [&](const store::FabricEntry& f) {
    ordered_json e;
    e["name"] = f.name;
    e["leader"] = leader_of(f);
    e["lease_expires"] = expires_of(f);
    if (f.name == own)  // live, as /health shows it
      e["sources"] = sources_array(backend_.health().sources);
    else
      e["sources"] =
          f.lease ? sources_array(lease_sources(f.lease->sources)) : ordered_json::array();
    out.push_back(std::move(e));
  };
  for (const auto& f : all) {
    own_listed = own_listed || f.name == own;
    entry(f);
  }
  if (!own_listed) entry(store::FabricEntry{own, std::nullopt});  // nothing stored yet
  return out;
}

// GET /fabrics: [{name, leader, lease_expires, sources}] for every fabric in the store.
Response ApiCore::get_fabrics(Call& c) {
  (void)c;
  return json_response(200, fabrics_json(backend_.fabrics()));
}

}  // namespace ibw::web
