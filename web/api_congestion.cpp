// GET /congestion: the daemon's current congestion findings (web/backend.h,
// ApiBackend::congestion), for the port grid's congestion heat. Congestion is a signal, not a
// fault: these findings never become decisions or work orders.
#include "web/api_core.h"

namespace ibw::web {

// {"ports": [...], "findings_total": N}; the own fabric only (the findings are live state).
// GET /routes/check: the daemon's last route check (credit loops, unreachable pairs, balance,
// OpenSM's routing engine), for the Routes page.
Response ApiCore::get_route_check(Call& c) {
  (void)c;
  return json_response(200, ordered(backend_.route_check()));
}

Response ApiCore::get_congestion(Call& c) {
  only_own_fabric(c);
  return json_response(200, ordered(backend_.congestion()));
}

}  // namespace ibw::web
