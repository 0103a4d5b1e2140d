#include "fabric/topology.h"

#include <fstream>

#include "fabric/diagnostics.h"
#include "fabric/ibnd_loader.h"
#include "fabric/ibnetdiscover_parser.h"

namespace ibw::fabric {

Fabric load_topology_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return load_ibnetdiscover_file(path);  // read_file() reports the error
  char head[64] = {};
  in.read(head, sizeof head);
  auto got = in.gcount();
  for (std::streamsize i = 0; i < got; ++i) {
    if (head[i] == '\0') return load_ibnd_cache(path);
  }
  return load_ibnetdiscover_file(path);
}

Fabric merge_fabrics(std::vector<Fabric> parts) {
  if (parts.size() == 1) return std::move(parts.front());
  Fabric out;
  for (Fabric& part : parts) {
    std::vector<uint32_t> map(part.size());
    for (uint32_t i = 0; i < part.size(); ++i) {
      const Node& n = part.node(i);
      uint32_t existing = n.guid ? out.find_guid(n.guid) : kNoNode;
      if (existing == kNoNode) {
        Node copy = n;
        for (Port& p : copy.ports) p.peer_node = kNoNode;
        map[i] = out.add_node(std::move(copy));
      } else {
        map[i] = existing;
      }
    }
    for (uint32_t i = 0; i < part.size(); ++i) {
      for (const Port& p : part.node(i).ports) {
        if (p.has_peer() && i < p.peer_node)
          out.connect(map[i], p.number, map[p.peer_node], p.peer_port);
        else if (p.has_peer() && i == p.peer_node && p.number < p.peer_port)
          out.connect(map[i], p.number, map[i], p.peer_port);
      }
    }
  }
  return out;
}

}  // namespace ibw::fabric
