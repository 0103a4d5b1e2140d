// The lab generator's k=4 3-tier fat tree (tests/lab/fat_tree.h) as a parsed fabric with its
// names: 4 pods of 2 leaves + 2 spines, 4 cores, 16 hosts. For the route model's unit tests.
#pragma once

#include "fabric/ibnetdiscover_parser.h"
#include "fabric/node_name_map.h"
#include "tests/lab/fat_tree.h"

namespace ibw::test_fabric {

inline fabric::Fabric k4_fat_tree() {
  lab::FatTreeSpec spec;
  spec.tiers = 3, spec.k = 4, spec.spare_ports = 0;
  auto made = lab::make_fat_tree(spec);
  fabric::Fabric f = fabric::parse_ibnetdiscover(lab::to_ibnetdiscover(made), "k4.txt");
  auto names = fabric::parse_node_name_map(lab::node_name_map(made), "map");
  fabric::apply_node_names(f, &names);
  return f;
}

}  // namespace ibw::test_fabric
