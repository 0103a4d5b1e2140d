#include "ingest/counter_tracker.h"

#include <cstdio>
#include <string>

namespace ibw::ingest {
namespace tracker_detail {

// PortXmitData/PortRcvData/PortXmitPkts/PortRcvPkts: 32 bits classic, 64 bits extended.
constexpr uint32_t kWidthSwitchingCounters = (1u << static_cast<unsigned>(Counter::PortXmitData)) |
                                             (1u << static_cast<unsigned>(Counter::PortRcvData)) |
                                             (1u << static_cast<unsigned>(Counter::PortXmitPkts)) |
                                             (1u << static_cast<unsigned>(Counter::PortRcvPkts));

constexpr unsigned kFirstData = static_cast<unsigned>(Counter::PortXmitData);
static_assert(kWidthSwitchingCounters == 0xFu << kFirstData);

uint64_t port_key(uint64_t node_guid, int port) {
  return node_guid * 256 + static_cast<uint64_t>(port & 0xff);
}

Event counter_event(const CounterSample& s, std::string_view kind, Severity severity,
                    std::string message, std::string_view what) {
  Event e;
  e.time_us = s.time_us;
  e.source = EventSource::counters;
  e.kind = kind;
  e.severity = severity;
  e.node_guid = s.node_guid;
  e.port = s.port;
  e.message = std::move(message);
  char key[96];
  std::snprintf(key, sizeof key,
                "counters:%016llx:%d:%lld:", static_cast<unsigned long long>(s.node_guid), s.port,
                static_cast<long long>(s.time_us));
  e.dedup_key = std::string(key) + std::string(kind) + ":" + std::string(what);
  return e;
}

std::string seconds_text(int64_t us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(us) / 1e6);
  return buf;
}

}  // namespace tracker_detail

CounterDelta CounterTracker::update(const CounterSample& sample, std::vector<Event>* events) {
  CounterDelta d;
  update(sample, events, d);
  return d;
}

void CounterTracker::update(const CounterSample& sample, std::vector<Event>* events,
                            CounterDelta& out) {
  fold(ports_[tracker_detail::port_key(sample.node_guid, sample.port)], sample, events, out);
}

bool CounterTracker::update_newer(const CounterSample& sample, std::vector<Event>* events,
                                  CounterDelta& out) {
  State& st = ports_[tracker_detail::port_key(sample.node_guid, sample.port)];
  if (st.have && sample.time_us <= st.last.time_us) return false;
  fold(st, sample, events, out);
  return true;
}

