// DestTables: minimal-route tables toward many destination switches at once, for the
// cursed-route localizer (rules/localize.h) on fabrics up to a 65,536-endpoint fat tree.
//
// One table per destination class (RouteModel::dest_classes: switches with the same
// neighbours, e.g. the 32 leaves of a k=64 pod), made on demand and kept, instead of one per
// destination: 64 tables instead of 2,048 on that fabric. A spray toward a class carries the
// summed weights of all its members' sources over the shared part of their routes in one
// pass; only the last hop (neighbour -> member) is split per member, from the sources'
// shares: a source a reaches member b over the neighbour n on
// N(a, n) * 1 / N(a, b) of its minimal routes when dist(a, n) + 1 = dist(a, b) (N(a, n) read
// from a's own class table, routes being symmetric). Exact, not an approximation: the
// unit tests check it against per-destination sprays.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "fabric/route_model.h"

namespace ibw::fabric {

class DestTables {
 public:
  static constexpr int K = 3;  // weights carried per flow
  // One source switch's weights toward one destination switch (ordinals).
  struct Flow {
    uint32_t src = 0, dest = 0;
    double w[K] = {0, 0, 0};
  };

  // The model (and its links down) must not change while the tables live.
  explicit DestTables(const RouteModel& model);

  // Makes the tables of these switches' classes (ordinals), two threads, once each.
  void prepare(const std::vector<uint32_t>& ordinals);
  // Minimal-route distance (-1: none) and count from switch x to switch b (ordinals; b's
  // class prepared).
  int dist(uint32_t b, uint32_t x) const { return x == b ? 0 : table_of(b).dist[x]; }
  double count(uint32_t b, uint32_t x) const { return x == b ? 1 : table_of(b).count[x]; }

  // Adds to out[e * K + k] (out: edges() * K) the flows' weights times edge e's share of each
  // flow's minimal routes, for every switch-to-switch directed link e. The classes of every
  // flow's source and destination must be prepared.
  void spray(const std::vector<Flow>& flows, std::vector<double>& out) const;

  // Whether some minimal route from switch a to switch b crosses a marked edge (mask per edge
  // id, RouteModel::edge_mask): one pass per destination class, made on first use.
  class Crossing {
   public:
    Crossing(const DestTables& tables, std::vector<uint8_t> mask);
    bool operator()(uint32_t a, uint32_t b);  // ordinals, both classes prepared
   private:
    const DestTables& t_;
    std::vector<uint8_t> mask_;
    std::vector<std::unique_ptr<std::vector<uint8_t>>> by_class_;
    std::vector<std::unique_ptr<std::vector<uint32_t>>> marked_last_;  // per member: its
                                                                       // marked last hops
  };

 private:
  const RouteModel& model_;
  std::vector<uint32_t> class_of_;
  std::vector<std::vector<uint32_t>> members_;
  std::vector<std::unique_ptr<RouteModel::Table>> tables_;  // per class, null until prepared
  const RouteModel::Table& table_of(uint32_t ordinal) const { return *tables_[class_of_[ordinal]]; }
  struct Scratch {                     // per thread, left clean after each class
    std::vector<double> w, f, shares;  // shares: distinct rows of last-hop shares
    std::vector<int32_t> nb_pos, src_row;
    std::vector<uint32_t> rows;                      // sources given a row in this class
    std::unordered_map<uint64_t, uint32_t> row_ids;  // a row's hash -> its first row
    std::vector<double> wsum;                        // per row: a member's flows summed
    std::vector<uint8_t> used;
  };
  void spray_class(uint32_t c, const std::vector<const Flow*>& by_dest,
                   const std::vector<uint32_t>& start, Scratch& sc, std::vector<double>& out) const;
};

}  // namespace ibw::fabric
