// Health rules: what the rule file (YAML, strict) says and the compiled RuleSet that
// evaluate() (rules/evaluate.h) runs over per-port windows.
//
// File format: a top-level `rules:` list. Every rule has `name` (unique), `type`
// (symbol_errors | link_flap | link_degraded | error_counters), `enabled` (default true),
// `action` (disable | isolate | work_order | none; a congestion rule's is none, and may be
// left out), `severity` (info | warning | error |
// critical), optional `confirm` (none | both_ends | errors_and_flap; for cursed_path:
// none | dr_probe | counters | both) and type-specific keys:
//   symbol_errors:  ber_threshold {SDR..XDR, default: number}, window (12m), jump (count)
//   link_flap:      cycles (5), window (1m)
//   link_degraded:  below (plan | enabled | both; default both)
//   error_counters: window (1m), counters {CounterName: {delta: N} | {rate_per_s: X}}
//                   (PortXmitWait and PortXmitDiscards only with action none: congestion is
//                   a signal, not a fault, so work_order, disable or isolate on them is
//                   rejected at load, naming the counter and the action)
//   congestion:     report only (action none): a finding per port, never a decision, order
//                   or disable. window (1m); wait_ratio (0.1: the least share of a sweep's
//                   interval the port waited to send, from PortXmitWait); discards_per_s
//                   (100: the least PortXmitDiscards rate, NVSentinel's port_xmit_discards
//                   > 100/s); wait_tick_bits (64: link bit-times one PortXmitWait tick
//                   stands for, see kDefaultWaitTickBits). Fires on either test.
//   ufm_high_ber:   min_severity (warning | error | critical; default error), window (10m)
//                   (UFM's own BER verdicts: high_ber / high_ber_cleared events, so it
//                   only fires with a ufm: section)
//   cursed_path:    min_loss (0.01: the least loss rate of a suspect link, 0-1),
//                   min_observations (3: bad observations behind it); evaluated on the
//                   localizer's suspects (rules/eval_cursed_path.h), not on port windows
// Loading collects every problem as file:line: field: message before failing.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fabric/diagnostics.h"
#include "fabric/speed.h"
#include "ingest/counters.h"
#include "ingest/event.h"

namespace ibw::rules {

enum class RuleType : uint8_t {
  symbol_errors,
  link_flap,
  link_degraded,
  error_counters,
  ufm_high_ber,
  cursed_path,
  congestion
};
enum class Action : uint8_t { disable, isolate, work_order, none };
// both_ends and errors_and_flap for port-window rules; dr_probe, counters and both (= the two)
// for cursed_path.
enum class Confirm : uint8_t { none, both_ends, errors_and_flap, dr_probe, counters, both };
// Which expectation link_degraded compares against; `both` means any known one.
enum class DegradedBelow : uint8_t { plan, enabled, both };

std::string_view rule_type_name(RuleType t);
std::optional<RuleType> parse_rule_type(std::string_view s);
std::string_view action_name(Action a);
std::optional<Action> parse_action(std::string_view s);
std::string_view confirm_name(Confirm c);
std::optional<Confirm> parse_confirm(std::string_view s);

// Counters error_counters rules may name.
inline constexpr std::array<ingest::Counter, 6> kRuleCounters = {
    ingest::Counter::PortRcvErrors,
    ingest::Counter::LinkErrorRecoveryCounter,
    ingest::Counter::LocalLinkIntegrityErrors,
    ingest::Counter::ExcessiveBufferOverrunErrors,
    ingest::Counter::PortXmitDiscards,
    ingest::Counter::PortXmitWait};

// Congestion counters: a port that waits for credits (PortXmitWait) or drops what it could
// not send in time (PortXmitDiscards) is congested, its cable is not broken. Rules may report
// them (congestion, or error_counters with action none) but never act on them.
inline constexpr bool is_congestion_counter(ingest::Counter c) {
  return c == ingest::Counter::PortXmitWait || c == ingest::Counter::PortXmitDiscards;
}

// PortXmitWait counts ticks in which the port had data to send and sent nothing; the IBTA
// leaves the tick to the implementation (the kernel's sysfs ABI says only "number of
// ticks"). NVIDIA's formula (github.com/NVIDIA/ib-traffic-monitor issue 3, 2025): lost
// bandwidth = port_xmit_wait * (Tick + 1) * 8 bits per sample time, with Tick 7 on current
// generations and 31 on legacy ones. So one tick stands for 64 bit-times of the port's link
// (256 on legacy ports). Assumption: every port is a current generation (set the rule's
// wait_tick_bits: 256 for a fabric of legacy ports). Then a sweep's wait ratio is
// ticks * 64 / (link rate * interval), and the bandwidth lost is that ratio * link rate.
inline constexpr double kDefaultWaitTickBits = 64;

// One limit of an error_counters rule: exactly one of delta (sum over the rule window) or
// rate_per_s (highest per-sweep rate in the window) is set (> 0).
struct CounterLimit {
  ingest::Counter counter = ingest::Counter::PortRcvErrors;
  uint64_t delta = 0;
  double rate_per_s = 0;
};

inline constexpr size_t kSpeedCount = static_cast<size_t>(fabric::Speed::xdr) + 1;

struct Rule {
  std::string name;
  RuleType type = RuleType::symbol_errors;
  bool enabled = true;
  Action action = Action::none;
  ingest::Severity severity = ingest::Severity::warning;
  Confirm confirm = Confirm::none;
  int line = 0;  // where the rule starts in its file

  int64_t window_us = 0;  // symbol_errors 12m, ufm_high_ber 10m, others 1m
  // symbol_errors: BER threshold per active speed (indexed by fabric::Speed; the compiled
  // table already has `default` filled in; 0 = no BER check at that speed) and the one-sweep
  // fast path (0 = off).
  std::array<double, kSpeedCount> ber_threshold{};
  uint64_t jump = 0;
  int cycles = 5;                             // link_flap
  DegradedBelow below = DegradedBelow::both;  // link_degraded
  std::vector<CounterLimit> counters;         // error_counters
  // ufm_high_ber: the least severity of a high_ber event that counts.
  ingest::Severity min_severity = ingest::Severity::error;
  double min_loss = 0.01;         // cursed_path
  uint64_t min_observations = 3;  // cursed_path
  // congestion: thresholds (0 = that test is off) and the PortXmitWait tick's size.
  double wait_ratio = 0.1;
  double discards_per_s = 100;
  double wait_tick_bits = kDefaultWaitTickBits;
};

struct RuleSet {
  std::string file;
  std::vector<Rule> rules;
  const Rule* find(std::string_view name) const;
};

// Parses rule-file text; throws fabric::InputError with every diagnostic.
RuleSet parse_rules(std::string_view text, const std::string& file);
// Reads and parses a rule file; throws fabric::InputError (unreadable file included).
RuleSet load_rules(const std::string& path);
// For `ibwarden rules validate FILE`: every diagnostic, empty when the file is valid.
std::vector<fabric::Diagnostic> validate_rules_file(const std::string& path);

}  // namespace ibw::rules
