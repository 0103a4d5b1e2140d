// ibw-bench-counter_sweep: runs CounterPoller sweeps and prints JSON lines, one object each:
//   {"type":"discovery", ...}   how the targets were found and how long that took
//   {"type":"sample", ...}      one per answering port (omitted with --quiet)
//   {"type":"unresponsive"|"failed", ...}
//   {"type":"event", ...}       CounterTracker events between this run's sweeps
//   {"type":"summary", ...}     per sweep: duration, MADs sent, retries, max outstanding, kind
//                               (full or errors), switch sums answered, switches read per port
// --data-every N: sweeps N-1, 2N-1, ... are full (data counters), the others errors sweeps
// (switch sums); 1 (the default) = every sweep full. --no-switch-sums: every port one by one.
// Targets: --all (live discovery, every port with a peer), --cache FILE (an ibnetdiscover
// cache), or explicit --lid L --port P[,P...] [--guid G] groups. Must run attached to a fabric
// (on ibsim: under umad2sim). Used by tests/integration/test_counters_lab.cpp and
// bench/bench_counters.sh.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_args.h"
#include "fabric/ibnd_loader.h"
#include "fabric/model.h"
#include "ingest/counter_poller.h"
#include "ingest/counter_tracker.h"

namespace {

using ibw::ingest::PollTarget;
using nlohmann::json;

struct Args {
  bool all = false;
  std::string cache;
  std::vector<PollTarget> targets;
  ibw::ingest::PollerOptions poller;
  int sweeps = 1;
  int interval_ms = 0;
  int data_every = 1;
  bool quiet = false;
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "ibw-bench-counter_sweep: " << why << "\n"
            << "usage: ibw-bench-counter_sweep (--all | --cache FILE | --lid L --port P[,P...] "
               "[--guid G] ...)\n"
               "       [--sweeps N] [--interval-ms MS] [--window N] [--timeout-ms MS] "
               "[--retries N]\n"
               "       [--data-every N] [--no-switch-sums] [--ca NAME] [--ca-port N] [--quiet]\n";
  std::exit(2);
}

unsigned long number(const std::string& text, const std::string& flag) {
  if (auto v = ibw::bench::whole_number(text)) return *v;
  usage("bad number for " + flag + ": " + text);
}

Args parse_args(int argc, char** argv) {
  Args a;
  uint16_t lid = 0;
  uint64_t guid = 0;
  size_t group_start = 0;
  ibw::bench::Flags f{argc, argv, usage};
  while (f.next()) {
    const std::string& flag = f.flag;
    if (flag == "--all") {
      a.all = true;
    } else if (flag == "--cache") {
      a.cache = f.value();
    } else if (flag == "--lid") {
      lid = static_cast<uint16_t>(number(f.value(), flag));
      guid = 0;
      group_start = a.targets.size();
    } else if (flag == "--guid") {
      guid = number(f.value(), flag);
      for (size_t t = group_start; t < a.targets.size(); ++t) a.targets[t].node_guid = guid;
    } else if (flag == "--port") {
      if (lid == 0) usage("--port needs a --lid before it");
      std::stringstream list(f.value());
      for (std::string p; std::getline(list, p, ',');)
        a.targets.push_back(PollTarget{guid, lid, static_cast<int>(number(p, flag))});
    } else if (flag == "--sweeps") {
      a.sweeps = static_cast<int>(number(f.value(), flag));
    } else if (flag == "--interval-ms") {
      a.interval_ms = static_cast<int>(number(f.value(), flag));
    } else if (flag == "--window") {
      a.poller.window = static_cast<unsigned>(number(f.value(), flag));
    } else if (flag == "--timeout-ms") {
      a.poller.timeout_ms = static_cast<unsigned>(number(f.value(), flag));
    } else if (flag == "--retries") {
      a.poller.retries = static_cast<unsigned>(number(f.value(), flag));
    } else if (flag == "--ca") {
      a.poller.ca = f.value();
    } else if (flag == "--ca-port") {
      a.poller.ca_port = static_cast<int>(number(f.value(), flag));
    } else if (flag == "--data-every") {
      a.data_every = static_cast<int>(number(f.value(), flag));
      if (a.data_every < 1) usage("--data-every must be at least 1");
    } else if (flag == "--no-switch-sums") {
      a.poller.switch_sums = false;
    } else if (flag == "--quiet") {
      a.quiet = true;
    } else {
      usage("unknown option " + flag);
    }
  }
  if (a.all + !a.cache.empty() + !a.targets.empty() != 1)
    usage("give exactly one of --all, --cache or --lid/--port");
  return a;
}

std::string hex_guid(uint64_t guid) {
  return ibw::fabric::format_guid(guid);
}

// Every port with a peer: switches at their port-0 LID, CAs at the port's own LID.
std::vector<PollTarget> targets_of(const ibw::fabric::Fabric& fabric,
                                   std::vector<std::string>* names) {
  std::vector<PollTarget> out;
  for (const auto& node : fabric.nodes()) {
    for (const auto& port : node.ports) {
      if (port.number == 0 || !port.has_peer() || port.lid == 0) continue;
      out.push_back(PollTarget{node.guid, port.lid, port.number});
      names->push_back(node.description);
    }
  }
  return out;
}

json target_json(const std::string& type, const PollTarget& t, const std::string& name) {
  json j = {{"type", type}, {"guid", hex_guid(t.node_guid)}, {"lid", t.lid}, {"port", t.port}};
  if (!name.empty()) j["node"] = name;
  return j;
}

json sample_json(const ibw::ingest::CounterSample& s, const PollTarget& t, const std::string& name,
                 int sweep) {
  json j = target_json("sample", t, name);
  j["sweep"] = sweep;
  j["time_us"] = s.time_us;
  j["extended"] = s.extended;
  json counters = json::object(), saturated = json::array();
  for (size_t i = 0; i < ibw::ingest::kCounterCount; ++i) {
    auto c = static_cast<ibw::ingest::Counter>(i);
    if (!s.has(c)) continue;
    counters[std::string(ibw::ingest::counter_name(c))] = s.get(c);
    if (s.saturated & (1u << i)) saturated.push_back(std::string(ibw::ingest::counter_name(c)));
  }
  j["counters"] = counters;
  j["saturated"] = saturated;
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  Args args = parse_args(argc, argv);
  std::vector<std::string> names;
  try {
    ibw::fabric::MadLocks mad;  // this process's: discovery and the poller share it
    auto t0 = std::chrono::steady_clock::now();
    if (args.all || !args.cache.empty()) {
      ibw::fabric::Fabric fabric;
      if (args.all) {
        ibw::fabric::LiveDiscoveryOptions live;
        live.ca = args.poller.ca;
        live.ca_port = args.poller.ca_port;
        fabric = ibw::fabric::discover_live(mad, live);
      } else {
        fabric = ibw::fabric::load_ibnd_cache(args.cache);
      }
      args.targets = targets_of(fabric, &names);
      auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::steady_clock::now() - t0)
                    .count();
      std::cout << json{{"type", "discovery"},
                        {"source", args.all ? "live" : "cache"},
                        {"duration_us", us},
                        {"nodes", fabric.size()},
                        {"targets", args.targets.size()}}
                << "\n";
    }
    names.resize(args.targets.size());

    ibw::ingest::SystemClock clock;
    auto poller = ibw::ingest::CounterPoller::open(mad, args.poller, clock);
    ibw::ingest::CounterTracker tracker;
    for (int sweep = 0; sweep < args.sweeps; ++sweep) {
      if (sweep > 0 && args.interval_ms > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(args.interval_ms));
      bool full = sweep % args.data_every == args.data_every - 1;
      auto r = poller->sweep(args.targets,
                             full ? ibw::ingest::SweepKind::full : ibw::ingest::SweepKind::errors);
      std::vector<ibw::ingest::Event> events;
      // Lists are in target order: walk the targets and take from each list in turn.
      size_t si = 0, ui = 0, fi = 0;
      auto same = [](const PollTarget& a, const PollTarget& b) {
        return a.lid == b.lid && a.port == b.port && a.node_guid == b.node_guid;
      };
      for (size_t i = 0; i < args.targets.size(); ++i) {
        const PollTarget& t = args.targets[i];
        if (ui < r.unresponsive.size() && same(r.unresponsive[ui], t)) {
          ++ui;
          tracker.unresponsive(t.node_guid, t.port, r.started_us, &events);
          if (!args.quiet) std::cout << target_json("unresponsive", t, names[i]) << "\n";
        } else if (fi < r.failed.size() && same(r.failed[fi], t)) {
          ++fi;
          if (!args.quiet) std::cout << target_json("failed", t, names[i]) << "\n";
        } else if (si < r.samples.size()) {
          const auto& s = r.samples[si++];
          tracker.update(s, &events);
          if (!args.quiet) std::cout << sample_json(s, t, names[i], sweep) << "\n";
        }
      }
      for (const auto& e : events) {
        std::cout
            << json{{"type", "event"}, {"kind", e.kind},       {"guid", hex_guid(e.node_guid)},
                    {"port", e.port},  {"time_us", e.time_us}, {"message", e.message}}
            << "\n";
      }
      std::cout << json{{"type", "summary"},
                        {"sweep", sweep},
                        {"started_us", r.started_us},
                        {"targets", args.targets.size()},
                        {"samples", r.samples.size()},
                        {"unresponsive", r.unresponsive.size()},
                        {"failed", r.failed.size()},
                        {"duration_us", r.duration_us},
                        {"mads_sent", r.mads_sent},
                        {"retries", r.retries},
                        {"class_port_info", r.class_port_info},
                        {"max_outstanding", r.max_outstanding},
                        {"kind", r.full ? "full" : "errors"},
                        {"switch_sums", r.switch_sums},
                        {"switches_read", r.switches_read},
                        {"window", args.poller.window}}
                << std::endl;
    }
  } catch (const std::exception& e) {
    std::cerr << "ibw-bench-counter_sweep: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
