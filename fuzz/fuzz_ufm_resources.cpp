// Feeds UFM REST answers to the resource parsers: GET /app/alarms (parse_ufm_alarms),
// /resources/ports (parse_ufm_ports), /resources/links (parse_ufm_links, plain and paged),
// /app/unhealthy_ports (parse_ufm_unhealthy_ports) and /jobs/<id> (parse_ufm_job); then
// uses the records as the daemon does: alarm events and the alarm tracker (with its cursor),
// port states from ports + links, the port index resolving alarm objects. Every input goes
// to every parser. The lenient parsers must never throw.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "ingest/ufm/alarm_tracker.h"
#include "ingest/ufm/port_state.h"
#include "ingest/ufm/resources.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibw::ingest;
  constexpr int64_t kNow = int64_t{1'795'000'000} * 1'000'000;
  std::string_view text = ibw::fuzz::as_text(data, size);
  UfmTimeContext tc;

  UfmParsed<UfmAlarm> alarms = parse_ufm_alarms(text, tc);
  UfmParsed<UfmPort> ports = parse_ufm_ports(text);
  UfmParsed<UfmLink> links = parse_ufm_links(text);
  (void)parse_ufm_unhealthy_ports(text);
  (void)parse_ufm_job(text);

  UfmPortIndex index(ports.items);
  for (UfmAlarm& a : alarms.items) {
    index.resolve(a.object);
    (void)ufm_alarm_event(a, kNow);
  }
  UfmAlarmTracker tracker;
  tracker.update(alarms.items);
  UfmAlarmTracker restored(tracker.cursor());
  if (restored.open() != tracker.open()) __builtin_trap();  // the cursor round-trips
  UfmAlarmTracker from_input{std::string(text)};            // a stored cursor is input too
  (void)from_input.update(alarms.items);

  UfmPortStates states;
  UfmPortChanges changes = states.update(ufm_port_states(ports.items, &links.items, kNow), kNow);
  (void)changes;
  return 0;
}
