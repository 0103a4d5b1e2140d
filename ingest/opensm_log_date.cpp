// OpenSM log dates: the year a "Mon DD" timestamp belongs to, and the calendar arithmetic behind
// it.
#include <array>

#include "ingest/opensm_log.h"
#include "ingest/opensm_log_detail.h"

namespace ibw::ingest {
namespace osm_log_detail {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

int year_of_days(int64_t z) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return static_cast<int>(static_cast<int64_t>(yoe) + era * 400 + (m <= 2));
}

bool valid_date(int y, int m, int d) {
  static constexpr std::array<int, 12> kDays = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1 || d > kDays[m - 1]) return false;
  if (m == 2 && d == 29) return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return true;
}

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

}  // namespace osm_log_detail

int resolve_year(int month, int day, int64_t reference_us, int utc_offset_s, int seconds_of_day) {
  using namespace osm_log_detail;
  const int64_t ref_local = floor_div(reference_us, 1'000'000) + utc_offset_s;
  const int ref_year = year_of_days(floor_div(ref_local, kSecondsPerDay));
  for (int y = ref_year + 1; y >= ref_year - 8; --y) {
    if (!valid_date(y, month, day)) continue;
    const int64_t t = days_from_civil(y, static_cast<unsigned>(month), static_cast<unsigned>(day)) *
                          kSecondsPerDay +
                      seconds_of_day;
    if (t <= ref_local + kSecondsPerDay) return y;
  }
  return ref_year;
}

}  // namespace ibw::ingest
