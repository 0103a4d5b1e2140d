// ibw-labgen: writes a generated fat-tree lab (ibsim net file, ibnetdiscover text, plans in
// CSV/YAML/NDT, node-name-map, expected findings) into a directory.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/args.h"
#include "tests/lab/fat_tree.h"

namespace {

constexpr const char* kHelp = R"(usage: ibw-labgen --out DIR [topology options] [mistakes] [outputs]

Topology: --tiers 2|3 (default 2), --leaves N, --spines N, --hosts-per-leaf N,
          --links-per-pair N, --k K (3-tier radix), --spare-ports N, --opaque-names
Mistakes: --swap N --drop N --misplug N --extra N --degrade N --unknown N
          --missing-node N --partition --seed N
Outputs:  always plan.csv plan.yaml plan.ndt node-name-map expected.json;
          net (ibsim) unless --no-net; topology.txt (ibnetdiscover text) with --ibnetdiscover
)";

void write(const std::filesystem::path& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out || !(out << data)) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

int main(int argc, char** argv) {
  using ibw::cli::Args;
  using ibw::cli::OptionSpec;
  std::vector<OptionSpec> specs;
  for (const char* name :
       {"out", "tiers", "leaves", "spines", "hosts-per-leaf", "links-per-pair", "k", "spare-ports",
        "swap", "drop", "misplug", "extra", "degrade", "unknown", "missing-node", "seed"})
    specs.push_back({name});
  for (const char* name : {"opaque-names", "partition", "no-net", "ibnetdiscover", "help"})
    specs.push_back({name, false});
  try {
    Args args(specs, argc, argv, 1);
    if (args.has("help") || !args.has("out")) {
      std::cout << kHelp;
      return args.has("help") ? 0 : 2;
    }
    ibw::lab::FatTreeSpec spec;
    spec.tiers = args.get_int("tiers", 2, 3).value_or(2);
    spec.leaves = args.get_int("leaves", 1, 100000).value_or(spec.leaves);
    spec.spines = args.get_int("spines", 1, 100000).value_or(spec.spines);
    spec.hosts_per_leaf = args.get_int("hosts-per-leaf", 1, 250).value_or(spec.hosts_per_leaf);
    spec.links_per_pair = args.get_int("links-per-pair", 1, 64).value_or(spec.links_per_pair);
    spec.k = args.get_int("k", 2, 128).value_or(spec.k);
    spec.spare_ports = args.get_int("spare-ports", 0, 64).value_or(spec.spare_ports);
    spec.opaque_names = args.has("opaque-names");
    ibw::lab::Mistakes m;
    m.swap = args.get_int("swap", 0, 1000).value_or(0);
    m.drop = args.get_int("drop", 0, 1000).value_or(0);
    m.misplug = args.get_int("misplug", 0, 1000).value_or(0);
    m.extra = args.get_int("extra", 0, 1000).value_or(0);
    m.degrade = args.get_int("degrade", 0, 1000).value_or(0);
    m.unknown = args.get_int("unknown", 0, 1000).value_or(0);
    m.missing_node = args.get_int("missing-node", 0, 1000).value_or(0);
    m.partition = args.has("partition");
    m.seed = static_cast<uint32_t>(args.get_int("seed", 0, 1 << 30).value_or(1));

    auto lab = ibw::lab::make_fat_tree(spec);
    ibw::lab::inject_mistakes(lab, m);
    std::filesystem::path dir = *args.get("out");
    std::filesystem::create_directories(dir);
    if (!args.has("no-net")) write(dir / "net", ibw::lab::to_ibsim_net(lab));
    if (args.has("ibnetdiscover")) write(dir / "topology.txt", ibw::lab::to_ibnetdiscover(lab));
    write(dir / "plan.csv", ibw::lab::plan_csv(lab));
    write(dir / "plan.yaml", ibw::lab::plan_yaml(lab));
    write(dir / "plan.ndt", ibw::lab::plan_ndt(lab));
    write(dir / "node-name-map", ibw::lab::node_name_map(lab));
    write(dir / "expected.json", ibw::lab::expected_json(lab));
    size_t switches = 0;
    for (const auto& n : lab.nodes) switches += n.is_switch;
    std::cerr << "ibw-labgen: " << lab.nodes.size() << " nodes (" << switches << " switches), "
              << lab.plan.size() << " planned cables, " << lab.expected.size()
              << " injected mistake(s) -> " << dir.string() << "\n";
    return 0;
  } catch (const ibw::cli::UsageError& e) {
    std::cerr << "ibw-labgen: " << e.what() << "\n" << kHelp;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ibw-labgen: error: " << e.what() << "\n";
    return 2;
  }
}
