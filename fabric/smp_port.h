// SmpPort: the local umad port opened for subnet-management packets (SMPs, LID-routed and
// directed-route) through libibmad, closed on destruction. Shared by everything that sends
// SMPs itself: live LFT reads (fabric/routing_live) and port disable/enable (actions/).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

struct ibmad_port;

namespace ibw::fabric {

struct SmpPortCloser {
  void operator()(ibmad_port* p) const;
};
using SmpPort = std::unique_ptr<ibmad_port, SmpPortCloser>;

// The locks of one process's MAD users: made once per process (the daemon's DaemonProcess,
// each CLI command that sends MADs) and passed by reference to everything that opens umad
// ports or registers SMP agents; all threads of the process must share the one instance.
struct MadLocks {
  // Held by everything in this process that registers SMP agents on the local port while it
  // does so (live discovery, live LFT reads, port control, the prober): umad (and umad2sim)
  // accept one registration per management class and port, so a second one fails until the
  // first closes.
  std::mutex smp;
  // Held around every umad_init / port open / port query of this process (SMP ports here,
  // the counter poller's and the prober's PMA ports in ingest/): umad2sim sets itself up on
  // the first such call of a process, and two threads doing it at once both bind its control
  // socket, which aborts the process. Never held across MADs; when both are held, smp first.
  std::mutex umad;
};

// Opens CA `ca` (empty = first) port `ca_port` (0 = first active) under locks.umad; timeout_ms
// 0 keeps libibmad's default. Throws std::runtime_error naming the CA and port on failure.
SmpPort open_smp_port(MadLocks& locks, const std::string& ca, int ca_port, unsigned timeout_ms = 0);

// The local port as umad reports it: its GUID and LID, and the LID of the subnet manager it
// knows (read under locks.umad). Throws std::runtime_error when the port cannot be read.
struct LocalPort {
  uint64_t port_guid = 0;  // host order
  uint16_t lid = 0;
  uint16_t sm_lid = 0;
  int port = 0;
};
LocalPort local_port(MadLocks& locks, const std::string& ca, int ca_port);

}  // namespace ibw::fabric
