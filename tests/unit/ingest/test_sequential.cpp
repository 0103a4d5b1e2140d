// Wald's SPRT for probe loss (ingest/sequential.h): decides clean after enough probes without
// a loss, lossy after a few losses, and keeps asking in between; its error rates hold when
// simulated; bad parameters are refused.
#include <catch2/catch.hpp>

#include <random>

#include "ingest/sequential.h"

using namespace ibw::ingest;

TEST_CASE("sprt: clean after enough probes without a loss and lossy after a few losses",
          "[sequential]") {
  SprtOptions o;  // p0 0.002, p1 0.05, alpha = beta = 0.01
  CHECK(sprt(0, 0, o) == SprtVerdict::undecided);
  CHECK(sprt(10, 0, o) == SprtVerdict::undecided);  // the old fixed count decides nothing
  CHECK(sprt(100, 0, o) == SprtVerdict::clean);
  // The first count that decides clean is about ln(beta/(1-alpha)) / ln((1-p1)/(1-p0)) = 93.
  uint64_t n = 1;
  while (sprt(n, 0, o) != SprtVerdict::clean) ++n;
  CHECK(n >= 85);
  CHECK(n <= 100);
  CHECK(sprt(10, 1, o) == SprtVerdict::undecided);  // one loss in ten: look again
  CHECK(sprt(10, 2, o) == SprtVerdict::lossy);      // 2 x ln(25) > ln(99)
  CHECK(sprt(10, 10, o) == SprtVerdict::lossy);
  CHECK(sprt(5, 9, o) == SprtVerdict::lossy);  // lost > sent is read as all lost
  // One loss among many is background: clean after enough more.
  CHECK(sprt(300, 1, o) == SprtVerdict::clean);
}

TEST_CASE("sprt: simulated links keep the stated error rates", "[sequential]") {
  SprtOptions o;
  std::mt19937_64 rng(42);
  auto run = [&](double loss) {
    std::bernoulli_distribution drop(loss);
    uint64_t sent = 0, lost = 0;
    SprtVerdict v = SprtVerdict::undecided;
    while (v == SprtVerdict::undecided && sent < 100000) {
      for (int i = 0; i < 10; ++i) lost += drop(rng), ++sent;  // batches of 10, as probe does
      v = sprt(sent, lost, o);
    }
    return v;
  };
  int wrong_clean = 0, missed_5 = 0, missed_15 = 0, missed_30 = 0;
  for (int t = 0; t < 2000; ++t) {
    wrong_clean += run(0.0) != SprtVerdict::clean;
    missed_5 += run(0.05) != SprtVerdict::lossy;
    missed_15 += run(0.15) != SprtVerdict::lossy;
    missed_30 += run(0.30) != SprtVerdict::lossy;
  }
  CHECK(wrong_clean == 0);         // no loss: never lossy
  CHECK(missed_5 <= 2000 * 0.02);  // at min_loss: beta (0.01), with room for chance
  CHECK(missed_15 <= 2);           // far above min_loss: almost never missed
  CHECK(missed_30 == 0);
}

TEST_CASE("sprt: parameters that make no test are refused", "[sequential]") {
  SprtOptions o;
  o.min_loss = o.clean_loss;
  CHECK_THROWS_AS(sprt(1, 0, o), std::invalid_argument);
  o = {};
  o.alpha = 0;
  CHECK_THROWS_AS(sprt(1, 0, o), std::invalid_argument);
  o = {};
  o.min_loss = 1;
  CHECK_THROWS_AS(sprt(1, 0, o), std::invalid_argument);
}
