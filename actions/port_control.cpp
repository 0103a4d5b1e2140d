// PortInfo Get/Set over LID-routed SMPs with libibmad; see port_control.h.
#include "actions/port_control.h"

#include "fabric/model.h"

#include <infiniband/mad.h>

#include <stdexcept>

namespace ibw::actions {
namespace port_control_detail {

constexpr uint8_t kPhysPolling = 2;
constexpr uint8_t kPhysDisabled = 3;
constexpr uint8_t kPortStateNop = 0;

std::string where(const PortAddress& a, int port) {
  return a.text() + " port " + std::to_string(port);
}

PortReading reading(uint8_t* info) {
  PortReading r;
  r.link_state = static_cast<uint8_t>(mad_get_field(info, 0, IB_PORT_STATE_F));
  r.phys_state = static_cast<uint8_t>(mad_get_field(info, 0, IB_PORT_PHYS_STATE_F));
  return r;
}

ib_portid_t portid(const PortAddress& a) {
  ib_portid_t id{};
  if (a.dr_path.empty()) {
    ib_portid_set(&id, a.lid, 0, 0);
    return id;
  }
  std::string path = a.dr_path;
  if (str2drpath(&id.drpath, path.data(), 0, 0) < 0)
    throw std::runtime_error("bad directed-route path \"" + a.dr_path + "\"");
  return id;
}

bool valid(const PortAddress& a) {
  return a.dr_path.empty() ? a.lid != 0 : true;
}

}  // namespace port_control_detail

std::string PortAddress::text() const {
  return dr_path.empty() ? "LID " + std::to_string(lid) : "DR path " + dr_path;
}

PortController::PortController(fabric::MadLocks& locks, const std::string& ca, int ca_port,
                               unsigned timeout_ms)
    : port_(fabric::open_smp_port(locks, ca, ca_port, timeout_ms)), timeout_ms_(timeout_ms) {}

PortController::~PortController() = default;

PortReading PortController::query(const PortAddress& node, int port) {
  namespace pd = port_control_detail;
  if (!pd::valid(node) || port < 0 || port > 254)
    throw std::runtime_error("port query: bad address " + pd::where(node, port));
  ib_portid_t id = pd::portid(node);
  uint8_t info[IB_SMP_DATA_SIZE] = {};
  if (!smp_query_via(info, &id, IB_ATTR_PORT_INFO, static_cast<unsigned>(port), 0, port_.get()))
    throw std::runtime_error("PortInfo Get failed for " + pd::where(node, port) +
                             " (no answer: unknown LID, unreachable, or no such port)");
  return pd::reading(info);
}

PortChange PortController::disable(const PortAddress& node, int port) {
  return set_phys_state(node, port, port_control_detail::kPhysDisabled, "disable");
}

PortChange PortController::enable(const PortAddress& node, int port) {
  return set_phys_state(node, port, port_control_detail::kPhysPolling, "enable");
}

PortChange PortController::set_phys_state(const PortAddress& node, int port, uint8_t phys_state,
                                          const char* op) {
  namespace pd = port_control_detail;
  if (!pd::valid(node) || port < 1 || port > 254)
    throw std::runtime_error(std::string(op) + ": bad address " + pd::where(node, port));
  ib_portid_t id = pd::portid(node);
  uint8_t info[IB_SMP_DATA_SIZE] = {};
  if (!smp_query_via(info, &id, IB_ATTR_PORT_INFO, static_cast<unsigned>(port), 0, port_.get()))
    throw std::runtime_error(std::string(op) + ": PortInfo Get failed for " +
                             pd::where(node, port));
  PortChange change;
  change.before = pd::reading(info);
  mad_set_field(info, 0, IB_PORT_PHYS_STATE_F, phys_state);
  mad_set_field(info, 0, IB_PORT_STATE_F, pd::kPortStateNop);
  const bool answered =
      smp_set_via(info, &id, IB_ATTR_PORT_INFO, static_cast<unsigned>(port), 0, port_.get());
  if (answered) change.set_reply = pd::reading(info);
  change.set_reply_lost = !answered;
  std::optional<PortReading> after = read_back(node, port);
  if (!after)
    throw OutcomeUnknown(std::string(op) + ": no answer to the PortInfo " +
                         (answered ? "Get" : "Set nor to the Get") + " after the Set for " +
                         pd::where(node, port) + " (" + std::to_string(kReadBackTries) +
                         " tries): it may or may not have been applied");
  change.after = *after;
  const bool disabled = after->phys_state == pd::kPhysDisabled;
  if (!answered && disabled != (phys_state == pd::kPhysDisabled))
    throw std::runtime_error(std::string(op) + ": PortInfo Set failed for " +
                             pd::where(node, port) +
                             " (no answer or error status; read back PhysState " +
                             std::string(fabric::phys_state_name(after->phys_state)) + ")");
  return change;
}

std::optional<PortReading> PortController::read_back(const PortAddress& node, int port) {
  for (int i = 0; i < kReadBackTries; ++i) {
    try {
      return query(node, port);
    } catch (const std::runtime_error&) {
    }
  }
  return std::nullopt;
}

}  // namespace ibw::actions
