// SmpExecutor: the PortExecutor (actions/remedy.h) that acts over SMPs through a
// PortController opened for each action under the process's MadLocks::smp (fabric/smp_port.h,
// given to the constructor and shared with every other SMP user) and closed right after:
// holding SMP agents open would make the daemon's next live discovery fail to register its
// own, and a umad port that went away cannot poison later actions. Each MAD is bounded by
// timeout_ms; one action sends three (Get, Set, Get), so the action as a whole is bounded by a few
// times that.
#pragma once

#include <memory>
#include <string>

#include "actions/remedy.h"

namespace ibw::actions {

class SmpExecutor : public PortExecutor {
 public:
  SmpExecutor(fabric::MadLocks& locks, std::string ca, int ca_port, unsigned timeout_ms)
      : locks_(locks), ca_(std::move(ca)), ca_port_(ca_port), timeout_ms_(timeout_ms) {}
  PortChange disable(const PortAddress& node, int port) override;
  PortChange enable(const PortAddress& node, int port) override;
  PortReading read(const PortAddress& node, int port) override;

 private:
  template <typename Fn>
  PortChange run(Fn fn);
  fabric::MadLocks& locks_;
  std::string ca_;
  int ca_port_;
  unsigned timeout_ms_;
};

}  // namespace ibw::actions
