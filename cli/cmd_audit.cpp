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

int cmd_audit(const CmdArgs& args) {
  using namespace ibw::fabric;
  try {
    if (!args.has("plan")) throw UsageError("--plan is required");
    bool live = args.has("live");
    auto topologies = args.all("topology");
    if (live == !topologies.empty()) throw UsageError("give exactly one of --topology or --live");
    if (!live && (args.has("ca") || args.has("ca-port")))
      throw UsageError("--ca and --ca-port go with --live");
    std::string format = args.choice("format", "text");

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
      MadLocks mad;  // this process's
      fabric = discover_live(mad, opts);
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
    return args.usage_error(e.what());
  } catch (const InputError& e) {
    return fail(std::string("invalid input:\n") + e.what());
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

}  // namespace ibw::cli
