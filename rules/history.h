// History: the recent past of every port that rule windows need, kept between sweeps by the
// daemon (and by `ibwarden replay`). It holds counter deltas with a non-zero error counter
// (a clean sweep adds nothing, so a healthy fabric costs no memory), link down/up events and
// UFM's BER verdicts (high_ber / high_ber_cleared), each for `keep_us` (the longest rule
// window), and builds rules::PortWindow records for evaluate(): a port's own deltas and
// events plus its peer's link events (from_peer), since either end may report a flap.
// Callers feed only the event kinds the loaded rules use (event_needs / needed).
// Pure bookkeeping: no I/O, no clock (times come from the data and the caller). Not
// thread-safe.
//
// Layout (sized for 200k ports with errors everywhere): one flat array of per-port entries
// (three vectors each, no deques: an empty std::deque costs ~600 bytes) behind an
// open-addressing index; a port whose history empties keeps its slot (its memory is freed) and
// the array is compacted when such slots outnumber the live ones. Pruned deltas are dropped
// from the front of a port's vector in bulk (a head offset), so a steady sweep costs one
// append per erroring port instead of shifting the whole window. Each port keeps
// DeltaBounds over its deltas (sums kept exact, maxima renewed when the vector is compacted)
// and lends them with its windows, and ExactStats of the counters the owner tracks. Entries
// stay small (96 bytes: bounds in a parallel array, the last delta's time inline), and the
// passes over them prefetch each port's deltas a few entries ahead: on a fabric failing
// everywhere the sweep was bound by one cache miss per port and pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "fabric/flat_map.h"
#include "fabric/prefetch.h"
#include "rules/evaluate.h"

namespace ibw::rules {

using fabric::prefetch_read;
using fabric::prefetch_write;

// What the caller knows of a port's link (from the topology and the plan).
struct LinkInfo {
  uint64_t node_guid = 0;
  int port = 0;
  uint64_t peer_guid = 0;
  int peer_port = 0;
  int active_width = 0;
  fabric::Speed active_speed = fabric::Speed::unknown;
  int plan_width = 0;
  fabric::Speed plan_speed = fabric::Speed::unknown;
  int enabled_width = 0;
  fabric::Speed enabled_speed = fabric::Speed::unknown;
  bool switch_node = false;  // node_guid is a switch (incidents tell switches from hosts)
  bool peer_switch = false;  // peer_guid is a switch
  // Where the peer's LinkInfo is in the same list (link_peers() sets it), kNoPeerIndex when
  // not known. A topology lists ports node by node, so a link's two ends lie far apart:
  // with it, windows() and evaluate() reach the peer without a lookup per port.
  uint32_t peer_index = kNoPeerIndex;
  static constexpr uint32_t kNoPeerIndex = UINT32_MAX;
};

// Sets every link's peer_index (the first link naming its peer port; kNoPeerIndex when no
// link does). For a list the caller keeps and evaluates again and again (the topology's).
void link_peers(std::vector<LinkInfo>& links);

// The longest window any enabled rule looks at (at least one minute).
int64_t longest_window(const RuleSet& rules);

// The counters (bit i: counter i) that enabled rules sum over a window as long as the longest
// (History::track_exact keeps exact figures of them).
uint32_t exact_counters(const RuleSet& rules);

// How long the enabled rules look back at PortXmitWait (congestion rules, and error_counters
// rules that name it); 0 when none does.
int64_t xmit_wait_window(const RuleSet& rules);

// The least PortXmitWait rate (ticks per second) a delta where only PortXmitWait rose must
// show to be worth keeping: under it no enabled rule can fire on it, on any link. Congestion
// rules compare each delta's wait ratio, rate x wait_tick_bits / link rate, with wait_ratio,
// and no link is slower than one lane of the slowest speed; so on a busy fabric, whose ports
// all wait a little every sweep, those deltas make no history entry. 0 when an enabled
// error_counters rule names PortXmitWait (small waits add up to its limits): every rise.
double xmit_wait_min_rate(const RuleSet& rules);

// Which event kinds the enabled rules look at; the others need not be kept.
struct EventNeeds {
  bool link = false;     // link_down / link_up: link_flap, congestion, confirm errors_and_flap
  bool ufm_ber = false;  // high_ber / high_ber_cleared: ufm_high_ber
  // Not an event: deltas where only PortXmitWait rose are kept too (congestion rules, and
  // error_counters rules that name PortXmitWait: xmit_wait_window() > 0).
  bool xmit_wait = false;
};
EventNeeds event_needs(const RuleSet& rules);
// True when e names a port and its kind is one `needs` asks for.
bool needed(const ingest::Event& e, EventNeeds needs);

class History {
 public:
  explicit History(int64_t keep_us) : keep_us_(keep_us) {}
  void set_keep(int64_t keep_us) { keep_us_ = keep_us; }

