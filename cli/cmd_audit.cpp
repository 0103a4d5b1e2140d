// `ibwarden audit`: plan vs discovered fabric.
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "fabric/audit_report.h"
#include "fabric/diagnostics.h"
#include "fabric/ibnd_loader.h"
#include "fabric/node_name_map.h"
#include "fabric/topology.h"

namespace ibw::cli {
namespace cmd_audit_detail {

constexpr const char* kHelp =
    R"(usage: ibwarden audit --plan FILE (--topology FILE | --live [--ca NAME] [--ca-port N])
                      [--node-name-map FILE] [--format text|json|csv] [--output FILE]

Compares the cabling plan with the fabric and classifies every difference: missing,
miswired, swapped, unexpected, degraded, missing_node, unknown_node, partition.

  --plan FILE           cabling plan: CSV (cable_id,a_node,a_port,b_node,b_port[,...]),
                        YAML (cables: [...]) or UFM NDT (#StartDevice,...); detected by content
  --topology FILE       ibnetdiscover output or an ibnetdiscover --cache file; repeat it to
                        merge views of several separate networks
  --live                discover the fabric now over SMPs (libibnetdisc)
  --ca NAME             local CA for --live (default: first)
  --ca-port N           local port for --live (default: first active)
  --node-name-map FILE  0xGUID "name" lines; names are matched against the plan
  --format FMT          text (default), json or csv
  --output FILE         write the report there instead of stdout

Exit status: 0 no findings, 1 findings, 2 usage or input error.
)";

int fail(const std::string& msg) {
  std::cerr << "ibwarden audit: error: " << msg << "\n";
  return 2;
}

// Regular files are replaced atomically (temp file + rename) so a reader never sees half a
// report; devices and pipes (/dev/stdout, /dev/null, FIFOs) are written directly.
bool write_output(const std::string& path, const std::string& data, std::string* err) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    std::ofstream out(path, std::ios::binary);
    if (!out || !(out << data) || !out.flush()) {
      *err = "cannot write " + path;
      return false;
    }
    return true;
  }
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !(out << data) || !out.flush()) {
      *err = "cannot write " + tmp;
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    *err = "cannot rename " + tmp + " to " + path;
    return false;
  }
  return true;
}

}  // namespace cmd_audit_detail

using namespace cmd_audit_detail;

int cmd_audit(int argc, char** argv, int first) {
  using namespace ibw::fabric;
  std::vector<OptionSpec> specs = {
      {"plan"},       {"topology", true, true}, {"live", false}, {"ca"},
      {"ca-port"},    {"node-name-map"},        {"format"},      {"output"},
      {"help", false}};
  try {
    Args args(specs, argc, argv, first);
    if (args.has("help")) {
      std::cout << kHelp;
      return 0;
    }
    if (!args.has("plan")) throw UsageError("--plan is required");
    bool live = args.has("live");
    auto topologies = args.all("topology");
    if (live == !topologies.empty()) throw UsageError("give exactly one of --topology or --live");
    if (!live && (args.has("ca") || args.has("ca-port")))
      throw UsageError("--ca and --ca-port go with --live");
    std::string format = args.get("format").value_or("text");
    if (format != "text" && format != "json" && format != "csv")
      throw UsageError("--format must be text, json or csv, got \"" + format + "\"");

    // The big structures live on the heap and are deliberately not freed: the process exits
    // right after, and freeing ~1M small objects of a 65k-endpoint fabric costs more than
    // the audit itself (the same trade-off as compilers' -disable-free).
    auto& plan = never_freed<Plan>(load_plan(*args.get("plan")));
    NodeNameMap names;
    if (auto f = args.get("node-name-map")) names = load_node_name_map(*f);
    auto& fabric = never_freed<Fabric>();
    if (live) {
      LiveDiscoveryOptions opts;
      opts.ca = args.get("ca").value_or("");
      opts.ca_port = args.get_int("ca-port", 0, 255).value_or(0);
      fabric = discover_live(opts);
    } else {
      std::vector<Fabric> parts;
      for (const auto& t : topologies) parts.push_back(load_topology_file(t));
      fabric = merge_fabrics(std::move(parts));
    }
    apply_node_names(fabric, names.empty() ? nullptr : &names);

    auto& result = never_freed<AuditResult>(run_audit(plan, fabric));
    std::string report = format == "json"  ? audit_to_json(result).dump(2) + "\n"
                         : format == "csv" ? audit_to_csv(result)
                                           : audit_to_text(result);
    if (auto out = args.get("output")) {
      std::string err;
      if (!write_output(*out, report, &err)) return fail(err);
    } else {
      std::cout << report;
    }
    return result.findings.empty() ? 0 : 1;
  } catch (const UsageError& e) {
    std::cerr << "ibwarden audit: " << e.what() << "\n\n" << kHelp;
    return 2;
  } catch (const InputError& e) {
    return fail(std::string("invalid input:\n") + e.what());
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

}  // namespace ibw::cli
