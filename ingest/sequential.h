// Sequential probing: a link is probed until the evidence decides, not a fixed count. A fixed
// 10 probes miss a link that drops 15% one time in five, and a 5% link more often than not;
// probing every link 100 times wastes the subnet manager's bandwidth on healthy links.
//
// Wald's sequential probability ratio test (SPRT) for a Bernoulli loss rate: H0 "clean"
// (loss <= clean_loss, what a healthy link may lose) against H1 "lossy" (loss >= min_loss).
// After n probes with k lost, the log-likelihood ratio is
//   k ln(p1/p0) + (n-k) ln((1-p1)/(1-p0));
// at or above ln((1-beta)/alpha) the link is lossy, at or below ln(beta/(1-alpha)) it is
// clean, in between another batch is sent. alpha bounds the share of clean links called
// lossy, beta the share of links at min_loss called clean. With the defaults a clean link is
// decided after about 90 probes without a loss; a 30% link after 2-3 losses.
#pragma once

#include <cstdint>

#include "ingest/prober.h"

namespace ibw::ingest {

struct SprtOptions {
  double clean_loss = 0.002;  // p0
  double min_loss = 0.05;     // p1: the least loss worth naming
  double alpha = 0.01;        // P(clean link called lossy)
  double beta = 0.01;         // P(link at min_loss called clean)
};
enum class SprtVerdict : uint8_t { undecided, clean, lossy };

// Pure. Throws std::invalid_argument unless 0 < p0 < p1 < 1 and 0 < alpha, beta < 0.5.
SprtVerdict sprt(uint64_t sent, uint64_t lost, const SprtOptions& options);

struct SequentialOptions {
  SprtOptions sprt;
  uint64_t max_per_link = 1000;  // probes per link at most; undecided past it
  // A link called lossy is probed on to this many probes, so the localizer weighs a measured
  // loss rate, not the two or three losses that were enough to decide (lossy links are few).
  uint64_t min_lossy = 100;
};

struct SequentialStats {
  size_t probed_again = 0;  // links that needed more than the round's probes
  uint64_t mads = 0;        // probes that cost
  size_t lossy = 0;         // links the test called lossy
  size_t undecided = 0;     // links still undecided at max_per_link (or unreachable)
};

// Takes every directed-route (per-link) observation of `round` (as probe_fabric made it) and
// probes that link again, pinned to the same directed route, in batches of the prober's count,
// adding to the observation's sent/lost, until sprt() decides or max_per_link. Warnings go to
// round.warnings; the summary numbers come back.
SequentialStats probe_until_decided(Prober& prober, ProbeRound& round,
                                    const SequentialOptions& options);

}  // namespace ibw::ingest
