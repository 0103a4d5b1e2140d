#include "actions/smp_executor.h"

namespace ibw::actions {

template <typename Fn>
PortChange SmpExecutor::run(Fn fn) {
  std::lock_guard<std::mutex> smp(locks_.smp);
  PortController controller(locks_, ca_, ca_port_, timeout_ms_);
  return fn(controller);
}

PortChange SmpExecutor::disable(const PortAddress& node, int port) {
  return run([&](PortController& c) { return c.disable(node, port); });
}

PortChange SmpExecutor::enable(const PortAddress& node, int port) {
  return run([&](PortController& c) { return c.enable(node, port); });
}

PortReading SmpExecutor::read(const PortAddress& node, int port) {
  std::lock_guard<std::mutex> smp(locks_.smp);
  PortController controller(locks_, ca_, ca_port_, timeout_ms_);
  return controller.query(node, port);
}

}  // namespace ibw::actions
