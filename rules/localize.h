// The cursed-route localizer: route observations (ingest/observation.h) in, ranked suspect
// links out. Pure: the fabric and routes come in a fabric::RouteModel, nothing is read or sent.
//
// Method: greedy tomography in the family of 007 (votes spread over the links of a lossy
// flow's path) and deTector (pick the link with the best hit ratio, mark the paths it explains,
// repeat), with votes weighted by each link's share of a pair's routes as ib_burn assumes for
// adaptive routing:
//  1. Every observation becomes its directed links with shares: static (the request LFT
//     path), adaptive (every minimal route src -> dst, counted per destination switch: see
//     fabric/route_model.h), directed (the DR path out); a record that says roundtrip (the
//     prober's) adds the way back: the reply LFT path, every minimal route dst -> src, the DR
//     path back. So one-way data tells a leaf's uplinks from its downlinks. Bad = lost + slow,
//     plus sent * (1 - gbps/expected_gbps) when a bandwidth test fell below 90% of expected.
//  2. Per directed link: traffic = sum of sent * share, bad = sum of bad * share. Its loss
//     estimate is bad / traffic: the cursed link sees its own loss rate, a link that only feeds
//     part of its traffic into the cursed one sees less.
//  3. The link with the highest loss estimate that clears the noise floor (loss >= min_loss,
//     bad >= min_bad and a Poisson tail against `noise` per link crossing as unlikely as a
//     normal deviate of min_z) is a suspect, together with every link whose traffic and bad
//     are the same as its own: links
//     no observation can tell apart (one of a leaf's 16 uplinks under adaptive routing) form
//     one suspect group, never an arbitrary pick. Directed probes pin a group to one link.
//  4. Observations whose routes cross the group are explained and removed; repeat from 2 until
//     no link clears the floor (so two simultaneous faults give two suspects).
// A clean fabric (noise <= 1e-5 per link) gives no suspects.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fabric/route_model.h"
#include "ingest/observation.h"

namespace ibw::rules {

struct LocalizeOptions {
  ingest::Routing default_routing = ingest::Routing::adaptive;  // records that do not say
  double min_loss = 0.005;  // least loss estimate of a suspect link
  double min_bad = 3;       // least bad probes attributed to it
  double noise = 1e-5;      // background loss per link crossing
  double min_z = 4;         // significance against the noise
  int max_suspects = 16;
  // Records whose ends resolve but whose route no longer exists (it crosses a link that went
  // down or was disabled since they were taken) are left out and counted in `skipped` instead
  // of failing the whole call: the daemon's window outlives link changes.
  bool skip_unroutable = false;
  // Records naming an endpoint the fabric does not have are left out and counted in
  // `skipped_unresolved` instead of being errors: for a discovery known to be incomplete (a
  // lossy link can hide nodes from it), where such a name is a gap of the discovery, not a
  // typo. Off by default: a name no complete discovery knows is an error of the input.
  bool skip_unresolved = false;
};

struct SuspectLink {
  uint32_t node = fabric::kNoNode;  // transmitting port; the receiving one is its peer
  int port = 0;
};

struct Suspect {
  int rank = 0;
  double score = 0;  // bad probes attributed to the group
  double loss = 0;   // estimated loss rate of its link(s)
  double traffic = 0;
  std::vector<SuspectLink> links;
  int64_t bad_observations = 0;               // records crossing it with losses
  int64_t good_observations = 0;              // records crossing it without
  std::vector<std::string> sample_bad_pairs;  // "src -> dst: lost/sent"
  int64_t last_bad_us = 0;                    // newest bad record's time (0 unknown)
};

struct LocalizeResult {
  size_t observations = 0;
  size_t pairs = 0;               // distinct (src, dst, routing, roundtrip)
  size_t skipped = 0;             // records left out by skip_unroutable
  size_t skipped_unresolved = 0;  // records left out by skip_unresolved
  std::vector<Suspect> suspects;
};

namespace localize_detail {
struct State;
}

// The localizer fed one record at a time (a million-record file is never held in memory):
// add() resolves and sums each record into its (source, destination, routing, roundtrip)
// item; run() ranks the suspects. The model must outlive it.
class Localizer {
 public:
  explicit Localizer(const fabric::RouteModel& model, const LocalizeOptions& options = {});
  ~Localizer();
  Localizer(const Localizer&) = delete;
  Localizer& operator=(const Localizer&) = delete;
  void reserve(size_t records);  // a hint: about this many records will be added
  // `file` and `line` name the record in errors: an endpoint that cannot be resolved, a route
  // that does not exist.
  void add(const ingest::Observation& o, const std::string& file, int line);
  // Throws fabric::InputError listing every record add() could not use. Call once.
  LocalizeResult run();

 private:
  std::unique_ptr<localize_detail::State> st_;
};

// All at once: records named by their origin "file:line". Throws as Localizer::run().
LocalizeResult localize(const fabric::RouteModel& model,
                        const std::vector<ingest::Observation>& observations,
                        const LocalizeOptions& options = {});

// The contract JSON: {"observations", "pairs", "suspects": [{"rank", "score", "loss",
// "links": [{"from": {"node", "port", "guid"}, "to": {...}, "cable_id"}], "bad_observations",
// "good_observations", "sample_bad_pairs"}]}. cable_of(guid, port) names a port's cable ("" =
// none: the key is then left out).
using CableLookup = std::function<std::string(uint64_t guid, int port)>;
nlohmann::ordered_json localize_json(const fabric::Fabric& fabric, const LocalizeResult& result,
                                     const CableLookup& cable_of = {});
// One suspect's links as "spine001/3 -> leaf003/18" (groups joined with ", ").
std::string suspect_label(const fabric::Fabric& fabric, const Suspect& s);

}  // namespace ibw::rules
