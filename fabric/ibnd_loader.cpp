#include "fabric/ibnd_loader.h"

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fabric/diagnostics.h"
#include "fabric/port_info.h"
#include "fabric/smp_port.h"

namespace ibw::fabric {
namespace {

struct FabricDeleter {
  void operator()(ibnd_fabric_t* f) const { ibnd_destroy_fabric(f); }
};
using IbndFabric = std::unique_ptr<ibnd_fabric_t, FabricDeleter>;

NodeType to_type(int t) {
  switch (t) {
    case IB_NODE_CA:
      return NodeType::ca;
    case IB_NODE_SWITCH:
      return NodeType::sw;
    case IB_NODE_ROUTER:
      return NodeType::router;
    default:
      return NodeType::unknown;
  }
}

void fill_port(Port& out, ibnd_port_t* in, bool ext_speeds) {
  decode_port_info(out, in->info, in->ext_info, ext_speeds);
}

Fabric convert(ibnd_fabric_t* in) {
  Fabric out;
  std::unordered_map<const ibnd_node_t*, uint32_t> index;
  for (ibnd_node_t* n = in->nodes; n; n = n->next) {
    Node node;
    node.guid = n->guid;
    node.type = to_type(n->type);
    node.description = n->nodedesc;
    node.id = format_guid(n->guid);
    node.num_ports = n->numports;
    index[n] = out.add_node(std::move(node));
  }
  for (ibnd_node_t* n = in->nodes; n; n = n->next) {
    Node& node = out.node(index[n]);
    bool sw = n->type == IB_NODE_SWITCH;
    uint32_t sw_cap = (sw && n->ports && n->ports[0])
                          ? mad_get_field(n->ports[0]->info, 0, IB_PORT_CAPMASK_F)
                          : 0;
    for (int p = 0; p <= n->numports; ++p) {
      ibnd_port_t* port = n->ports ? n->ports[p] : nullptr;
      if (!port) continue;
      uint32_t cap = sw ? sw_cap : mad_get_field(port->info, 0, IB_PORT_CAPMASK_F);
      Port& mine = node.ports[p];
      fill_port(mine, port, cap & kCapHasExtSpeeds);
      mine.lid = sw ? n->smalid : port->base_lid;
    }
  }
  for (ibnd_node_t* n = in->nodes; n; n = n->next) {
    for (int p = 1; p <= n->numports; ++p) {
      ibnd_port_t* port = n->ports ? n->ports[p] : nullptr;
      if (!port || !port->remoteport || !port->remoteport->node) continue;
      auto it = index.find(port->remoteport->node);
      if (it == index.end()) continue;
      out.connect(index[n], p, it->second, port->remoteport->portnum);
    }
  }
  return out;  // names and the name index come from apply_node_names()
}

// Why the bytes are not a cache as ibnd_cache_fabric writes it; "" when they are. libibnetdisc
// trusts the file: ibnd_load_fabric (rdma-core 44) stores a port at node->ports[portnum]
// without checking portnum against the node's port count, and frees ports no node claims
// while the fabric still points to them, so a corrupt cache would corrupt the heap; and it
// indexes 2^LMC LIDs per port (an LMC over 7 never ends). Layout (little endian,
// ibnetdisc_cache.c): a 28-byte header (magic, version, node count, port count, from-node
// GUID, max hops); per node 207 bytes (GUID at 68, port count at 77, number of port keys at
// 206) and 9 bytes per port key (port GUID, port number); per port 95 bytes (GUID, number at
// 8, LMC at 12, node GUID at 77, remote flag at 85, remote GUID at 86, number at 94).
// Dangling references of a partial discovery are repaired in `b` instead (*repaired = true).
std::string cache_problem(std::string& b, bool* repaired) {
  auto u8 = [&](size_t at) -> int { return static_cast<uint8_t>(b[at]); };
  auto u64 = [&](size_t at, int bytes = 8) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[at + i]);
    return v;
  };
  constexpr size_t kHeader = 28, kNode = 207, kKey = 9, kPort = 95;
  if (b.size() < kHeader || u64(0, 4) != 0x8FE7832B || u64(4, 4) != 1)
    return "no cache header (magic, version 1)";
  uint64_t nodes = u64(8, 4), ports = u64(12, 4);
  using Key = std::pair<uint64_t, int>;  // port GUID, port number
  std::map<uint64_t, int> num_ports;     // node GUID -> its port count
  std::map<Key, uint64_t> claimed;       // port -> the node listing it
  std::vector<size_t> node_at;           // where each node record starts
  size_t at = kHeader;
  for (uint64_t i = 0; i < nodes; ++i) {
    if (b.size() - at < kNode) return "truncated in node " + std::to_string(i);
    node_at.push_back(at);
    uint64_t guid = u64(at + 68);
    int count = u8(at + 77), keys = u8(at + 206);
    at += kNode;
    if (!num_ports.emplace(guid, count).second) return "node " + format_guid(guid) + " twice";
    if (b.size() - at < keys * kKey) return "truncated in node " + std::to_string(i);
    for (int k = 0; k < keys; ++k, at += kKey) {
      Key key{u64(at), u8(at + 8)};
      if (key.second > count || !claimed.emplace(key, guid).second)
        return "node " + format_guid(guid) + ": bad or repeated port " + std::to_string(key.second);
    }
  }
  const size_t ports_at = at;
  std::set<Key> listed;
  for (uint64_t i = 0; i < ports; ++i, at += kPort) {
    if (b.size() - at < kPort) return "truncated in port " + std::to_string(i);
    Key key{u64(at), u8(at + 8)};
    auto owner = claimed.find(key);
    if (owner == claimed.end() || owner->second != u64(at + 77) || !listed.insert(key).second)
      return "port " + std::to_string(i) + " is not listed once by its node";
    if (u8(at + 12) > 7) return "port " + std::to_string(i) + ": LMC above 7";
  }
  if (!num_ports.count(u64(16))) return "the from-node is not in the file";
  // ibnd_cache_fabric itself writes dangling references after a partial discovery (a port whose
  // query timed out is in its node's list but not among the ports), and ibnd_load_fabric then
  // refuses the whole file. Keep what was discovered: drop the node's key for a port the file
  // does not hold, and cut a link to such a port.
  std::string out = b.substr(0, kHeader);
  bool changed = false;
  for (size_t n : node_at) {
    size_t keys_at = n + kNode;
    std::string kept;
    for (int k = 0; k < u8(n + 206); ++k) {
      size_t key_at = keys_at + k * kKey;
      if (listed.count({u64(key_at), u8(key_at + 8)}))
        kept += b.substr(key_at, kKey);
      else
        changed = true;
    }
    out += b.substr(n, kNode - 1);
    out += static_cast<char>(kept.size() / kKey);
    out += kept;
  }
  for (uint64_t i = 0; i < ports; ++i) {
    size_t p = ports_at + i * kPort;
    std::string port = b.substr(p, kPort);
    if (u8(p + 85) && !listed.count({u64(p + 86), u8(p + 94)})) {
      port.replace(85, 10, std::string(10, '\0'));  // no remote port: flag, GUID, number
      changed = true;
    }
    out += port;
  }
  if (changed) {
    out += b.substr(at);
    b = std::move(out);
    *repaired = true;
  }
  return "";
}

}  // namespace

