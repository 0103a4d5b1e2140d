// The switch-sum judgement and memory of the counter poller (ingest/switch_sums.h).
#include "ingest/switch_sums.h"

namespace ibw::ingest {

uint32_t sum_tracked_mask() {
  uint32_t m = 0;
  for (unsigned i = 0; i < kCounterCount; ++i) {
    auto c = static_cast<Counter>(i);
    if (is_error_counter(c) || c == Counter::PortXmitWait) m |= 1u << i;
  }
  return m;
}

uint32_t data_counter_mask() {
  return ((1u << kCounterCount) - 1) & ~sum_tracked_mask();
}

SumVerdict judge_sum(const CounterSample* previous, const CounterSample& sum) {
  const uint32_t tracked_all = sum_tracked_mask(), data = data_counter_mask();
  const uint32_t tracked = sum.valid & tracked_all;
  bool zero = true;
  for (unsigned i = 0; i < kCounterCount; ++i)
    if ((tracked >> i & 1u) && sum.value[i] != 0) zero = false;
  if (zero && !(sum.saturated & tracked)) return SumVerdict::zero;
  if (!previous || (previous->valid & tracked_all) != tracked || previous->extended != sum.extended)
    return SumVerdict::moved;
  if ((sum.saturated | previous->saturated) & tracked) return SumVerdict::moved;
  for (unsigned i = 0; i < kCounterCount; ++i) {
    uint32_t bit = 1u << i;
    if ((tracked & bit) && (sum.value[i] != previous->value[i] || sum.value[i] == UINT64_MAX))
      return SumVerdict::moved;
    if ((data & bit) && (sum.valid & previous->valid & bit) && sum.value[i] < previous->value[i])
      return SumVerdict::moved;  // went down: a reset by someone else
  }
  return SumVerdict::unchanged;
}

bool SwitchSums::known(uint16_t lid, uint64_t node_guid, const std::vector<int>& ports,
                       const CounterSample& sum, int64_t time_us, bool extended,
                       std::vector<CounterSample>* out) {
  auto it = switches_.find(lid);
  bool same =
      it != switches_.end() && it->second.node_guid == node_guid && it->second.ports == ports;
  SumVerdict v = judge_sum(same ? &it->second.sum : nullptr, sum);
  if (v == SumVerdict::moved) return false;
  const uint32_t tracked = sum.valid & sum_tracked_mask();
  if (v == SumVerdict::unchanged)
    for (unsigned i = 0; i < kCounterCount; ++i)
      if ((tracked >> i & 1u) && sum.value[i] < it->second.port_total[i]) return false;
  if (v == SumVerdict::zero) {
    Switch& sw = switches_[lid];
    sw.node_guid = node_guid;
    sw.ports = ports;
    sw.sum = sum;
    sw.errors.assign(ports.size(), CounterSample{});
    for (size_t p = 0; p < ports.size(); ++p) {
      CounterSample& e = sw.errors[p];
      e.node_guid = node_guid;
      e.port = ports[p];
      e.valid = tracked;
      e.extended = extended;
    }
    it = switches_.find(lid);
  }
  for (const CounterSample& e : it->second.errors) {
    CounterSample s = e;
    s.time_us = time_us;
    out->push_back(s);
  }
  return true;
}

void SwitchSums::remember(uint16_t lid, uint64_t node_guid, const std::vector<int>& ports,
                          const CounterSample& sum,
                          const std::vector<const CounterSample*>& readings) {
  Switch sw;
  sw.node_guid = node_guid;
  sw.ports = ports;
  sw.sum = sum;
  const uint32_t tracked = sum.valid & sum_tracked_mask();
  for (const CounterSample* r : readings) {
    if (!r || (r->valid & tracked) != tracked) {
      switches_.erase(lid);
      return;
    }
    CounterSample e = *r;
    e.valid &= tracked;
    e.saturated &= tracked;
    for (unsigned i = 0; i < kCounterCount; ++i) {
      if (!(e.valid >> i & 1u)) e.value[i] = 0;
      uint64_t& t = sw.port_total[i];
      t = e.value[i] > UINT64_MAX - t ? UINT64_MAX : t + e.value[i];
    }
    sw.errors.push_back(e);
  }
  switches_[lid] = std::move(sw);
}

}  // namespace ibw::ingest
