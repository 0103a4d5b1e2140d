// Slurm drain and resume of hosts ibwarden cut off or found degraded (issue 33 item 3): the
// decision logic, free of threads and of the daemon. The daemon (daemon/slurm_worker.h) hands
// SlurmDrainer::tick() what it sees of every mapped host each second (SlurmHostView); the
// drainer decides, records and calls Slurm through a SlurmClient:
//   - a host cut off or degraded: drain its node with "<prefix>: WO-<id> <node>/<port> <why>"
//     (the incident or the event instead of the order when there is none; once an order opens
//     for a node drained without one, the reason is updated to name it) -- unless the node
//     is drained already by someone else ("skipped: drained by operator", never touched), the
//     cap is reached ("held: cap"), or it is dry-run ("dry_run": would drain, nothing called);
//   - a host whole again (its view whole for clean_window) whose order is closed (or has none):
//     resume the node, only when ibwarden drained it and Slurm still shows ibwarden's reason
//     (a changed reason or a node no longer drained is left alone, recorded "skipped").
// Every drain and resume is a decision row (rule "slurm", action slurm_drain | slurm_resume,
// node = the Slurm node, link_key = the host's link): the intent first ("pending"), then the
// Slurm command, then its outcome (done | failed); held, skipped and dry_run rows are recorded
// once per episode. After a restart the rows say which nodes ibwarden drained, and an intent
// without outcome is finished from the node read back (or retried). A Slurm failure is
// recorded, counted and retried with backoff (5 s doubling to 5 min) for that node alone.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "actions/slurm_client.h"
#include "core/remedy_records.h"
#include "store/roles.h"

namespace ibw::actions {

inline constexpr const char* kSlurmDrain = "slurm_drain";
inline constexpr const char* kSlurmResume = "slurm_resume";

// What the daemon sees of one Slurm node's host this moment.
struct SlurmHostView {
  enum class Health { whole, cut_off, degraded };
  std::string node;  // the Slurm node
  Health health = Health::whole;
  core::LinkEnd ca;    // the host's end of its (first bad, or only) link
  core::LinkEnd peer;  // the switch's end (guid 0 when unknown)
  std::string link_key;
  std::string why;       // "link disabled", "link down", "up at 1x (expected 4x)", "host down"
  std::string incident;  // the host_down incident when that is why ("" otherwise)
};

struct SlurmDrainConfig {
  std::string reason_prefix = "ibwarden";
  bool drain = true;
  bool resume = true;
  bool dry_run = false;  // the daemon's dry-run mode: record "would drain", call nothing
  int max_drains_per_hour = 8;
  int64_t clean_window_us = 30LL * 60 * 1'000'000;
  int64_t retry_first_us = 5'000'000;  // backoff after a Slurm failure, doubling
  int64_t retry_max_us = 300'000'000;
};

// Counters for /metrics (thread-safe): drains and resumes by status, Slurm command failures,
// and the last failure (for /health).
class SlurmStats {
 public:
  void count(const std::string& action, const std::string& status);
  void error(const std::string& message, int64_t now_us);
  void ok(int64_t now_us);
  struct Snapshot {
    std::map<std::string, uint64_t> drains, resumes;
    uint64_t errors = 0;
    bool failing = false;
    std::string last_error;
    int64_t last_ok_us = 0;
  };
  Snapshot snapshot() const;

 private:
  mutable std::mutex mutex_;
  Snapshot s_;
};

class SlurmDrainer {
 public:
  // `store` is the drainer's own connection; `stats` may be null.
  SlurmDrainer(SlurmDrainConfig cfg, SlurmClient& client, store::RemedyStore& store,
               SlurmStats* stats);
  // A new connection after the old one failed: what the drainer knows (the nodes it drained,
  // clean-window timers, rows noted this episode) is kept; an intent the failure left without
  // outcome is finished at the next restart's load, from the node read back.
  void rebind(store::RemedyStore& store) { store_ = &store; }
  // One pass over every host; returns the decisions recorded in it (outcomes, held, skipped,
  // dry_run; not the intents), for the log. The first call loads the drainer's past rows and
  // finishes intents left without outcome. Throws store::StoreError only.
  std::vector<core::DecisionRecord> tick(const std::vector<SlurmHostView>& hosts, int64_t now_us);
  // The nodes ibwarden has drained now (for tests and the log).
  std::vector<std::string> drained() const;

 private:
  struct NodeState {
    bool ours = false;  // a drain of ibwarden's is in place
    std::string reason;
    std::string link_key;
    bool names_order = false;        // its reason names the link's work order (WO-<id>)
    int64_t whole_since_us = 0;      // 0: not whole now
    std::vector<std::string> noted;  // held/skipped/dry_run recorded in this episode
    bool operator_owned = false;     // drained by someone else: left alone this episode
    int failures = 0;
    int64_t retry_at_us = 0;
  };
  void load(int64_t now_us, std::vector<core::DecisionRecord>& out);
  void finish_intent(core::DecisionRecord d, int64_t now_us,
                     std::vector<core::DecisionRecord>& out);
  void on_bad(const SlurmHostView& v, NodeState& s, int64_t now_us,
              std::vector<core::DecisionRecord>& out);
  void update_reason(const SlurmHostView& v, NodeState& s, int64_t now_us,
                     std::vector<core::DecisionRecord>& out);
  void on_whole(const SlurmHostView& v, NodeState& s, int64_t now_us,
                std::vector<core::DecisionRecord>& out);
  std::string drain_reason(const SlurmHostView& v, int64_t* order_id);
  bool order_closed(const NodeState& s);
  // Records a held/skipped/dry_run row once per episode (by its status).
  void note(const SlurmHostView& v, NodeState& s, const char* action, const std::string& status,
            const std::string& reason, int64_t now_us, std::vector<core::DecisionRecord>& out);
  core::DecisionRecord record(const SlurmHostView& v, const char* action, const std::string& status,
                              const std::string& reason, int64_t now_us) const;
  int64_t write_intent(core::DecisionRecord& d);
  void complete(core::DecisionRecord d, const std::string& status, const std::string& reason,
                std::vector<core::DecisionRecord>& out);
  void failed(NodeState& s, const std::string& what, int64_t now_us);

  SlurmDrainConfig cfg_;
  SlurmClient& client_;
  store::RemedyStore* store_;
  SlurmStats* stats_;
  bool loaded_ = false;
  std::map<std::string, NodeState> nodes_;
  std::deque<int64_t> drains_;  // times of drains done or intended in the last hour (the cap)
};

}  // namespace ibw::actions
