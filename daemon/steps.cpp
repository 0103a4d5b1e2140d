// Named steps (daemon/steps.h).
#include "daemon/steps.h"

namespace ibw::daemon {

std::vector<StepResult> run_steps(const std::vector<Step>& steps, bool throw_on_failure) {
  std::vector<StepResult> results;
  for (const Step& step : steps) {
    StepResult& r = results.emplace_back();
    r.name = step.name;
    try {
      r.proceed = step.run();
    } catch (const std::exception& e) {
      if (throw_on_failure) throw StepFailed(step.name, e.what());
      r.ok = r.proceed = false;
      r.error = e.what();
    }
    if (!r.proceed) break;
  }
  return results;
}

bool completed(const std::vector<StepResult>& results, size_t steps) {
  return results.size() == steps && (results.empty() || results.back().proceed);
}

}  // namespace ibw::daemon
