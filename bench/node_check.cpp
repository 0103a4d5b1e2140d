// ibw-bench-node_check: the store a running daemon writes for a generated fabric, for timing
// `ibwarden check --nodes` over 1,024 hosts (issue 33) without the daemon's discovery:
//   ibw-bench-node_check K DIR   writes DIR/ibwarden.db (the ports of the k-ary 3-tier fat
//                                tree, k=16: 1,024 hosts, 320 switches, as PortTable stores
//                                them: Active 4x NDR) with two bad links, one leaf uplink
//                                Down and one with SymbolErrorCounter rising, and
//                                DIR/ibwarden.yaml naming it
// bench/bench_node_check.sh runs it and times the command.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "fabric/ibnetdiscover_parser.h"
#include "fabric/node_name_map.h"
#include "ingest/counters.h"
#include "store/store.h"
#include "tests/lab/fat_tree.h"

using namespace ibw;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: ibw-bench-node_check K DIR\n";
    return 2;
  }
  lab::FatTreeSpec spec;
  spec.tiers = 3;
  spec.k = std::stoi(argv[1]);
  spec.spare_ports = 0;
  std::string dir = argv[2];
  fabric::Fabric fab =
      fabric::parse_ibnetdiscover(lab::to_ibnetdiscover(lab::make_fat_tree(spec)), "generated");
  fabric::apply_node_names(fab, nullptr);
  store::WriteBatch batch;
  int leaf_uplinks = 0, hosts = 0;
  for (uint32_t n = 0; n < fab.size(); ++n) {
    const fabric::Node& node = fab.node(n);
    hosts += node.type == fabric::NodeType::ca;
    for (int p = 1; p <= node.num_ports; ++p) {
      const fabric::Port* port = node.port(p);
      if (!port || !port->present) continue;
      store::PortRecord r;
      r.node_guid = node.guid;
      r.port = p;
      r.node = node.name;
      r.lid = node.type == fabric::NodeType::sw ? node.ports[0].lid : port->lid;
      if (!r.lid) r.lid = port->lid;
      r.state = 4, r.phys_state = 5, r.width = 4, r.speed = "NDR";
      if (port->has_peer()) {
        const fabric::Node& peer = fab.node(port->peer_node);
        r.peer_guid = peer.guid, r.peer_node = peer.name, r.peer_port = port->peer_port;
        // The first two leaf uplinks (a leaf: a switch with hosts): one Down, one rising.
        bool uplink = node.name.rfind("leaf", 0) == 0 && peer.type == fabric::NodeType::sw;
        if (uplink && leaf_uplinks == 0) r.state = 1, r.phys_state = 2;
        if (uplink && leaf_uplinks == 1) {
          auto i = static_cast<size_t>(ingest::Counter::SymbolErrorCounter);
          r.deltas[i] = 40, r.deltas_valid |= 1u << i;
        }
        leaf_uplinks += uplink;
      }
      batch.ports.push_back(std::move(r));
    }
  }
  auto db = store::Store::open(dir + "/ibwarden.db");
  db->write(batch);
  std::ofstream(dir + "/ibwarden.yaml") << "store:\n  path: " << dir << "/ibwarden.db\n";
  std::printf("k=%d: %d hosts, %zu ports stored\n", spec.k, hosts, batch.ports.size());
  return 0;
}
