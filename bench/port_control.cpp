// ibw-bench-port_control: disables, enables or queries one port over SMPs with
// actions/port_control.h and prints one JSON line:
//   {"op":"disable","lid":3,"port":5,"before":{"link_state":"Active","phys_state":"LinkUp",...},
//    "set_reply":{...},"after":{...},"set_reply_lost":false}
// (query prints only "after"). On failure: {"op":...,"error":"..."} (with "outcome_unknown":
// true when the port may have changed, actions::OutcomeUnknown) and exit status 1; usage
// errors exit 2. Must run attached to a fabric (on ibsim: under umad2sim). The guard is not
// consulted. Used by tests/integration/test_port_control*.cpp.
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "actions/port_control.h"
#include "bench/bench_args.h"
#include "fabric/model.h"

namespace {

using ibw::actions::PortReading;
using nlohmann::json;

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "ibw-bench-port_control: " << why << "\n"
            << "usage: ibw-bench-port_control --lid L --port P [--ca NAME] [--ca-port N] "
               "[--timeout-ms MS] (disable|enable|query)\n";
  std::exit(2);
}

unsigned long number(const std::string& text, const std::string& flag) {
  if (auto v = ibw::bench::whole_number(text)) return *v;
  usage("bad number for " + flag + ": " + text);
}

json to_json(const PortReading& r) {
  return {{"link_state", std::string(ibw::fabric::port_state_name(r.link_state))},
          {"phys_state", std::string(ibw::fabric::phys_state_name(r.phys_state))},
          {"link_state_code", r.link_state},
          {"phys_state_code", r.phys_state}};
}

}  // namespace

int main(int argc, char** argv) {
  unsigned long lid = 0, port = 0, ca_port = 0, timeout_ms = 0;
  bool have_port = false;
  std::string ca, op;
  ibw::bench::Flags f{argc, argv, usage};
  while (f.next()) {
    const std::string& flag = f.flag;
    if (flag == "--lid") {
      lid = number(f.value(), flag);
    } else if (flag == "--port") {
      port = number(f.value(), flag);
      have_port = true;
    } else if (flag == "--ca") {
      ca = f.value();
    } else if (flag == "--ca-port") {
      ca_port = number(f.value(), flag);
    } else if (flag == "--timeout-ms") {
      timeout_ms = number(f.value(), flag);
    } else if (flag == "disable" || flag == "enable" || flag == "query") {
      if (!op.empty()) usage("give one operation");
      op = flag;
    } else {
      usage("unknown argument " + flag);
    }
  }
  if (op.empty()) usage("give disable, enable or query");
  if (lid == 0 || lid > 0xbfff) usage("--lid must be a unicast LID");
  if (!have_port || port > 254) usage("--port must be 0-254");

  json out = {{"op", op}, {"lid", lid}, {"port", port}};
  try {
    ibw::fabric::MadLocks mad;  // this process's
    ibw::actions::PortController control(mad, ca, static_cast<int>(ca_port),
                                         static_cast<unsigned>(timeout_ms));
    auto l = static_cast<uint16_t>(lid);
    int p = static_cast<int>(port);
    if (op == "query") {
      out["after"] = to_json(control.query(ibw::actions::PortAddress{l, ""}, p));
    } else {
      auto change = op == "disable" ? control.disable(ibw::actions::PortAddress{l, ""}, p)
                                    : control.enable(ibw::actions::PortAddress{l, ""}, p);
      out["before"] = to_json(change.before);
      out["set_reply"] = to_json(change.set_reply);
      out["after"] = to_json(change.after);
      out["set_reply_lost"] = change.set_reply_lost;
    }
  } catch (const ibw::actions::OutcomeUnknown& e) {
    out["error"] = e.what();
    out["outcome_unknown"] = true;
    std::cout << out.dump() << "\n";
    return 1;
  } catch (const std::exception& e) {
    out["error"] = e.what();
    std::cout << out.dump() << "\n";
    return 1;
  }
  std::cout << out.dump() << "\n";
  return 0;
}
