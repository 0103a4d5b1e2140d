// The steps of one umad counter sweep (ingest/poller_detail.h): capabilities known, a
// target's or a switch sum's answer or timeout, and what follows from each (more requests, a
// sample, the switch-sum memory).
#include <infiniband/mad.h>

#include <cstring>

#include "ingest/poller_detail.h"

namespace ibw::ingest::poller_detail {

// caps null: the LID did not answer, its targets are unresponsive.
void UmadPoller::caps_known(Sweep& s, uint16_t lid, const PmaCapabilities* caps, bool cache) {
  auto it = s.waiting_for_caps.find(lid);
  if (it == s.waiting_for_caps.end()) return;
  std::vector<uint32_t> waiting = std::move(it->second);
  s.waiting_for_caps.erase(it);
  if (caps && cache) caps_[lid] = CachedCaps{(*s.targets)[waiting.front()].node_guid, *caps};
  if (caps && waiting.size() >= 2 && options_.switch_sums) {  // nothing sent yet (sweep())
    start_lid(s, lid, waiting, *caps);
    return;
  }
  for (uint32_t i : waiting) {
    if (caps) {
      TargetState& st = s.state[i];  // PortCounters is already on its way (sweep())
      st.caps = *caps;
      st.want_ext = s.full ? caps->extended() : caps->extended_errors();
      st.caps_known = true;
      if (st.want_ext && !st.finished) s.pending.push_back(Request{Query::counters_ext, i});
      finish(s, i);
    } else {
      s.unresponsive[i] = 1;
      s.state[i].finished = true;
    }
  }
}

void UmadPoller::start_counters(Sweep& s, uint32_t index, const PmaCapabilities& caps) {
  TargetState& st = s.state[index];
  st.caps = caps;
  st.caps_known = true;
  // An errors sweep asks one attribute: the one that holds the error counters.
  st.want_pc = s.full || !caps.extended_errors();
  st.want_ext = s.full ? caps.extended() : caps.extended_errors();
  if (st.want_pc) s.pending.push_back(Request{Query::counters, index});
  if (st.want_ext) s.pending.push_back(Request{Query::counters_ext, index});
}

// A LID whose capabilities are known: its sum first when it is a switch with AllPortSelect.
void UmadPoller::start_lid(Sweep& s, uint16_t lid, const std::vector<uint32_t>& targets,
                           const PmaCapabilities& caps) {
  if (!options_.switch_sums || targets.size() < 2 || !caps.all_port_select()) {
    for (uint32_t i : targets) start_counters(s, i, caps);
    return;
  }
  Group g;
  g.lid = lid;
  g.node_guid = (*s.targets)[targets.front()].node_guid;
  g.targets = targets;
  for (uint32_t i : targets) g.ports.push_back((*s.targets)[i].port);
  g.caps = caps;
  g.want_ext = caps.extended_errors();
  auto index = static_cast<uint32_t>(s.groups.size());
  s.groups.push_back(std::move(g));
  s.pending.push_back(Request{Query::sum, index});
  if (s.groups.back().want_ext) s.pending.push_back(Request{Query::sum_ext, index});
}

void UmadPoller::read_ports(Sweep& s, uint32_t group) {
  Group& g = s.groups[group];
  g.finished = true;
  g.per_port = true;
  ++s.result.switches_read;
  for (uint32_t i : g.targets) start_counters(s, i, g.caps);
}

// Both halves of a sum are in: a full sweep reads the ports anyway (the sum is the baseline of
// the next sweep); an errors sweep takes the ports' samples from SwitchSums when it can.
void UmadPoller::sum_answered(Sweep& s, uint32_t group) {
  Group& g = s.groups[group];
  if (g.finished || !g.pc_done || (g.want_ext && !g.pce_done)) return;
  ++s.result.switch_sums;
  g.sum = decode_port_counters(g.pc.data(), g.pce_ok ? g.pce.data() : nullptr, g.caps);
  std::vector<CounterSample> known;
  if (s.full || !sums_.known(g.lid, g.node_guid, g.ports, *g.sum, clock_.now_us(),
                             g.caps.extended(), &known)) {
    read_ports(s, group);
    return;
  }
  g.finished = true;
  for (size_t k = 0; k < g.targets.size(); ++k) {
    TargetState& st = s.state[g.targets[k]];
    st.sample = known[k];
    st.finished = true;
  }
}

// After the sweep: the switches read port by port are the baselines of the next one.
void UmadPoller::remember_groups(Sweep& s) {
  for (const Group& g : s.groups) {
    if (!g.per_port) continue;
    if (!g.sum) {
      sums_.forget(g.lid);
      continue;
    }
    std::vector<const CounterSample*> readings;
    for (uint32_t i : g.targets)
      readings.push_back(s.state[i].sample ? &*s.state[i].sample : nullptr);
    sums_.remember(g.lid, g.node_guid, g.ports, *g.sum, readings);
  }
}

void UmadPoller::finish(Sweep& s, uint32_t index) {
  TargetState& st = s.state[index];
  if (st.finished || !st.caps_known || (st.want_pc && !st.pc_done) || (st.want_ext && !st.pce_done))
    return;
  st.finished = true;
  const PollTarget& t = (*s.targets)[index];
  CounterSample sample =
      decode_port_counters(st.pc.data(), st.pce_ok ? st.pce.data() : nullptr, st.caps);
  if (!s.full && !st.pce_ok) {  // an errors sweep: PortCounters' data fields are not used
    for (unsigned i = 0; i < kCounterCount; ++i)
      if (data_counter_mask() >> i & 1u) sample.value[i] = 0;
    sample.valid &= ~data_counter_mask();
    sample.saturated &= ~data_counter_mask();
    sample.extended = st.caps.extended();  // as this PMA's full readings are
  }
  sample.time_us = st.time_us;
  sample.node_guid = t.node_guid;
  sample.port = t.port;
  st.sample = sample;
}

void UmadPoller::on_answer(Sweep& s, const InFlight& f, int mad_status, const uint8_t* data) {
  uint32_t i = f.request.index;
  if (is_sum(f.request.query)) {
    Group& g = s.groups[i];
    if (g.finished) return;
    bool ok = mad_status == 0;
    if (f.request.query == Query::sum) {
      if (!ok) return read_ports(s, i);  // e.g. a PMA that does not take PortSelect 0xFF
      std::memcpy(g.pc.data(), data, g.pc.size());
      g.pc_done = true;
    } else {
      g.pce_done = true;
      g.pce_ok = ok;
      if (ok) std::memcpy(g.pce.data(), data, g.pce.size());
    }
    return sum_answered(s, i);
  }
  TargetState& st = s.state[i];
  switch (f.request.query) {
    case Query::class_port_info: {
      // A PMA must implement ClassPortInfo; one that rejects it gets the classic attribute only
      // (not cached: the next sweep asks again).
      PmaCapabilities caps = mad_status == 0 ? decode_class_port_info(data) : PmaCapabilities{};
      caps_known(s, (*s.targets)[i].lid, &caps, mad_status == 0);
      return;
    }
    case Query::counters:
      if (st.finished) return;
      if (mad_status != 0) {  // e.g. a port number the PMA does not have
        s.failed[i] = 1;
        st.finished = true;
        return;
      }
      std::memcpy(st.pc.data(), data, st.pc.size());
      st.pc_done = true;
      st.time_us = clock_.now_us();
      break;
    case Query::counters_ext:
      if (st.finished) return;
      st.pce_done = true;
      st.pce_ok = mad_status == 0;
      if (st.pce_ok) std::memcpy(st.pce.data(), data, st.pce.size());
      if (!st.want_pc) {
        st.time_us = clock_.now_us();
        if (!st.pce_ok) {  // the error counters from PortCounters then
          st.want_pc = true;
          s.pending.push_back(Request{Query::counters, i});
        }
      }
      break;
    case Query::sum:
    case Query::sum_ext:
      break;
  }
  finish(s, i);
}

void UmadPoller::on_timeout(Sweep& s, const InFlight& f) {
  Request r = f.request;
  uint32_t i = r.index;
  if (is_sum(r.query) ? s.groups[i].finished
                      : r.query != Query::class_port_info && s.state[i].finished)
    return;
  if (r.attempt < options_.retries) {
    ++r.attempt;
    s.pending.push_front(r);
    return;
  }
  switch (r.query) {
    case Query::class_port_info:
      caps_known(s, (*s.targets)[i].lid, nullptr, false);
      return;
    case Query::counters:
      s.unresponsive[i] = 1;
      s.state[i].finished = true;
      return;
    case Query::counters_ext:  // the classic counters still make a sample
      s.state[i].pce_done = true;
      if (!s.state[i].want_pc) {
        s.state[i].want_pc = true;
        s.pending.push_back(Request{Query::counters, i});
      }
      finish(s, i);
      return;
    case Query::sum:  // the ports one by one then
      read_ports(s, i);
      return;
    case Query::sum_ext:
      s.groups[i].pce_done = true;
      sum_answered(s, i);
      return;
  }
}

}  // namespace ibw::ingest::poller_detail
