#include "fabric/smp_port.h"

#include <endian.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include <stdexcept>

namespace ibw::fabric {

void SmpPortCloser::operator()(ibmad_port* p) const {
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
