// Sequential probing (ingest/sequential.h): Wald's SPRT and the loop that probes each link's
// directed route again until the test decides.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "ingest/sequential.h"

namespace ibw::ingest {

SprtVerdict sprt(uint64_t sent, uint64_t lost, const SprtOptions& o) {
  if (!(o.clean_loss > 0 && o.clean_loss < o.min_loss && o.min_loss < 1) ||
      !(o.alpha > 0 && o.alpha < 0.5 && o.beta > 0 && o.beta < 0.5))
    throw std::invalid_argument("sprt: needs 0 < clean_loss < min_loss < 1, 0 < alpha, beta < 0.5");
  const double p0 = o.clean_loss, p1 = o.min_loss;
  const double ok = static_cast<double>(sent - std::min(lost, sent));
  const double llr = static_cast<double>(std::min(lost, sent)) * std::log(p1 / p0) +
                     ok * std::log((1 - p1) / (1 - p0));
  if (llr >= std::log((1 - o.beta) / o.alpha)) return SprtVerdict::lossy;
  if (llr <= std::log(o.beta / (1 - o.alpha))) return SprtVerdict::clean;
  return SprtVerdict::undecided;
}

namespace {

// The directed route an observation of probe_routes() was sent by, rebuilt from its path
// ({0, out ports...}) and its dst ("0xGUID" or "0xGUID/port").
DrTarget target_of(const Observation& o) {
  DrTarget t;
  for (size_t i = 1; i < o.path.size(); ++i) t.route.push_back(static_cast<uint8_t>(o.path[i]));
  t.dst = o.dst;
  t.far_guid = fabric::parse_guid(o.dst.substr(0, o.dst.find('/'))).value_or(0);
  return t;
}

}  // namespace

SequentialStats probe_until_decided(Prober& prober, ProbeRound& round,
                                    const SequentialOptions& options) {
  SequentialStats stats;
  std::vector<size_t> open;  // indexes of undecided directed observations
  for (size_t i = 0; i < round.observations.size(); ++i) {
    const Observation& o = round.observations[i];
    if (o.routing != Routing::directed || o.path.size() < 2) continue;
    SprtVerdict v = sprt(o.sent, o.lost, options.sprt);
    if (v == SprtVerdict::undecided || (v == SprtVerdict::lossy && o.sent < options.min_lossy))
      open.push_back(i), ++stats.probed_again;
    else if (v == SprtVerdict::lossy)
      ++stats.lossy;
  }
  while (!open.empty()) {
    std::vector<DrTarget> targets;
    for (size_t i : open) targets.push_back(target_of(round.observations[i]));
    ProbeRound more = prober.probe_routes(targets);
    stats.mads += more.stats.mads_sent;
    round.stats.mads_sent += more.stats.mads_sent;
    round.stats.lost += more.stats.lost;
    round.stats.mismatched += more.stats.mismatched;
    round.stats.duration_us += more.stats.duration_us;
    for (auto& w : more.warnings) round.warnings.push_back(std::move(w));
    std::vector<size_t> still;
    for (size_t k = 0; k < open.size() && k < more.observations.size(); ++k) {
      Observation& o = round.observations[open[k]];
      const Observation& m = more.observations[k];
      o.sent += m.sent;
      o.lost += m.lost;
      if (m.sent == 0) {  // nothing could be sent: no evidence will come
        ++stats.undecided;
        continue;
      }
      SprtVerdict v = sprt(o.sent, o.lost, options.sprt);
      if (v == SprtVerdict::clean) continue;
      if (v == SprtVerdict::lossy && o.sent >= options.min_lossy) {
        ++stats.lossy;
        continue;
      }
      if (o.sent >= options.max_per_link) {
        if (v == SprtVerdict::lossy) {
          ++stats.lossy;
          continue;
        }
        ++stats.undecided;
        continue;
      }
      still.push_back(open[k]);
    }
    open = std::move(still);
  }
  return stats;
}

}  // namespace ibw::ingest
