// Test-only: the rules::evaluate() of commit fd951cb, kept unchanged so that
// rules/test_rules_eval_diff.cpp can check the current evaluate() gives the very same verdicts
// (rule, port, confirmation, explanation text and evidence) on random windows.
#pragma once

#include <cstdint>
#include <vector>

#include "rules/evaluate.h"

namespace ibw::rules {

std::vector<Verdict> reference_evaluate(const RuleSet& rules, const std::vector<PortWindow>& ports,
                                        int64_t now_us);

}  // namespace ibw::rules
