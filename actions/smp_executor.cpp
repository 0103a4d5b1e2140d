#include "actions/smp_executor.h"

namespace ibw::actions {

template <typename Fn>
PortChange SmpExecutor::run(Fn fn) {
  try {
    if (!controller_) controller_ = std::make_unique<PortController>(ca_, ca_port_, timeout_ms_);
    return fn(*controller_);
  } catch (...) {
    controller_.reset();
    throw;
  }
}

PortChange SmpExecutor::disable(const PortAddress& node, int port) {
  return run([&](PortController& c) { return c.disable(node, port); });
}

PortChange SmpExecutor::enable(const PortAddress& node, int port) {
  return run([&](PortController& c) { return c.enable(node, port); });
}

}  // namespace ibw::actions
