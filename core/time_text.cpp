#include "core/time_text.h"

#include <cstdio>
#include <ctime>

namespace ibw::core {

std::string iso_time_us(int64_t us) {
  if (us <= 0) return "";
  std::time_t secs = static_cast<std::time_t>(us / 1'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<long long>(us % 1'000'000));
  return buf;
}

}  // namespace ibw::core