void CounterTracker::fold(State& st, const CounterSample& sample, std::vector<Event>* events,
                          CounterDelta& d) const {
  using namespace tracker_detail;
  d.sample = sample;
  d.valid = d.at_least = d.reset = d.rate_carried = 0;
  d.interval_us = 0;
  st.unresponsive = false;  // it answered
  const bool has_data = sample.valid & kWidthSwitchingCounters;
  if (!st.have) {
    d.delta = {};
    d.rate = {};
    st.last = sample;
    st.data_time_us = sample.time_us;
    st.have = true;
    return;
  }
  const CounterSample& prev = st.last;
  d.interval_us = sample.time_us - prev.time_us;
  const int64_t data_interval_us = sample.time_us - st.data_time_us;
  // A switch between 32-bit and 64-bit data counters is a new baseline, not a reset.
  uint32_t comparable = sample.valid & prev.valid;
  if (sample.extended != prev.extended) comparable &= ~kWidthSwitchingCounters;

  std::string reset_names;
  for (unsigned i = 0; i < kCounterCount; ++i) {
    uint32_t bit = 1u << i;
    d.delta[i] = 0;
    d.rate[i] = 0.0;
    if (!(comparable & bit)) continue;
    uint64_t now = sample.value[i], before = prev.value[i];
    if (now < before) {  // cleared by someone else: counts from zero again
      d.delta[i] = now;
      d.reset |= bit;
      char buf[96];
      std::snprintf(buf, sizeof buf, "%s%s %llu -> %llu", reset_names.empty() ? "" : ", ",
                    std::string(counter_name(static_cast<Counter>(i))).c_str(),
                    static_cast<unsigned long long>(before), static_cast<unsigned long long>(now));
      reset_names += buf;
    } else {
      d.delta[i] = now - before;  // when saturated: at least this much
    }
    if (sample.saturated & bit) d.at_least |= bit;
    d.valid |= bit;
    int64_t interval = (bit & kWidthSwitchingCounters) ? data_interval_us : d.interval_us;
    d.rate[i] =
        interval > 0 ? static_cast<double>(d.delta[i]) * 1e6 / static_cast<double>(interval) : 0.0;
  }
  for (unsigned k = 0; k < st.data_rate.size(); ++k) {
    uint32_t bit = 1u << (kFirstData + k);
    if (has_data) {  // these rates are the ones to carry from now on
      st.data_rate[k] = static_cast<float>(d.rate[kFirstData + k]);
      st.data_rate_known = static_cast<uint8_t>((st.data_rate_known & ~(1u << k)) |
                                                ((d.valid & bit) ? 1u << k : 0u));
    } else if (st.data_rate_known >> k & 1u) {
      d.rate[kFirstData + k] = st.data_rate[k];
      d.rate_carried |= bit;
    }
  }

  if (events) {
    if (d.reset) {
      events->push_back(counter_event(sample, kind::counter_reset, Severity::info,
                                      "counters reset since the previous reading: " + reset_names,
                                      "reset"));
    }
    for (unsigned i = 0; i < kCounterCount; ++i) {
      auto c = static_cast<Counter>(i);
      uint32_t bit = 1u << i;
      if (!(d.valid & bit) || !is_error_counter(c) || d.delta[i] < options_.jump_threshold ||
          d.delta[i] == 0)
        continue;
      std::string name(counter_name(c));
      std::string msg =
          name + " rose by " + (d.at_least & bit ? "at least " : "") + std::to_string(d.delta[i]) +
          " in " + seconds_text(d.interval_us) + " (now " + std::to_string(sample.value[i]) +
          (d.at_least & bit ? ", saturated" : "") + (d.reset & bit ? ", after a reset" : "") + ")";
      events->push_back(
          counter_event(sample, kind::counter_jump, Severity::warning, std::move(msg), name));
    }
  }
  if (has_data) {
    st.last = sample;
    st.data_time_us = sample.time_us;
  } else {  // keep the data counters' baseline
    CounterSample merged = sample;
    for (unsigned i = kFirstData; i < kFirstData + 4; ++i) merged.value[i] = prev.value[i];
    merged.valid |= prev.valid & kWidthSwitchingCounters;
    merged.saturated |= prev.saturated & kWidthSwitchingCounters;
    merged.extended = prev.extended;
    st.last = merged;
  }
}

void CounterTracker::unresponsive(uint64_t node_guid, int port, int64_t time_us,
                                  std::vector<Event>* events) {
  State& st = ports_[tracker_detail::port_key(node_guid, port)];
  if (st.unresponsive) return;
  st.unresponsive = true;
  if (!events) return;
  CounterSample where;
  where.node_guid = node_guid;
  where.port = port;
  where.time_us = time_us;
  events->push_back(tracker_detail::counter_event(
      where, kind::port_unresponsive, Severity::warning,
      "the port's performance manager agent did not answer PortCounters", "unresponsive"));
}

void CounterTracker::seed(const CounterSample& sample) {
  State& st = ports_[tracker_detail::port_key(sample.node_guid, sample.port)];
  st.last = sample;
  st.data_time_us = sample.time_us;
  st.data_rate_known = 0;
  st.have = true;
  st.unresponsive = false;
}

}  // namespace ibw::ingest
