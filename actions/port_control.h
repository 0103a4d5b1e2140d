// Port control over SMPs, as `ibportstate <lid> <port> disable|enable|query` does it:
// PortInfo Get, then PortInfo Set of the same record with PortPhysicalState 3 (Disabled) to
// disable or 2 (Polling) to enable and PortState 0 (NOP), then a PortInfo Get to read back.
// A port is addressed by its node (PortAddress: the node's LID, a switch's port-0 LID, or a
// directed-route path) and the port number. Directed routes do not depend on the SM's
// routing tables, which may still lead through the very link that was just disabled.
// A Set without an answer may still have been applied (its reply lost on a lossy link), so
// the port is then read back, and the reading decides; when neither the Set nor the read-back
// is answered the outcome is unknown (OutcomeUnknown).
// Needs a local umad port (on ibsim: run under umad2sim). Never consults the guard
// (actions/guard.h): callers decide first. Not thread-safe: one controller per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
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
  PortReading set_reply;        // as the Set's GetResp reported it (zero when it was lost)
  bool set_reply_lost = false;  // no answer to the Set: `after` alone says it was applied
  PortReading after;            // a fresh PortInfo Get after the Set
  // The port was isolated (routed around by the SM, PHY left up) rather than disabled, and
  // read back as isolated: only executors that can isolate set it (UfmExecutor).
  bool isolated = false;
  std::string via;  // how it was done, for the evidence ("UFM job 7"); empty for SMP
};

// A port request that may or may not have been applied: the Set was sent, but neither it nor
// the read-back after it was answered. The caller must not assume either outcome.
struct OutcomeUnknown : std::runtime_error {
  using std::runtime_error::runtime_error;
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

  // Each throws std::runtime_error naming the address, port and operation on failure;
  // disable() and enable() throw OutcomeUnknown when the port may have changed.
  PortReading query(const PortAddress& node, int port);
  PortChange disable(const PortAddress& node, int port);
  PortChange enable(const PortAddress& node, int port);

 private:
  PortChange set_phys_state(const PortAddress& node, int port, uint8_t phys_state, const char* op);
  // The port's state, asked up to kReadBackTries times; nullopt when no Get was answered.
  std::optional<PortReading> read_back(const PortAddress& node, int port);
  static constexpr int kReadBackTries = 3;

  fabric::SmpPort port_;
  unsigned timeout_ms_ = 0;
};

}  // namespace ibw::actions
