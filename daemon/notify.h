// systemd service notification for `ibwarden run` under Type=notify (sd_notify(3)): READY=1
// once a generation's threads run, RELOADING=1/READY=1 around a SIGHUP reload, STOPPING=1 on
// shutdown, and WATCHDOG=1 from the daemon's main loop at half the interval systemd asks for
// (WatchdogSec=, read through sd_watchdog_enabled(3)), so a wedged main loop gets the service
// restarted. Every call is a no-op when NOTIFY_SOCKET is not set (a terminal, a test).
// Thread-safe. `ibwarden run` makes one (cli/cmd_watch.cpp) and hands it to run_daemon().
#pragma once

#include <chrono>
#include <mutex>
#include <string>

namespace ibw::daemon {

class ServiceNotifier {
 public:
  // Reads NOTIFY_SOCKET and the watchdog settings (WATCHDOG_USEC, WATCHDOG_PID) now.
  ServiceNotifier();
  // NOTIFY_SOCKET is set: messages go to the service manager.
  bool enabled() const { return enabled_; }
  // The watchdog interval systemd set (0: no watchdog); pings go out at half of it.
  std::chrono::microseconds watchdog_interval() const { return watchdog_; }

  // READY=1 with STATUS=status (one line: newlines become spaces).
  void ready(const std::string& status);
  // RELOADING=1 with MONOTONIC_USEC= (systemd >= 253 wants it), and STATUS=.
  void reloading();
  // STOPPING=1, once; later calls do nothing.
  void stopping();
  // STATUS= alone (e.g. why start-up failed).
  void status(const std::string& status);
  // Sends WATCHDOG=1 when half the watchdog interval has passed since the last ping (the first
  // call always pings). Call it from the main loop, often: it is cheap when nothing is due.
  void watchdog_tick();

 private:
  void send(const std::string& message);

  bool enabled_ = false;
  std::chrono::microseconds watchdog_{0};
  std::mutex mutex_;
  std::chrono::steady_clock::time_point last_ping_{};
  bool pinged_ = false;
  bool stopping_ = false;
};

}  // namespace ibw::daemon
