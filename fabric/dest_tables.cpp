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
  std::vector<std::vector<const Flow*>> by_class(members_.size());
  size_t total = 0;
  for (const Flow& f : flows)
    if (f.src != f.dest) by_class[class_of_[f.dest]].push_back(&f), ++total;
  std::vector<uint32_t> classes;
  for (uint32_t c = 0; c < by_class.size(); ++c)
    if (!by_class[c].empty()) classes.push_back(c);
  // Two threads over the classes, cut where half of the flows are (a fixed cut: the sums do
  // not depend on timing); each adds into its own array.
  size_t cut = 0;
  for (size_t seen = 0; cut < classes.size() && seen * 2 < total; ++cut)
    seen += by_class[classes[cut]].size();
  auto run = [&](size_t begin, size_t end, std::vector<double>* o) {
    std::vector<double> w(static_cast<size_t>(model_.switches()) * K, 0), scratch(w.size(), 0);
    for (size_t i = begin; i < end; ++i)
      spray_class(classes[i], by_class[classes[i]], w, scratch, *o);
  };
  std::vector<double> second(out.size(), 0);
  std::thread other(run, cut, classes.size(), &second);
  run(0, cut, &out);
  other.join();
  for (size_t i = 0; i < out.size(); ++i) out[i] += second[i];
}

void DestTables::spray_class(uint32_t c, const std::vector<const Flow*>& flows,
                             std::vector<double>& w, std::vector<double>& scratch,
                             std::vector<double>& out) const {
  const RouteModel::Table& t = *tables_[c];
  // The shared part: every member's sources at once, up to the neighbours.
  for (const Flow* f : flows)
    for (int k = 0; k < K; ++k) w[f->src * K + k] += f->w[k];
  model_.spray_k(t, w.data(), K, scratch,
                 [&](uint32_t e, int k, double flow) { out[e * K + k] += flow; });
  for (const Flow* f : flows)
    for (int k = 0; k < K; ++k) w[f->src * K + k] = 0;
  // The last hops: the neighbours are the table's dist-1 prefix.
  size_t nbs = 0;
  while (nbs < t.order.size() && t.dist[t.order[nbs]] == 1) ++nbs;
  if (nbs == 0) return;
  std::vector<int32_t> nb_pos(model_.switches(), -1), src_row(model_.switches(), -1);
  for (size_t j = 0; j < nbs; ++j) nb_pos[t.order[j]] = static_cast<int32_t>(j);
  std::vector<double> shares;  // per distinct source: its share over each neighbour
  auto row = [&](uint32_t a) -> const double* {
    if (src_row[a] < 0) {
      src_row[a] = static_cast<int32_t>(shares.size() / nbs);
      shares.resize(shares.size() + nbs, 0);
      double* r = &shares[static_cast<size_t>(src_row[a]) * nbs];
      const int da = t.dist[a];
      if (da >= 1 && t.count[a] > 0)
        for (size_t j = 0; j < nbs; ++j) {
          uint32_t n = t.order[j];
          int dan = dist(a, n);  // routes are symmetric: a's own table read at n
          if (dan >= 0 && dan + 1 == da) r[j] = count(a, n) / t.count[a];
        }
    }
    return &shares[static_cast<size_t>(src_row[a]) * nbs];
  };
  std::vector<const Flow*> sorted(flows);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Flow* x, const Flow* y) { return x->dest < y->dest; });
  std::vector<double> acc(nbs * K);
  for (size_t i = 0; i < sorted.size();) {
    const uint32_t b = sorted[i]->dest;
    std::fill(acc.begin(), acc.end(), 0);
    for (; i < sorted.size() && sorted[i]->dest == b; ++i) {
      const Flow& f = *sorted[i];
      const double* r = row(f.src);
      for (size_t j = 0; j < nbs; ++j)
        if (r[j] != 0)
          for (int k = 0; k < K; ++k) acc[j * K + k] += f.w[k] * r[j];
    }
    for (uint32_t e : model_.last_hops(b)) {
      int32_t j = nb_pos[model_.edge_from(e)];
      if (j >= 0)
        for (int k = 0; k < K; ++k) out[e * K + k] += acc[static_cast<size_t>(j) * K + k];
    }
  }
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
