#include "daemon/notify.h"

#include <systemd/sd-daemon.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

namespace ibw::daemon {

ServiceNotifier::ServiceNotifier() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  enabled_ = socket && *socket;
  uint64_t usec = 0;
  // 0: keep WATCHDOG_* in the environment (a re-read after a reload sees the same values).
  if (enabled_ && sd_watchdog_enabled(0, &usec) > 0 && usec > 0)
    watchdog_ = std::chrono::microseconds(usec);
}

void ServiceNotifier::send(const std::string& message) {
  if (!enabled_) return;
  sd_notify(0, message.c_str());  // failures are not fatal: systemd's timeouts decide then
}

namespace {

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

}  // namespace

void ServiceNotifier::ready(const std::string& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!stopping_) send("READY=1\nSTATUS=" + one_line(status));
}

void ServiceNotifier::reloading() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t usec = static_cast<uint64_t>(ts.tv_sec) * 1000000u + ts.tv_nsec / 1000;
  std::lock_guard<std::mutex> lock(mutex_);
  send("RELOADING=1\nMONOTONIC_USEC=" + std::to_string(usec) +
       "\nSTATUS=reloading the configuration");
}

void ServiceNotifier::stopping() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_) return;
  stopping_ = true;
  send("STOPPING=1\nSTATUS=stopping");
}

void ServiceNotifier::status(const std::string& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  send("STATUS=" + one_line(status));
}

void ServiceNotifier::watchdog_tick() {
  if (!enabled_ || watchdog_.count() == 0) return;
  auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  if (pinged_ && now - last_ping_ < watchdog_ / 2) return;
  pinged_ = true;
  last_ping_ = now;
  send("WATCHDOG=1");
}

}  // namespace ibw::daemon
