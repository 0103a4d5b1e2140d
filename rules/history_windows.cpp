// rules::History's windows (rules/history.h): which links are worth evaluating, the window
// each one borrows from the history, and the links' peer positions (link_peers()).
#include <algorithm>

#include "fabric/flat_map.h"
#include "rules/history.h"

namespace ibw::rules {

namespace {

// The link runs below its plan or below what both ends enable (link_degraded may fire).
bool below_expected(const LinkInfo& l) {
  auto below = [&](int width, fabric::Speed speed) {
    return (width && l.active_width && l.active_width < width) ||
           (speed != fabric::Speed::unknown && l.active_speed != fabric::Speed::unknown &&
            l.active_speed < speed);
  };
  return below(l.plan_width, l.plan_speed) || below(l.enabled_width, l.enabled_speed);
}

}  // namespace

const History::Entry* History::find(uint64_t guid, int port) const {
  size_t at = locate(key(guid, port), npos);
  if (at == npos) return nullptr;
  const Entry& e = entries_[at];
  return e.empty() ? nullptr : &e;
}

bool History::has_data(const LinkInfo& link) const {
  return find(link.node_guid, link.port) ||
         (link.peer_guid && find(link.peer_guid, link.peer_port));
}

void History::window_into(const LinkInfo& link, const Entry* own, const Entry* peer,
                          PortWindow* w) const {
  w->node_guid = link.node_guid, w->port = link.port;
  w->peer_guid = link.peer_guid, w->peer_port = link.peer_port;
  w->active_width = link.active_width, w->active_speed = link.active_speed;
  w->plan_width = link.plan_width, w->plan_speed = link.plan_speed;
  w->enabled_width = link.enabled_width, w->enabled_speed = link.enabled_speed;
  if (own) {
    w->delta_view = own->live();
    w->bounds = &bounds_of(*own);
    w->exact_totals = true;  // bounds: over deltas[head, end), which is live()
    w->exact = exact_of(*own);
    w->events.assign(own->events.begin(), own->events.end());
    w->ber_events.assign(own->ber.begin(), own->ber.end());
  }
  if (peer && !peer->events.empty()) {
    for (LinkEvent e : peer->events) {
      e.from_peer = true;
      w->events.push_back(e);
    }
    std::stable_sort(w->events.begin(), w->events.end(),
                     [](const LinkEvent& a, const LinkEvent& b) { return a.time_us < b.time_us; });
  }
}

PortWindow History::window(const LinkInfo& link) const {
  PortWindow w;
  window_into(link, find(link.node_guid, link.port),
              link.peer_guid ? find(link.peer_guid, link.peer_port) : nullptr, &w);
  return w;
}

std::vector<PortWindow> History::windows(const std::vector<LinkInfo>& links) const {
  // A link is worth evaluating with data on either end or a rate below expectation; its peer
  // comes along so that both_ends confirmation sees a clean peer as observed. A peer port
  // with data of its own is taken by its own link anyway, so only the peers without data
  // are looked for (the first link naming them, as an index of links would find).
  size_t n = links.size();
  std::vector<char> take(n, 0);
  size_t m = live_ ? n : 0;  // an empty history looks nothing up (a clean fabric)
  std::vector<const Entry*> own(m, nullptr), peer(m, nullptr);
  // The position of link i's peer in `links`, when link_peers() set it and it still names
  // the peer; npos otherwise (then the peer is looked up).
  auto peer_pos = [&](size_t i) -> size_t {
    const LinkInfo& l = links[i];
    size_t j = l.peer_index;
    bool named =
        j < n && l.peer_guid && links[j].node_guid == l.peer_guid && links[j].port == l.peer_port;
    return named ? j : npos;
  };
  // Entries are found by guess first (locate): a port's entry after the previous link's,
  // its peer's next to its own (a sweep reads a link's two ends one after the other).
  auto live_at = [&](size_t at) -> const Entry* {
    return at == npos || entries_[at].empty() ? nullptr : &entries_[at];
  };
  // Links come node by node, entries in the order the scrapes first named their ports: most
  // guesses miss, so the index slot of the link 2 x kPrefetchAhead on is asked for, and the
  // entries found are read in a second pass, kPrefetchAhead ahead (each a wait on memory).
  std::vector<size_t> at_of(m, npos);
  for (size_t i = 0, next = 0; i < m; ++i) {
    if (size_t j = i + 2 * kPrefetchAhead; j < m)
      index_.prefetch(key(links[j].node_guid, links[j].port));
    size_t at = locate(key(links[i].node_guid, links[i].port), next);
    at_of[i] = at;
    if (at != npos) next = at + 1;
  }
  for (size_t i = 0; i < m; ++i) {
    if (size_t j = i + kPrefetchAhead; j < m && at_of[j] != npos)
      fabric::prefetch_range(&entries_[at_of[j]], sizeof(Entry));
    own[i] = live_at(at_of[i]);
  }
  for (size_t i = 0; i < m; ++i) {
    const LinkInfo& l = links[i];
    if (!l.peer_guid) continue;
    if (size_t j = peer_pos(i); j != npos) {
      peer[i] = own[j];
    } else {
      size_t at = own[i] ? this->at(*own[i]) : npos;  // guess next to its own
      uint64_t pk = key(l.peer_guid, l.peer_port);
      peer[i] = live_at(at == npos ? locate(pk, npos) : locate(pk, at + 1, at - 1));
    }
  }
  fabric::FlatMap64 wanted;   // peer key -> position in `found` (peers without peer_index)
  std::vector<size_t> later;  // positions of peers to take (with peer_index)
  size_t taken = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto& l = links[i];
    bool data = m && (own[i] || peer[i]);
    if (!data && !below_expected(l)) continue;
    take[i] = 1, ++taken;
    if (!l.peer_guid || (m && peer[i])) continue;
    if (size_t j = peer_pos(i); j != npos)
      later.push_back(j);
    else
      wanted.emplace(key(l.peer_guid, l.peer_port), static_cast<uint32_t>(wanted.size()));
  }
  for (size_t j : later) taken += !take[j], take[j] = 1;
  if (wanted.size()) {
    std::vector<char> found(wanted.size(), 0);
    for (size_t i = 0; i < n; ++i)
      if (auto at = wanted.find(key(links[i].node_guid, links[i].port)); at && !found[*at])
        found[*at] = 1, taken += !take[i], take[i] = 1;
  }
  std::vector<uint32_t> pos(n, UINT32_MAX);  // link -> its window's position
  for (size_t i = 0, k = 0; i < n; ++i)
    if (take[i]) pos[i] = static_cast<uint32_t>(k++);
  // Windows are made in place, in link order (the order of pos): each one's memory is
  // written once, not first by a value-initialized vector (a 17 MB pass at 100k ports).
  std::vector<PortWindow> out;
  out.reserve(taken);
  for (size_t i = 0; i < n; ++i) {
    if (!take[i]) continue;
    PortWindow& w = out.emplace_back();
    window_into(links[i], m ? own[i] : nullptr, m ? peer[i] : nullptr, &w);
    if (size_t j = peer_pos(i); j != npos) w.peer_at = pos[j];
  }
  return out;
}

void link_peers(std::vector<LinkInfo>& links) {
  fabric::FlatMap64 first;  // port key -> the first link of that port
  first.reserve(links.size());
  for (size_t i = 0; i < links.size(); ++i) {
    uint64_t k = History::key(links[i].node_guid, links[i].port);
    if (k != UINT64_MAX && !first.find(k)) first.emplace(k, static_cast<uint32_t>(i));
  }
  for (auto& l : links) {
    l.peer_index = LinkInfo::kNoPeerIndex;
    if (!l.peer_guid) continue;
    uint64_t k = History::key(l.peer_guid, l.peer_port);
    if (auto at = k == UINT64_MAX ? std::nullopt : first.find(k)) l.peer_index = *at;
  }
}

}  // namespace ibw::rules
