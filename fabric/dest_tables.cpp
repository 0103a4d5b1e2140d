// Minimal-route tables per destination class (fabric/dest_tables.h).
#include "fabric/dest_tables.h"

#include <algorithm>
#include <thread>

namespace ibw::fabric {

DestTables::DestTables(const RouteModel& model) : model_(model) {
  class_of_ = model.dest_classes(&members_);
  tables_.resize(members_.size());
}

void DestTables::prepare(const std::vector<uint32_t>& ordinals) {
  std::vector<uint32_t> missing;
  std::vector<uint8_t> seen(members_.size(), 0);
  for (uint32_t o : ordinals) {
    uint32_t c = class_of_[o];
    if (!tables_[c] && !seen[c]) seen[c] = 1, missing.push_back(c);
  }
  auto make = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i)
      tables_[missing[i]] =
          std::make_unique<RouteModel::Table>(model_.class_table(members_[missing[i]][0]));
  };
  size_t half = missing.size() / 2;
  std::thread other(make, half, missing.size());
  make(0, half);
  other.join();
}

void DestTables::spray(const std::vector<Flow>& flows, std::vector<double>& out) const {
  // Flows bucketed by destination (counting sort: members' flows come out together).
  const uint32_t n = model_.switches();
  std::vector<uint32_t> start(n + 1, 0);
  for (const Flow& f : flows)
    if (f.src != f.dest) ++start[f.dest + 1];
  for (uint32_t i = 0; i < n; ++i) start[i + 1] += start[i];
  std::vector<const Flow*> by_dest(start[n]);
  {
    std::vector<uint32_t> next(start.begin(), start.end() - 1);
    for (const Flow& f : flows)
      if (f.src != f.dest) by_dest[next[f.dest]++] = &f;
  }
  std::vector<uint32_t> classes;
  std::vector<size_t> weight(members_.size(), 0);
  for (uint32_t c = 0; c < members_.size(); ++c) {
    for (uint32_t b : members_[c]) weight[c] += start[b + 1] - start[b];
    if (weight[c]) classes.push_back(c);
  }
  // Two threads over the classes, cut where half of the flows are (a fixed cut: the sums do
  // not depend on timing); each adds into its own array.
  size_t cut = 0;
  for (size_t seen = 0; cut < classes.size() && seen * 2 < by_dest.size(); ++cut)
    seen += weight[classes[cut]];
  auto run = [&](size_t begin, size_t end, std::vector<double>* o) {
    Scratch sc;
    sc.w.assign(static_cast<size_t>(n) * K, 0);
    sc.f.assign(sc.w.size(), 0);
    sc.nb_pos.assign(n, -1);
    sc.src_row.assign(n, -1);
    for (size_t i = begin; i < end; ++i) spray_class(classes[i], by_dest, start, sc, *o);
  };
  std::vector<double> second(out.size(), 0);
  std::thread other(run, cut, classes.size(), &second);
  run(0, cut, &out);
  other.join();
  for (size_t i = 0; i < out.size(); ++i) out[i] += second[i];
}