  // Keeps the delta when one of its error counters rose (or PortXmitWait, once
  // keep_xmit_wait(true): congestion rules read it); returns whether it was kept.
  bool add_delta(const ingest::CounterDelta& d);
  // add_delta() for each; returns how many were kept. A batch much larger than the history
  // (the first scrape with deltas: with congestion rules, PortXmitWait rose on most ports of
  // a busy fabric) first makes room for all it keeps at once: growing the entries, their
  // bounds and the index one doubling at a time copied them about 19 times at k=64.
  size_t add_deltas(const std::vector<ingest::CounterDelta>& deltas);
  // for_us (0: as long as the rest): how long a delta kept only because PortXmitWait rose
  // (no other counter rules read rose) is kept. Congestion rules look back a minute where
  // symbol_ber looks back 12: on a busy fabric, where nearly every port waits every sweep,
  // keeping those deltas as long as errors cost 12 per port (430 MB at k=64).
  // min_rate: a wait-only delta under this PortXmitWait rate is not kept (xmit_wait_min_rate).
  void keep_xmit_wait(bool on, int64_t for_us = 0, double min_rate = 0) {
    keep_wait_ = on, wait_keep_us_ = for_us, wait_min_rate_ = min_rate;
  }
  // keep_xmit_wait and track_exact as the rules need them (what RuleRunner sets up).
  void follow(const RuleSet& rules);
  // Keeps ExactStats of these counters (bit i: counter i; the first ExactStats::kSlots of
  // them that DeltaBounds covers) for the ports whose windows want them, and lends them.
  void track_exact(uint32_t counters);
  void add_link_event(uint64_t node_guid, int port, int64_t time_us, bool down);
  // A high_ber or high_ber_cleared event of a port (time, severity, source, message kept).
  void add_ber_event(const ingest::Event& e);
  // link_down / link_up -> add_link_event, high_ber(_cleared) -> add_ber_event; false (and
  // nothing kept) for other kinds or events without a port.
  bool add_event(const ingest::Event& e);
  // Forgets what is older than now - keep.
  void prune(int64_t now_us);
  // Forgets one port's past (after a repair: old errors must not judge the new cable).
  void clear_port(uint64_t node_guid, int port);
  // After a repair at since_us: forgets the port's past and from now on drops what began
  // before since_us: a delta whose reading interval started earlier (errors counted while
  // the port was disabled reach the first reading after the enable) and older link events.
  // Floors end with the keep window (by then no such data can come). An earlier floor than
  // the port's present one changes nothing.
  void set_floor(uint64_t node_guid, int port, int64_t since_us);
  // The port's floor, 0 when none.
  int64_t floor_of(uint64_t node_guid, int port) const;

  // True when the port or its peer has anything in the history.
  bool has_data(const LinkInfo& link) const;
  // The window borrows this history's deltas (PortWindow::delta_view): use it before the
  // next add/prune/clear.
  PortWindow window(const LinkInfo& link) const;
  // Windows for every link with data on either end or running below its plan/enabled rate
  // (others cannot fire), plus the peers of those links. Input order is kept.
  std::vector<PortWindow> windows(const std::vector<LinkInfo>& links) const;

  // Ports with anything in the history.
  size_t ports() const { return live_; }
  // A port's key in the index (and link_peers()'s).
  static uint64_t key(uint64_t guid, int port) { return guid * 257 + static_cast<uint64_t>(port); }

