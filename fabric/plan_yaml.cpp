// YAML plan reader: a top-level `cables:` (or `links:`) sequence of maps whose keys are the
// CSV column names, or a top-level sequence of such maps (rules in plan_yaml_builder.h).
//
// Why it streams: YAML::Load builds a node tree (a heap node, a ref and shared bookkeeping per
// scalar); a 196,608-cable plan (42 MB) took over 10 s and 2 GB of memory that way. Parser
// events become PlannedLinks directly, one cable at a time. yaml-cpp's scanner alone still took
// 3-5 s for that plan (libyaml's ~0.8 s), so plain block-style plans are read by our own
// scanner first (plan_yaml_block.cpp: the audit of a 24,576-cable YAML plan went from 7.6 G
// to 0.57 G instructions, CSV's 0.41 G) and only other YAML goes through yaml-cpp here:
//  - only the first document is read; a syntax error is then the only diagnostic;
//  - an alias stands for its anchored node, including that node's line: anchored nodes are
//    recorded as events and replayed. (A node aliased inside itself replays as empty.)
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <istream>
#include <streambuf>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fabric/plan.h"
#include "fabric/plan_yaml_builder.h"

namespace ibw::fabric {
namespace plan_yaml {
namespace {

// Lets YAML::Parser read the caller's bytes in place instead of a copy. Read-only: yaml-cpp
// only puts back the bytes it just read (BOM sniffing), which moves gptr() and writes nothing.
class PlanViewBuf : public std::streambuf {
 public:
  explicit PlanViewBuf(std::string_view s) {
    char* p = const_cast<char*>(s.data());
    setg(p, p, p + s.size());
  }
};

// yaml-cpp's events -> Builder events, with aliases replaced by their anchored nodes.
class YamlCppEvents : public YAML::EventHandler {
 public:
  explicit YamlCppEvents(Builder& out) : out_(out) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    feed(Ev::null, mark, {}, anchor);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    feed(Ev::scalar, mark, value, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    feed(Ev::seq, mark, {}, anchor);
  }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    feed(Ev::map, mark, {}, anchor);
  }
  void OnSequenceEnd() override { emit(Ev::end, 0, {}); }
  void OnMapEnd() override { emit(Ev::end, 0, {}); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t anchor) override {
    const Recording& rec = anchors_[anchor];
    if (rec.depth > 0) {  // aliased inside itself: the node is not complete yet
      const Recorded& start = rec.events.front();
      emit(start.kind, start.line, start.value);
      emit(Ev::end, 0, {});
      return;
    }
    for (const Recorded& e : rec.events) emit(e.kind, e.line, e.value);
  }

 private:
  struct Recorded {
    Ev kind;
    int line;
    std::string value;
  };
  struct Recording {
    std::vector<Recorded> events;
    int depth = 0;  // > 0 while the anchored collection is still open
  };

  void feed(Ev kind, const YAML::Mark& mark, std::string_view value, YAML::anchor_t anchor) {
    if (anchor) {
      anchors_[anchor] = Recording{};
      recording_.push_back(anchor);
    }
    emit(kind, mark.line + 1, value);
  }

  void emit(Ev kind, int line, std::string_view value) {
    if (!recording_.empty()) record(kind, line, value);
    out_.event(kind, line, value);
  }

  void record(Ev kind, int line, std::string_view value) {
    for (YAML::anchor_t a : recording_) {
      Recording& rec = anchors_[a];
      rec.events.push_back({kind, line, std::string(value)});
      rec.depth += kind == Ev::seq || kind == Ev::map ? 1 : kind == Ev::end ? -1 : 0;
    }
    recording_.erase(std::remove_if(recording_.begin(), recording_.end(),
                                    [this](YAML::anchor_t a) { return anchors_[a].depth == 0; }),
                     recording_.end());
  }

  Builder& out_;
  std::unordered_map<YAML::anchor_t, Recording> anchors_;
  std::vector<YAML::anchor_t> recording_;  // anchored nodes still open
};

}  // namespace

Plan parse_full(std::string_view data, const std::string& file) {
  Plan plan{file, PlanFormat::yaml, {}};
  Builder builder(plan, file);
  YamlCppEvents events(builder);
  PlanViewBuf buf(data);
  std::istream in(&buf);
  try {
    YAML::Parser parser(in);
    parser.HandleNextDocument(events);  // the first document only, like YAML::Load
  } catch (const YAML::Exception& e) {
    DiagnosticSink sink(file);  // nothing else is reported with a syntax error
    sink.add(e.mark.line + 1, "", "YAML syntax error: " + e.msg);
    sink.throw_if_any();
  }
  builder.finish();
  return plan;
}

std::optional<Plan> parse_fast(std::string_view data, const std::string& file) {
  std::optional<Plan> plan(Plan{file, PlanFormat::yaml, {}});
  Builder builder(*plan, file);
  if (!scan_plan_yaml_block(data, builder)) return std::nullopt;
  builder.finish();
  return plan;
}

}  // namespace plan_yaml

Plan parse_plan_yaml(std::string_view data, const std::string& file) {
  if (auto plan = plan_yaml::parse_fast(data, file)) return std::move(*plan);
  return plan_yaml::parse_full(data, file);
}

}  // namespace ibw::fabric
