#include "rules/history.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <span>

#include "fabric/flat_map.h"
#include "fabric/speed.h"
#include "ingest/ufm/events.h"

namespace ibw::rules {

int64_t longest_window(const RuleSet& rules) {
  int64_t w = 60'000'000;
  for (const auto& r : rules.rules)
    if (r.enabled) w = std::max(w, r.window_us);
  return w;
}

uint32_t exact_counters(const RuleSet& rules) {
  int64_t longest = longest_window(rules);
  uint32_t m = 0;
  auto bit = [](ingest::Counter c) { return 1u << static_cast<unsigned>(c); };
  for (const auto& r : rules.rules) {
    if (!r.enabled || r.window_us != longest) continue;
    if (r.type == RuleType::symbol_errors) m |= bit(ingest::Counter::SymbolErrorCounter);
    if (r.type == RuleType::link_flap || r.confirm == Confirm::errors_and_flap)
      m |= bit(ingest::Counter::LinkDownedCounter);
    if (r.type == RuleType::error_counters)
      for (const auto& lim : r.counters) m |= bit(lim.counter);
  }
  return m;
}

int64_t xmit_wait_window(const RuleSet& rules) {
  int64_t w = 0;
  for (const auto& r : rules.rules) {
    if (!r.enabled) continue;
    bool reads = r.type == RuleType::congestion;
    for (const auto& c : r.counters) reads |= c.counter == ingest::Counter::PortXmitWait;
    if (reads) w = std::max(w, r.window_us);
  }
  return w;
}

double xmit_wait_min_rate(const RuleSet& rules) {
  double slowest_bps = 0;  // one lane of the slowest known speed
  for (auto sp = static_cast<int>(fabric::Speed::sdr); sp <= static_cast<int>(fabric::Speed::xdr);
       ++sp) {
    double bps = link_bps(1, static_cast<fabric::Speed>(sp));
    if (bps > 0 && (slowest_bps == 0 || bps < slowest_bps)) slowest_bps = bps;
  }
  double least = std::numeric_limits<double>::infinity();
  for (const auto& r : rules.rules) {
    if (!r.enabled) continue;
    for (const auto& c : r.counters)
      if (c.counter == ingest::Counter::PortXmitWait) return 0;
    if (r.type != RuleType::congestion || r.wait_ratio <= 0 || r.wait_tick_bits <= 0) continue;
    // (1 - 1e-6): room for rounding, so that a delta at the limit is kept.
    least = std::min(least, wait_rate_at(r.wait_ratio, r.wait_tick_bits, slowest_bps) * (1 - 1e-6));
  }
  return least;
}

void History::follow(const RuleSet& rules) {
  keep_xmit_wait(event_needs(rules).xmit_wait, xmit_wait_window(rules), xmit_wait_min_rate(rules));
  track_exact(exact_counters(rules));
}

EventNeeds event_needs(const RuleSet& rules) {
  EventNeeds n;
  for (const auto& r : rules.rules) {
    if (!r.enabled) continue;
    n.link |= r.type == RuleType::link_flap || r.type == RuleType::congestion ||
              r.confirm == Confirm::errors_and_flap;
    n.ufm_ber |= r.type == RuleType::ufm_high_ber;
  }
  // Congestion rules, and error_counters rules that name PortXmitWait (the same test as the
  // window's, so the two never disagree).
  n.xmit_wait = xmit_wait_window(rules) > 0;
  return n;
}

bool needed(const ingest::Event& e, EventNeeds needs) {
  if (!e.node_guid || !e.port) return false;
  if (e.kind == ingest::kind::link_down || e.kind == ingest::kind::link_up) return needs.link;
  if (e.kind == ingest::ufm_kind::high_ber || e.kind == ingest::ufm_kind::high_ber_cleared)
    return needs.ufm_ber;
  return false;
}

namespace history_detail {

// Bit i set when counter i is an error counter (the ones that make a delta worth keeping).
uint32_t error_mask() {
  static const uint32_t mask = [] {
    uint32_t m = 0;
    for (size_t i = 0; i < ingest::kCounterCount; ++i)
      if (ingest::is_error_counter(static_cast<ingest::Counter>(i))) m |= 1u << i;
    return m;
  }();
  return mask;
}

template <typename T>
void free_vector(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

}  // namespace history_detail

size_t History::locate(uint64_t k, size_t near, size_t near2) const {
  // Keys are unique in entries_ except UINT64_MAX, which the index cannot hold (never found).
  if (k == UINT64_MAX) return npos;
  if (near < entries_.size() && entries_[near].key == k) return near;
  if (near2 < entries_.size() && entries_[near2].key == k) return near2;
  auto at = index_.find(k);
  return at ? *at : npos;
}

void History::track_exact(uint32_t counters) {
  tracked_ = {};
  size_t k = 0;
  for (size_t i = 0; i < DeltaBounds::kCounters && k < ExactStats::kSlots; ++i)
    if (counters >> i & 1u) tracked_.counter[k++] = static_cast<uint8_t>(i);
  for (auto& e : entries_) e.exact = kNoExact;  // made again at a delta of the counter
  exact_pool_.clear(), exact_free_.clear();
}

void History::renew_bounds(const Entry& e) {
  DeltaBounds& b = bounds_of(e);
  b = {};
  for (const auto& x : e.live()) b.add(x);
}

void History::take_exact(Entry& e) {
  if (exact_free_.empty()) {
    e.exact = static_cast<uint32_t>(exact_pool_.size());
    exact_pool_.push_back(tracked_);
  } else {
    e.exact = exact_free_.back();
    exact_free_.pop_back();
    exact_pool_[e.exact] = tracked_;
  }
}

void History::drop_exact(Entry& e) {
  if (e.exact == kNoExact) return;
  exact_free_.push_back(e.exact);
  e.exact = kNoExact;
}

void History::renew_exact(Entry& e) {
  ExactStats& x = *exact_of(e);
  x.clear();
  for (const auto& d : e.live()) x.add(d);
  x.active = true, x.wanted = false;
}

History::Entry& History::slot(uint64_t guid, int port) {
  uint64_t k = key(guid, port);
  size_t at = locate(k, next_);
  if (at == npos) {  // new (or the one key FlatMap64 cannot hold: a new entry each time)
    at = entries_.size();
    index_.emplace(k, static_cast<uint32_t>(at));
    entries_.emplace_back();
    entries_.back().key = k;
    bounds_.emplace_back();
  }
  next_ = at + 1;
  prefetch_append(at + kPrefetchAhead);  // the next calls most likely name the next entries
  Entry& e = entries_[at];
  if (e.empty()) ++live_;
  return e;
}

bool History::rises(const ingest::CounterDelta& d) const {
  // Only the counters in the mask are read (a loop over every counter cost 10% of a busy
  // sweep's history work at k=64).
  for (uint32_t m = d.valid & history_detail::error_mask(); m; m &= m - 1)
    if (d.delta[static_cast<size_t>(std::countr_zero(m))]) return true;
  constexpr auto kWait = static_cast<size_t>(ingest::Counter::PortXmitWait);
  if (!keep_wait_ || !(d.valid >> kWait & 1u) || !d.delta[kWait]) return false;
  if (wait_min_rate_ <= 0) return true;
  return per_second(d.delta[kWait], d.interval_us) >= wait_min_rate_;
}

size_t History::add_deltas(const std::vector<ingest::CounterDelta>& deltas) {
  size_t kept = 0;
  if (deltas.size() < kRoomAbove || entries_.size() * 4 >= deltas.size()) {
    for (const auto& d : deltas) kept += add_delta(d);
    return kept;
  }
  // Few entries for this many deltas: find the ones kept first (the same test add_delta
  // makes), then room for an entry each (at most that many are new).
  std::vector<uint32_t> rising;
  for (size_t i = 0; i < deltas.size(); ++i) {
    if (i + kScanAhead < deltas.size()) {  // what rises() reads (no stream a prefetcher sees)
      prefetch_read(&deltas[i + kScanAhead].valid);
      prefetch_read(&deltas[i + kScanAhead].delta[ingest::kCounterCount / 2]);
    }
    if (rises(deltas[i])) rising.push_back(static_cast<uint32_t>(i));
  }
  const size_t want = entries_.size() + rising.size();
  if (want > entries_.capacity()) {
    const size_t room = std::max(want, 2 * entries_.capacity());  // still amortized
    entries_.reserve(room);
    bounds_.reserve(room);
    index_.reserve(room);
  }
  for (const uint32_t i : rising) kept += add_delta(deltas[i]);
  return kept;
}

bool History::add_delta(const ingest::CounterDelta& d) {
  if (!rises(d)) return false;
  if (!floors_.empty()) {
    auto f = floors_.find(key(d.sample.node_guid, d.sample.port));
    if (f != floors_.end() && d.sample.time_us - d.interval_us < f->second) return false;
  }
  Entry& e = slot(d.sample.node_guid, d.sample.port);
  auto& q = e.deltas;
  if (e.head && q.size() == q.capacity()) {  // drop the pruned ones instead of growing
    q.erase(q.begin(), q.begin() + e.head);
    e.head = 0;
    renew_bounds(e);  // the exact figures are over the same live deltas still
  }
  int64_t t = d.sample.time_us;
  WindowDelta w = WindowDelta::of(d);
  bounds_of(e).add(w);
  if (e.exact == kNoExact && tracked_.counter[0] != ExactStats::kUnused) {
    size_t c = tracked_.counter[0];
    if ((w.valid >> c & 1u) && w.delta[c]) take_exact(e);
  }
  if (ExactStats* x = exact_of(e); x && x->active) x->add(w);  // any order: counts, maxima
  if (q.size() == e.head || e.last <= t) {  // e.last, not q.back(): no read of the block
    q.push_back(w);
    e.last = t;
  } else {
    auto at = std::upper_bound(q.begin() + e.head, q.end(), t,
                               [](int64_t x, const WindowDelta& y) { return x < y.time_us; });
    q.insert(at, w);
  }
  return true;
}

void History::add_link_event(uint64_t node_guid, int port, int64_t time_us, bool down) {
  if (!floors_.empty()) {
    auto f = floors_.find(key(node_guid, port));
    if (f != floors_.end() && time_us < f->second) return;
  }
  auto& q = slot(node_guid, port).events;
  LinkEvent e{time_us, down, false};
  auto at = std::upper_bound(q.begin(), q.end(), time_us,
                             [](int64_t t, const LinkEvent& x) { return t < x.time_us; });
  q.insert(at, e);
}

void History::add_ber_event(const ingest::Event& e) {
  auto& q = slot(e.node_guid, e.port).ber;
  BerEvent b{e.time_us, e.kind == ingest::ufm_kind::high_ber_cleared, e.severity, e.source,
             e.message};
  auto at = std::upper_bound(q.begin(), q.end(), e.time_us,
                             [](int64_t t, const BerEvent& x) { return t < x.time_us; });
  q.insert(at, std::move(b));
}

bool History::add_event(const ingest::Event& e) {
  if (!e.node_guid || !e.port) return false;
  bool down = e.kind == ingest::kind::link_down;
  if (down || e.kind == ingest::kind::link_up) {
    add_link_event(e.node_guid, e.port, e.time_us, down);
    return true;
  }
  if (e.kind != ingest::ufm_kind::high_ber && e.kind != ingest::ufm_kind::high_ber_cleared)
    return false;
  add_ber_event(e);
  return true;
}

void History::release(Entry& e) {
  e.head = 0;
  bounds_of(e) = {};
  drop_exact(e);
  history_detail::free_vector(e.deltas);
  history_detail::free_vector(e.events);
  history_detail::free_vector(e.ber);
}

void History::prune(int64_t now_us) {
  int64_t cutoff = now_us - keep_us_;
  size_t emptied = 0;
  auto after = [&](const auto& x) { return x.time_us > cutoff; };
  // Deltas where only PortXmitWait rose go after its own window, wherever they are: at the
  // front with the rest, behind a delta with errors by drop_old_waits (what congestion looks
  // at is the end of the window, which this never touches).
  const bool wait_shorter = keep_wait_ && wait_keep_us_ > 0 && wait_keep_us_ < keep_us_;
  const int64_t wait_cutoff = now_us - wait_keep_us_;
  auto kept = [&](const WindowDelta& d) {
    return after(d) && (!wait_shorter || d.time_us > wait_cutoff || !DeltaBounds::waits_only(d));
  };
  for (size_t at = 0; at < entries_.size(); ++at) {
    Entry& e = entries_[at];
    prefetch_head(at + kPrefetchAhead);
    if (e.empty()) {
      ++emptied;
      continue;
    }
    auto keep = std::find_if(e.deltas.begin() + e.head, e.deltas.end(), kept);
    ExactStats* x = exact_of(e);
    DeltaBounds& b = bounds_of(e);
    bool exact = true, active = x && x->active;
    int64_t next_first = keep == e.deltas.end() ? 0 : keep->time_us;  // read by find_if
    for (auto it = e.deltas.begin() + e.head; it != keep; ++it) {
      b.remove(*it);
      if (active) exact &= x->remove(*it, next_first);
    }
    e.head = static_cast<uint32_t>(keep - e.deltas.begin());
    if (wait_shorter && keep != e.deltas.end() && b.only_wait)  // (none on a failing port)
      exact &= drop_old_waits(e, keep - e.deltas.begin(), wait_cutoff, active ? x : nullptr);
    if (e.head == e.deltas.size()) {
      e.deltas.clear(), e.head = 0, b = {};
      if (x) x->clear();
    } else if (!exact || (!active && x && x->wanted)) {  // a maximum left, or now wanted
      renew_exact(e);
    }
    e.events.erase(e.events.begin(), std::find_if(e.events.begin(), e.events.end(), after));
    e.ber.erase(e.ber.begin(), std::find_if(e.ber.begin(), e.ber.end(), after));
    if (e.empty()) release(e), --live_, ++emptied;
  }
  if (emptied > 1024 && emptied > live_) compact();
  std::erase_if(floors_, [&](const auto& f) { return f.second <= cutoff; });
}

bool History::drop_old_waits(Entry& e, size_t first, int64_t wait_cutoff, ExactStats* x) {
  // deltas[first] is kept (it has errors, or it is recent); the wait-only ones after it that
  // are as old as the cutoff go, the others move up in place.
  auto& q = e.deltas;
  const int64_t first_time = q[first].time_us;
  size_t out = first + 1, at = first + 1;
  DeltaBounds& b = bounds_of(e);
  bool exact = true;
  for (; at < q.size() && q[at].time_us <= wait_cutoff; ++at) {
    if (!DeltaBounds::waits_only(q[at])) {
      q[out++] = q[at];
      continue;
    }
    b.remove(q[at]);
    if (x) exact &= x->remove(q[at], first_time);
  }
  if (out == at) return true;
  q.erase(q.begin() + static_cast<ptrdiff_t>(out), q.begin() + static_cast<ptrdiff_t>(at));
  e.last = q.back().time_us;
  if (x) x->last = e.last;  // ExactStats::remove keeps the view's end: the last may have gone
  return exact;
}

void History::compact() {
  std::vector<Entry> kept;
  std::vector<DeltaBounds> kept_bounds;
  kept.reserve(live_), kept_bounds.reserve(live_);
  for (size_t i = 0; i < entries_.size(); ++i)
    if (!entries_[i].empty())
      kept.push_back(std::move(entries_[i])), kept_bounds.push_back(bounds_[i]);
  entries_.swap(kept), bounds_.swap(kept_bounds);
  index_.clear();
  index_.reserve(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i)
    index_.emplace(entries_[i].key, static_cast<uint32_t>(i));
}

void History::clear_port(uint64_t node_guid, int port) {
  auto at = index_.find(key(node_guid, port));
  if (!at) return;
  Entry& e = entries_[*at];
  if (!e.empty()) --live_;
  release(e);
}

void History::set_floor(uint64_t node_guid, int port, int64_t since_us) {
  int64_t& f = floors_[key(node_guid, port)];
  if (since_us <= f) return;  // floored there or later already
  f = since_us;
  clear_port(node_guid, port);
}

int64_t History::floor_of(uint64_t node_guid, int port) const {
  auto f = floors_.find(key(node_guid, port));
  return f == floors_.end() ? 0 : f->second;
}

}  // namespace ibw::rules
