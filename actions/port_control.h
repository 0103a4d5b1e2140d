// Port control over SMPs, as `ibportstate <lid> <port> disable|enable|query` does it:
// PortInfo Get, then PortInfo Set of the same record with PortPhysicalState 3 (Disabled) to
// disable or 2 (Polling) to enable and PortState 0 (NOP), then a PortInfo Get to read back.
// A port is addressed by its node (PortAddress: the node's LID, a switch's port-0 LID, or a
// directed-route path) and the port number. Directed routes do not depend on the SM's
// routing tables, which may still lead through the very link that was just disabled.
// Needs a local umad port (on ibsim: run under umad2sim). Never consults the guard
// (actions/guard.h): callers decide first. Not thread-safe: one controller per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "fabric/smp_port.h"

namespace ibw::actions {

struct PortAddress {
  uint16_t lid = 0;
  std::string dr_path;       // "0,1,3": out of local port 1, then out of port 3; used when set
  std::string text() const;  // "LID 3" or "DR path 0,1,3"
};

struct PortReading {
  uint8_t link_state = 0;  // PortInfo.PortState: 1 Down, 2 Init, 3 Armed, 4 Active
  uint8_t phys_state = 0;  // PortInfo.PortPhysicalState: 2 Polling, 3 Disabled, 5 LinkUp ...
};

struct PortChange {
  PortReading before;
  PortReading set_reply;  // as the Set's GetResp reported it
  PortReading after;      // a fresh PortInfo Get after the Set
  // The port was isolated (routed around by the SM, PHY left up) rather than disabled, and
  // read back as isolated: only executors that can isolate set it (UfmExecutor).
  bool isolated = false;
  std::string via;  // how it was done, for the evidence ("UFM job 7"); empty for SMP
};

// State names: fabric::port_state_name() and fabric::phys_state_name() (fabric/model.h).

class PortController {
 public:
  // Opens the local port for SMPs (under locks.umad; the caller holds locks.smp when other
  // threads may register SMP agents); ca empty = first CA, ca_port 0 = first active port.
  // Throws std::runtime_error when it cannot.
  explicit PortController(fabric::MadLocks& locks, const std::string& ca = "", int ca_port = 0,
                          unsigned timeout_ms = 0);
  ~PortController();
  PortController(const PortController&) = delete;
  PortController& operator=(const PortController&) = delete;

  // Each throws std::runtime_error naming the address, port and operation on failure.
  PortReading query(const PortAddress& node, int port);
  PortChange disable(const PortAddress& node, int port);
  PortChange enable(const PortAddress& node, int port);

 private:
  PortChange set_phys_state(const PortAddress& node, int port, uint8_t phys_state, const char* op);

  fabric::SmpPort port_;
  unsigned timeout_ms_ = 0;
};

}  // namespace ibw::actions
