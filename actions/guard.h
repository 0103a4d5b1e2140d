// The guard in front of automatic port disabling ("auto-disable of bad links"): a pure
// policy that says whether disabling or enabling one port is allowed right now, computed on
// the fabric graph, the guard's own state (ports it has disabled, past actions) and a clock.
// It never touches the fabric; the caller executes an allowed action (actions/port_control.h)
// and then calls record().
//
// Rules for `disable`, in the order they are checked:
//  hard (never overridden, not even by force):
//   - sm_link:        never the SM's own link (Request::sm_port or its peer);
//   - host_link:      never a CA's last active link (checked on both ends of the link);
//   - switch_isolation: never any switch's last active link: that partitions the fabric;
//   - leaf_isolation: never a leaf's (level-1 switch's) last active up link.
//   Levels count the links the guard disabled itself (GuardState::peer_of) with the peer they
//   had, since a re-discovery no longer sees them.
//  soft (Request::force overrides them, and the reason says so):
//   - min_up_links:   a switch keeps at least min_up_links active up links (toward the
//                     spine) if the link is one of its up links;
//   - max_disabled_total, max_disabled_per_switch (links disabled by the guard that touch
//     the switch, either end), max_actions_per_hour (disables in the last 3600 s).
// Levels: switches with a CA attached are level 1, then breadth first over switch-switch
// links; a link is "up" for a switch when the peer's level is higher than its own.
// A link is active when both ends are known, it is not PhysState Disabled, not PortState
// Down, and not in GuardState::disabled (the snapshot may predate our own actions).
//
// `enable` is always allowed and is not rate-limited: restoring a link must never be blocked
// by the guard (a disable/enable loop is bounded by the disable budgets anyway).
// Mode dry_run returns Verdict::dry_run with the reason the action would be allowed; a
// refusal is a refusal in both modes.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fabric/model.h"

namespace ibw::actions {

enum class GuardMode : uint8_t { dry_run, enforce };

struct GuardConfig {
  GuardMode mode = GuardMode::dry_run;
  int max_disabled_total = 16;
  int max_disabled_per_switch = 2;
  int max_actions_per_hour = 8;
  int min_up_links = 2;
};

struct PortKey {
  uint64_t guid = 0;
  int port = 0;
  auto operator<=>(const PortKey&) const = default;
};

struct GuardState {
  std::set<PortKey> disabled;          // ports the guard has disabled (the requested end)
  std::map<PortKey, PortKey> peer_of;  // far end of a disabled port, as it was when disabled
                                       // (a re-discovery no longer sees the link)
  std::vector<int64_t> disable_times;  // microseconds, one per executed disable
};

enum class PortAction : uint8_t { disable, enable };
enum class Verdict : uint8_t { allowed, dry_run, refused };

struct Request {
  uint64_t node_guid = 0;
  int port = 0;
  PortAction action = PortAction::disable;
  bool force = false;  // manual override (`--force`): soft rules only; recorded in reason
  PortKey sm_port;     // the local CA port the SM / ibwarden runs on
};

struct Decision {
  Verdict verdict = Verdict::refused;
  std::string reason;                   // one line: the rule and its numbers
  std::string rule;                     // refusing rule name ("" when not refused)
  std::vector<std::string> overridden;  // soft rules that force overrode
};

std::string_view verdict_name(Verdict v);    // "allowed", "dry_run", "refused"
std::string_view action_name(PortAction a);  // "disable", "enable"

class Guard {
 public:
  explicit Guard(GuardConfig config) : config_(config) {}
  const GuardConfig& config() const { return config_; }

  // Decides one request at time now_us (microseconds, any epoch shared with GuardState).
  Decision decide(const Request& request, const fabric::Fabric& fabric, const GuardState& state,
                  int64_t now_us) const;

 private:
  GuardConfig config_;
};

// Records an executed action: disable adds the port and a timestamp, enable removes the port
// (a port disabled from its peer's side is removed too). Timestamps older than one hour are
// pruned.
void record(GuardState& state, const Request& request, const fabric::Fabric& fabric,
            int64_t now_us);

}  // namespace ibw::actions