void DestTables::spray_class(uint32_t c, const std::vector<const Flow*>& by_dest,
                             const std::vector<uint32_t>& start, Scratch& sc,
                             std::vector<double>& out) const {
  const RouteModel::Table& t = *tables_[c];
  const std::vector<uint32_t>& members = members_[c];
  auto each_flow = [&](auto&& fn) {
    for (uint32_t b : members)
      for (uint32_t i = start[b]; i < start[b + 1]; ++i) fn(*by_dest[i]);
  };
  // The shared part: every member's sources at once, up to the neighbours.
  each_flow([&](const Flow& f) {
    for (int k = 0; k < K; ++k) sc.w[f.src * K + k] += f.w[k];
  });
  model_.spray_k(t, sc.w.data(), K, sc.f,
                 [&](uint32_t e, int k, double flow) { out[e * K + k] += flow; });
  each_flow([&](const Flow& f) {
    for (int k = 0; k < K; ++k) sc.w[f.src * K + k] = 0;
  });
  // The last hops: the neighbours are the table's dist-1 prefix.
  size_t nbs = 0;
  while (nbs < t.order.size() && t.dist[t.order[nbs]] == 1) ++nbs;
  if (nbs == 0) return;
  for (size_t j = 0; j < nbs; ++j) sc.nb_pos[t.order[j]] = static_cast<int32_t>(j);
  // Per source: its shares over the neighbours, as a row. Sources with the same row (on a fat
  // tree, every source outside the member's pod) share one: a member's flows are first summed
  // per row, then each distinct row is multiplied out once.
  sc.shares.clear();
  sc.rows.clear();
  sc.row_ids.clear();
  std::vector<double> tmp(nbs);
  auto row_of = [&](uint32_t a) -> uint32_t {
    if (sc.src_row[a] < 0) {
      std::fill(tmp.begin(), tmp.end(), 0);
      const int da = t.dist[a];
      if (da >= 1 && t.count[a] > 0)
        for (size_t j = 0; j < nbs; ++j) {
          uint32_t n = t.order[j];
          int dan = dist(a, n);  // routes are symmetric: a's own table read at n
          if (dan >= 0 && dan + 1 == da) tmp[j] = count(a, n) / t.count[a];
        }
      uint64_t h = 1469598103934665603ULL;
      for (double x : tmp) h = (h ^ std::hash<double>{}(x)) * 1099511628211ULL;
      const uint32_t next = static_cast<uint32_t>(sc.shares.size() / nbs);
      auto [it, fresh] = sc.row_ids.emplace(h, next);
      const double* old = fresh ? nullptr : &sc.shares[static_cast<size_t>(it->second) * nbs];
      if (old && std::equal(tmp.begin(), tmp.end(), old)) {
        sc.src_row[a] = static_cast<int32_t>(it->second);
      } else {  // new (or a hash collision: kept apart)
        sc.src_row[a] = static_cast<int32_t>(next);
        sc.shares.insert(sc.shares.end(), tmp.begin(), tmp.end());
        sc.wsum.resize(static_cast<size_t>(next + 1) * K, 0);
        sc.used.resize(next + 1, 0);
      }
      sc.rows.push_back(a);
    }
    return static_cast<uint32_t>(sc.src_row[a]);
  };
  static_assert(K == 3, "the last-hop sums below are written out for three weights");
  std::vector<double> acc(nbs * K);  // [k][j]
  std::vector<uint32_t> touched;
  for (uint32_t b : members) {
    if (start[b] == start[b + 1]) continue;
    for (uint32_t i = start[b]; i < start[b + 1]; ++i) {
      const Flow& f = *by_dest[i];
      const uint32_t r = row_of(f.src);
      if (!sc.used[r]) sc.used[r] = 1, touched.push_back(r);
      for (int k = 0; k < K; ++k) sc.wsum[r * K + k] += f.w[k];
    }
    std::fill(acc.begin(), acc.end(), 0);
    double* a0 = acc.data();
    double* a1 = a0 + nbs;
    double* a2 = a1 + nbs;
    for (uint32_t r : touched) {
      const double* row = &sc.shares[static_cast<size_t>(r) * nbs];
      const double w0 = sc.wsum[r * K], w1 = sc.wsum[r * K + 1], w2 = sc.wsum[r * K + 2];
      for (size_t j = 0; j < nbs; ++j)
        a0[j] += w0 * row[j], a1[j] += w1 * row[j], a2[j] += w2 * row[j];
      sc.wsum[r * K] = sc.wsum[r * K + 1] = sc.wsum[r * K + 2] = 0, sc.used[r] = 0;
    }
    touched.clear();
    for (uint32_t e : model_.last_hops(b)) {
      int32_t j = sc.nb_pos[model_.edge_from(e)];
      if (j >= 0)
        for (int k = 0; k < K; ++k) out[e * K + k] += acc[k * nbs + static_cast<size_t>(j)];
    }
  }
  for (size_t j = 0; j < nbs; ++j) sc.nb_pos[t.order[j]] = -1;
  for (uint32_t a : sc.rows) sc.src_row[a] = -1;
}

DestTables::Crossing::Crossing(const DestTables& tables, std::vector<uint8_t> mask)
    : t_(tables),
      mask_(std::move(mask)),
      by_class_(tables.members_.size()),
      marked_last_(tables.model_.switches()) {}

bool DestTables::Crossing::operator()(uint32_t a, uint32_t b) {
  if (a == b) return false;
  auto& shared = by_class_[t_.class_of_[b]];
  if (!shared) {
    shared = std::make_unique<std::vector<uint8_t>>();
    t_.model_.crossing(*t_.tables_[t_.class_of_[b]], mask_, *shared);
  }
  if ((*shared)[a]) return true;
  auto& last = marked_last_[b];
  if (!last) {
    last = std::make_unique<std::vector<uint32_t>>();
    for (uint32_t e : t_.model_.last_hops(b))
      if (mask_[e]) last->push_back(e);
  }
  const int dab = t_.dist(b, a);
  if (dab < 0) return false;
  for (uint32_t e : *last) {
    int dan = t_.dist(a, t_.model_.edge_from(e));
    if (dan >= 0 && dan + 1 == dab) return true;
  }
  return false;
}

}  // namespace ibw::fabric
