// Named steps: `ibwarden run` builds, starts and stops a configuration generation as lists of
// named steps run in order (daemon/prepare.cpp, daemon/generation.cpp), so each phase reads
// as the list of what it does. A step returns whether start-up goes on (an HA standby that
// ends without the lease stops it cleanly) and throws on failure: the first failure stops the
// list, and StepFailed names the step while keeping the step's own message as what().
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ibw::daemon {

struct Step {
  std::string name;           // "open the store", "start the sources", ...
  std::function<bool()> run;  // false: stop here, no failure; throws on failure
};

struct StepResult {
  std::string name;
  bool ok = true;       // false: it threw (error says why)
  bool proceed = true;  // false: it ended start-up without a failure
  std::string error;
};

// A step failed: what() is the step's own message (so the errors a user sees do not change),
// step() its name.
class StepFailed : public std::runtime_error {
 public:
  StepFailed(std::string step, const std::string& what)
      : std::runtime_error(what), step_(std::move(step)) {}
  const std::string& step() const { return step_; }

 private:
  std::string step_;
};

// Runs `steps` in order until one fails or does not proceed; returns a result for each step
// run. With `throw_on_failure`, a failed step throws StepFailed instead.
std::vector<StepResult> run_steps(const std::vector<Step>& steps, bool throw_on_failure = true);

// True when every step ran and proceeded.
bool completed(const std::vector<StepResult>& results, size_t steps);

}  // namespace ibw::daemon