namespace ibnd_loader_detail {

IbndFabric discover(MadLocks& locks, const LiveDiscoveryOptions& options) {
  ibnd_config_t config{};
  config.timeout_ms = options.timeout_ms;
  config.retries = options.retries;
  std::string ca = options.ca;
  std::lock_guard<std::mutex> smp(locks.smp);
  IbndFabric f(
      ibnd_discover_fabric(ca.empty() ? nullptr : ca.data(), options.ca_port, nullptr, &config));
  if (!f) {
    throw std::runtime_error("live discovery failed on CA " + (ca.empty() ? "(default)" : ca) +
                             " port " + std::to_string(options.ca_port) +
                             ": is the port up and umad accessible?");
  }
  return f;
}

}  // namespace ibnd_loader_detail

Fabric discover_live(MadLocks& locks, const LiveDiscoveryOptions& options) {
  return convert(ibnd_loader_detail::discover(locks, options).get());
}

void discover_live_to_cache(MadLocks& locks, const LiveDiscoveryOptions& options,
                            const std::string& cache_path) {
  IbndFabric f = ibnd_loader_detail::discover(locks, options);
  if (ibnd_cache_fabric(f.get(), cache_path.c_str(), 0) != 0)
    throw std::runtime_error("cannot write the discovery cache " + cache_path);
}

Fabric load_ibnd_cache(const std::string& path) {
  std::string bytes = read_file(path);
  bool repaired = false;
  if (std::string why = cache_problem(bytes, &repaired); !why.empty())
    throw InputError({{path, 0, "", "not a valid ibnetdiscover cache file: " + why}});
  std::string load_path = path;
  struct Remove {
    std::string file;
    ~Remove() {
      if (!file.empty()) std::remove(file.c_str());
    }
  } repaired_copy;
  if (repaired) {  // libibnetdisc reads files only: give it the repaired bytes as one
    char tmpl[] = "/tmp/ibwarden-cache.XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) throw std::runtime_error("cannot create a file for the repaired cache of " + path);
    repaired_copy.file = load_path = tmpl;
    bool written = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    ::close(fd);
    if (!written) throw std::runtime_error("cannot write the repaired cache of " + path);
  }
  IbndFabric f(ibnd_load_fabric(load_path.c_str(), 0));
  if (!f) throw InputError({{path, 0, "", "not a readable ibnetdiscover cache file"}});
  return convert(f.get());
}

}  // namespace ibw::fabric
