#include "fabric/smp_port.h"

#include <endian.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include <chrono>
#include <stdexcept>
#include <vector>

namespace ibw::fabric {

void drain_late_answers(int fd, int ms) {
  if (fd < 0) return;
  std::vector<uint8_t> buf(static_cast<size_t>(umad_size()) + IB_MAD_SIZE);
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    until - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) return;
    int len = IB_MAD_SIZE;
    umad_recv(fd, buf.data(), &len, static_cast<int>(left));
  }
}

bool smp_get(SmpPort& port, uint8_t* buf, portid* id, unsigned attr, unsigned mod,
             unsigned timeout_ms) {
  if (smp_query_via(buf, id, attr, mod, timeout_ms, port.get())) return true;
  port.get_deleter().unanswered = true;
  return false;
}

bool smp_set(SmpPort& port, uint8_t* buf, portid* id, unsigned attr, unsigned mod,
             unsigned timeout_ms) {
  if (smp_set_via(buf, id, attr, mod, timeout_ms, port.get())) return true;
  port.get_deleter().unanswered = true;
  return false;
}

void SmpPortCloser::operator()(ibmad_port* p) const {
  if (unanswered) drain_late_answers(mad_rpc_portid(p), 1000);
  // Unregister the agents first: the kernel would on close, but umad2sim frees only one
  // agent per closed descriptor, and its 32 slots run out in a long-running process.
  for (int mgmt : {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS})
    if (int agent = mad_rpc_class_agent(p, mgmt); agent >= 0)
      umad_unregister(mad_rpc_portid(p), agent);
  mad_rpc_close_port(p);
}

SmpPort open_smp_port(MadLocks& locks, const std::string& ca, int ca_port, unsigned timeout_ms) {
  int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS};
  std::string name = ca;
  std::lock_guard<std::mutex> lock(locks.umad);
  SmpPort port(mad_rpc_open_port(name.empty() ? nullptr : name.data(), ca_port, classes, 2));
  if (!port)
    throw std::runtime_error("cannot open the local port (CA " +
                             (ca.empty() ? std::string("(default)") : ca) + " port " +
                             std::to_string(ca_port) + ") for SMPs: is umad accessible?");
  if (timeout_ms != 0) mad_rpc_set_timeout(port.get(), static_cast<int>(timeout_ms));
  return port;
}

LocalPort local_port(MadLocks& locks, const std::string& ca, int ca_port) {
  umad_port_t p{};
  std::string name = ca;
  std::lock_guard<std::mutex> lock(locks.umad);
  if (umad_get_port(name.empty() ? nullptr : name.c_str(), ca_port, &p) < 0)
    throw std::runtime_error("cannot read the local port (CA " +
                             (ca.empty() ? std::string("(default)") : ca) + " port " +
                             std::to_string(ca_port) + ")");
  LocalPort out;
  out.port_guid = be64toh(p.port_guid);
  out.lid = static_cast<uint16_t>(p.base_lid);
  out.sm_lid = static_cast<uint16_t>(p.sm_lid);
  out.port = p.portnum;
  umad_release_port(&p);
  return out;
}

}  // namespace ibw::fabric