 private:
  static constexpr uint32_t kNoExact = UINT32_MAX;
  struct Entry {
    uint64_t key = 0;
    uint32_t head = 0;  // deltas[0, head) are pruned, dropped in bulk later
    // Its exact figures (over deltas[head, end) when active): a place in exact_pool_, taken
    // at the first non-zero delta of the tracked counter; most ports with errors never see
    // one, and none costs a heap block of its own (100k of them fragmented the heap).
    uint32_t exact = kNoExact;
    // The time of the last delta while any is live: an append compares with it (reading
    // the delta itself cost a cache miss per port and sweep: each port's deltas lie apart).
    int64_t last = 0;
    std::vector<WindowDelta> deltas;  // time-ordered from head on
    std::vector<LinkEvent> events;    // own events (from_peer false), time-ordered
    std::vector<BerEvent> ber;        // own UFM BER verdicts, time-ordered
    bool empty() const { return head == deltas.size() && events.empty() && ber.empty(); }
    std::span<const WindowDelta> live() const {
      return {deltas.data() + head, deltas.size() - head};
    }
  };
  const Entry* find(uint64_t guid, int port) const;
  bool rises(const ingest::CounterDelta& d) const;  // add_delta() keeps it (floors aside)
  static constexpr size_t kRoomAbove = 4096;        // add_deltas() makes room from this size on
  // The position of key k in entries_, trying `near` and `near2` (where the caller expects
  // it) before the index: a sweep and a link list name ports in the order their entries were
  // made, so a right guess saves a random index access per port. npos when missing.
  static constexpr size_t npos = SIZE_MAX;
  size_t locate(uint64_t k, size_t near, size_t near2 = npos) const;
  // The port's entry, made when missing; counts it live again when it was empty.
  Entry& slot(uint64_t guid, int port);
  // Ask for the delta of entry `at` that prune reads first (head) or the place where
  // add_delta appends, while earlier entries are worked on. Each port's deltas are a heap
  // block of their own, so a pass over the entries waited on one cache miss per port; asked
  // for this far ahead, the misses of several ports overlap (the all-failing sweep of 100k
  // ports: prune 11 -> 7 ms, appends 11 -> 7 ms).
  static constexpr size_t kPrefetchAhead = 8;
  // add_deltas' first pass asks for the two cache lines rises() reads of each CounterDelta
  // (of its seven) this far ahead: no stream a hardware prefetcher follows (a clean sweep of
  // 100k ports: 3.6 -> 2.4 ms).
  static constexpr size_t kScanAhead = 8;
  void prefetch_head(size_t at) const {
    if (at >= entries_.size()) return;
    const Entry& e = entries_[at];
    if (e.head < e.deltas.size()) prefetch_read(e.deltas.data() + e.head);
  }
  void prefetch_append(size_t at) const {
    if (at >= entries_.size()) return;
    const Entry& e = entries_[at];
    if (e.deltas.size() < e.deltas.capacity()) prefetch_write(e.deltas.data() + e.deltas.size());
  }
  // prune(): drops the deltas of e after deltas[first] (kept) where only PortXmitWait rose
  // and that are no later than wait_cutoff, keeping e's bounds and x (its active exact
  // figures, or null) current; false when x must be renewed. On a fabric where every port
  // waits every sweep, a port with one error in the longest window kept every wait delta
  // after it (a 15-minute k=64 lab: 66 -> 234 MB of deltas, still growing).
  bool drop_old_waits(Entry& e, size_t first, int64_t wait_cutoff, ExactStats* x);
  void release(Entry& e);             // frees an emptied entry's memory
  void compact();                     // drops emptied entries and rebuilds the index
  void renew_bounds(const Entry& e);  // e's bounds over its live deltas (maxima renewed)
  // e's DeltaBounds (over deltas[head, end)): kept beside entries_, in bounds_, so that the
  // passes that do not read them (windows(), most of prune) walk 100-byte entries instead of
  // 370-byte ones.
  DeltaBounds& bounds_of(const Entry& e) { return bounds_[at(e)]; }
  const DeltaBounds& bounds_of(const Entry& e) const { return bounds_[at(e)]; }
  size_t at(const Entry& e) const { return static_cast<size_t>(&e - entries_.data()); }
  void renew_exact(Entry& e);  // e's exact figures over its live deltas, active
  ExactStats* exact_of(const Entry& e) {
    return e.exact == kNoExact ? nullptr : &exact_pool_[e.exact];
  }
  const ExactStats* exact_of(const Entry& e) const {
    return e.exact == kNoExact ? nullptr : &exact_pool_[e.exact];
  }
  void take_exact(Entry& e);  // a place in the pool for e's figures, inactive
  void drop_exact(Entry& e);  // gives e's figures' place back to the pool
  void window_into(const LinkInfo& link, const Entry* own, const Entry* peer, PortWindow* w) const;

  int64_t keep_us_;
  bool keep_wait_ = false;
  int64_t wait_keep_us_ = 0;
  double wait_min_rate_ = 0;
  ExactStats tracked_;                  // what new figures start as: the tracked counters, inactive
  std::vector<ExactStats> exact_pool_;  // entries' figures (Entry::exact)
  std::vector<uint32_t> exact_free_;    // places in exact_pool_ no entry holds
  std::vector<Entry> entries_;
  std::vector<DeltaBounds> bounds_;  // entries_[i]'s is bounds_[i]
  fabric::FlatMap64 index_;          // key -> entries_ position (emptied entries keep theirs)
  size_t live_ = 0;
  size_t next_ = 0;  // slot()'s guess: the entry after the one it returned last
  std::unordered_map<uint64_t, int64_t> floors_;  // key -> repair time (few: repaired ports)
};

}  // namespace ibw::rules
