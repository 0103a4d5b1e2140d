// GET /ports (web/api.h), and the port lookup of /ports/{node}/{port} (ApiCore::find_port).
#include <algorithm>
#include <cctype>
#include <functional>
#include <set>

#include "fabric/model.h"
#include "fabric/text_util.h"
#include "store/record_json.h"
#include "web/api_core.h"
#include "web/compress.h"

namespace ibw::web {
namespace api_ports_detail {

using nlohmann::ordered_json;

// "0x" and 1 to 16 hex digits (any case) -> GUID; 0 when not of that form.
uint64_t parse_guid(std::string_view s) {
  if (s.size() < 3 || s.size() > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return 0;
  return fabric::text::to_int<uint64_t>(s.substr(2), 16).value_or(0);
}

bool node_matches(const store::PortRecord& p, const std::string& node, uint64_t guid) {
  return p.node == node || (guid != 0 && p.node_guid == guid);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Port state filter: down, init, armed, active (PortState) or disabled (PhysState Disabled,
// or disabled by ibwarden: a simulator may keep reporting such a port up), as a test of
// PortList::flags; throws 400 for an unknown state.
std::function<bool(uint8_t)> state_test(const std::string& state) {
  static const char* kNames[] = {"", "down", "init", "armed", "active"};
  if (state == "disabled")
    return [](uint8_t f) { return (f & (PortList::kPhysDisabled | PortList::kOurs)) != 0; };
  for (int i = 1; i <= 4; ++i)
    if (state == kNames[i]) return [i](uint8_t f) { return (f & PortList::kStateMask) == i; };
  throw ApiError(400, "state: must be down, init, armed, active or disabled");
}

// The gzip of a /ports body: `head` (up to the ports' '['), the ports of `page` (indexes into
// the list, ascending) separated by ',', then "]}". Runs of whole blocks are the list's
// precompressed blocks (PortList::block); the rest is compressed here.
std::optional<std::string> gzip_page(const PortList& list, const std::string& head,
                                     const std::vector<uint32_t>& page) {
  constexpr size_t kN = PortList::kBlockPorts;
  GzipJoiner z;
  z.text(head);
  for (size_t k = 0; k < page.size(); ++k) {
    uint32_t i = page[k];
    if (k > 0 && i % kN == 0 && k + kN <= page.size() && page[k + kN - 1] == i + kN - 1)
      if (auto block = list.block(i / kN)) {
        z.chunk(*block);
        k += kN - 1;
        continue;
      }
    if (k) z.text(",");
    z.text(*list.json[i]);
  }
  z.text("]}");
  return z.finish();
}

}  // namespace api_ports_detail

store::PortRecord ApiCore::find_port(Call& c, const PortList& list) {
  using namespace api_ports_detail;
  const std::string& node = c.params.at(0);
  auto port = fabric::text::to_int<int>(c.params.at(1));
  if (!port || *port < 0 || *port > 255)
    throw ApiError(400, "port: must be a port number from 0 to 255");
  uint64_t guid = parse_guid(node);
  std::set<uint64_t> named;
  const store::PortRecord* found = nullptr;
  std::vector<uint32_t> candidates;  // from the indexes, not a walk over 200,000 ports
  if (auto it = list.by_name.find(node); it != list.by_name.end()) candidates = it->second;
  if (auto it = list.by_guid.find(guid); guid && it != list.by_guid.end())
    candidates.insert(candidates.end(), it->second.begin(), it->second.end());
  for (uint32_t i : candidates) {
    const store::PortRecord& p = list.ports[i];
    if (!node_matches(p, node, guid)) continue;
    if (p.node == node) named.insert(p.node_guid);
    if (p.port == *port) found = &p;
  }
  if (named.size() > 1)
    throw ApiError(400, "node: \"" + node + "\" names " + std::to_string(named.size()) +
                            " nodes; use the node's 0xGUID");
  if (!found)
    throw ApiError(404, "no port " + node + "/" + std::to_string(*port) + " in the store");
  return *found;
}
Response ApiCore::get_ports(Call& c) {
  using namespace api_ports_detail;
  auto node = c.query.get("node");
  auto state = c.query.get("state");
  std::function<bool(uint8_t)> state_ok;
  if (state) state_ok = state_test(*state = lower(*state));  // 400 for an unknown state
  auto errors = c.query.boolean("has_errors");
  int64_t limit = c.query.integer("limit", 1, 5000, 1000);
  int64_t offset = c.query.integer("offset", 0, INT32_MAX, 0);
  bool gz = accepts_gzip(c.request.header("accept-encoding"));
  auto list = port_list(c);
  // The same query on the same list is the same answer: dashboards showing one page, and
  // their refreshes, are answered from the list's cache.
  std::string key = (node ? "n" + *node : "-") + '\n' + (state ? *state : "-") + '\n' +
                    (errors ? (*errors ? "1" : "0") : "-") + '\n' + std::to_string(limit) + '\n' +
                    std::to_string(offset) + (gz ? "\ngz" : "");
  Response r;
  auto body = list->cached(key);
  if (!body) {
    // Candidates: a node's ports from the indexes (by name and by GUID: both match), else all.
    std::vector<uint32_t> nodes;
    if (node) {
      if (auto it = list->by_name.find(*node); it != list->by_name.end()) nodes = it->second;
      if (uint64_t guid = parse_guid(*node))
        if (auto it = list->by_guid.find(guid); it != list->by_guid.end()) {
          nodes.insert(nodes.end(), it->second.begin(), it->second.end());
          std::sort(nodes.begin(), nodes.end());
          nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
        }
    }
    size_t n = node ? nodes.size() : list->ports.size();
    std::vector<uint32_t> page;
    size_t bytes = 0;
    int64_t total = 0;
    bool all = !node && !state && !errors;  // a plain page: no walk over the list
    for (size_t k = all ? std::min<size_t>(n, static_cast<size_t>(offset)) : 0; k < n; ++k) {
      if (all && static_cast<int64_t>(page.size()) >= limit) break;
      uint32_t i = node ? nodes[k] : static_cast<uint32_t>(k);
      uint8_t f = list->flags[i];
      if (state_ok && !state_ok(f)) continue;
      if (errors && ((f & PortList::kErrors) != 0) != *errors) continue;
      if (!all && (total++ < offset || static_cast<int64_t>(page.size()) >= limit)) continue;
      page.push_back(i);
      bytes += list->json[i]->size() + 1;
    }
    if (all) total = static_cast<int64_t>(n);
    int64_t next = offset + static_cast<int64_t>(page.size());
    ordered_json head;
    head["total"] = total;
    head["offset"] = offset;
    head["limit"] = limit;
    head["next_offset"] = next < total ? ordered_json(next) : ordered_json(nullptr);
    std::string out = dump_json(head);
    out.pop_back();  // '}': the ports follow
    out += ",\"ports\":[";
    size_t size = out.size() + bytes + (page.empty() ? 2 : 1);  // the plain body's length
    std::optional<std::string> z;
    if (gz && size >= kMinGzipBytes) z = gzip_page(*list, out, page);
    if (z) {
      out = "gz" + std::move(*z);  // marked, for the cache
    } else {
      out.reserve(size);
      for (size_t k = 0; k < page.size(); ++k) {
        if (k) out += ',';
        out += *list->json[page[k]];
      }
      out += "]}";
    }
    body = std::make_shared<const std::string>(std::move(out));
    list->cache(key, body);
  }
  if (body->compare(0, 2, "gz") == 0) {
    r.body.assign(*body, 2);
    r.headers.emplace_back("Content-Encoding", "gzip");
    r.headers.emplace_back("Vary", "Accept-Encoding");
  } else {
    r.body = *body;
  }
  return r;
}

}  // namespace ibw::web
