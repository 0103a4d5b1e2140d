// YAML plan reader: a top-level `cables:` (or `links:`) sequence of maps whose keys are the
// CSV column names, or a top-level sequence of such maps. Line numbers come from yaml-cpp marks.
//
// Why it streams: YAML::Load builds a node tree (a heap node, a ref and shared bookkeeping per
// scalar); a 196,608-cable plan (42 MB) took over 10 s and 2 GB of memory that way. Here the
// parser's events (YAML::EventHandler) become PlannedLinks directly, one cable at a time. The input
// accepted and the diagnostics are those of the former tree-based reader:
//  - only the first document is read; a syntax error is then the only diagnostic;
//  - with repeated `cables:`/`links:` keys the last one counts, and top-level key errors come
//    before the cables' errors wherever the keys are;
//  - a null value (`kind:`, `~`) is an empty field (an error for required ones); a null key
//    is called "null", a map or list used as a key "";
//  - an alias stands for its anchored node, including that node's line: anchored nodes are
//    recorded as events and replayed. (A node aliased inside itself replays as empty.)
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cstdint>
#include <istream>
#include <iterator>
#include <streambuf>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fabric/plan.h"
#include "fabric/plan_fields.h"

namespace ibw::fabric {
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

enum class YamlEv : uint8_t { scalar, null, seq, map, end };

class PlanYamlEvents : public YAML::EventHandler {
 public:
  PlanYamlEvents(Plan& plan, const std::string& file) : plan_(plan), items_(file) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    feed(YamlEv::null, mark, {}, anchor);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    feed(YamlEv::scalar, mark, value, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    feed(YamlEv::seq, mark, {}, anchor);
  }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    feed(YamlEv::map, mark, {}, anchor);
  }
  void OnSequenceEnd() override { emit(YamlEv::end, {}, {}); }
  void OnMapEnd() override { emit(YamlEv::end, {}, {}); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t anchor) override {
    const Recording& rec = anchors_[anchor];
    if (rec.depth > 0) {  // aliased inside itself: the node is not complete yet
      Recorded start = rec.events.front();
      emit(start.kind, start.mark, start.value);
      emit(YamlEv::end, {}, {});
      return;
    }
    for (const Recorded& e : rec.events) emit(e.kind, e.mark, e.value);
  }

  // After a successful parse: all diagnostics in the tree reader's order, then the plan.
  void finish(const std::string& file) {
    DiagnosticSink sink(file);
    for (auto& [line, key] : top_errors_)
      sink.add(line, key, "unknown top-level key; expected \"cables\"");
    if (!list_ok_) {
      sink.add(root_line_, "cables", "expected a list of cables");
      sink.throw_if_any();
    }
    DiagnosticSink* out = &items_;
    if (!top_errors_.empty()) {  // the cables' diagnostics go after the top-level ones
      out = &sink;
      try {
        items_.throw_if_any();
      } catch (const InputError& e) {
        for (const auto& d : e.diagnostics()) sink.add(d.line, d.field, d.message);
      }
    }
    finish_plan(plan_, *out);
    out->throw_if_any();
  }

 private:
  // Collections open around the current event; only one item is ever open.
  enum class Frame : uint8_t { top_map, list, item, skip };
  struct Recorded {
    YamlEv kind;
    YAML::Mark mark;
    std::string value;
  };
  struct Recording {
    std::vector<Recorded> events;
    int depth = 0;  // > 0 while the anchored collection is still open
  };

  void feed(YamlEv kind, const YAML::Mark& mark, const std::string& value, YAML::anchor_t anchor) {
    if (anchor) {
      anchors_[anchor] = Recording{};
      recording_.push_back(anchor);
    }
    emit(kind, mark, value);
  }

  void emit(YamlEv kind, const YAML::Mark& mark, const std::string& value) {
    if (!recording_.empty()) record(kind, mark, value);
    if (kind == YamlEv::end) return close();
    int line = mark.line + 1;
    Frame next = Frame::skip;  // for a collection: how to treat its content
    if (stack_.empty()) {      // the document's root
      root_line_ = line;
      if (kind == YamlEv::map)
        next = Frame::top_map;
      else if (kind == YamlEv::seq)
        next = start_list();
    } else if (stack_.back() == Frame::top_map && !top_at_value_) {
      std::string key = key_name(kind, value);
      top_key_is_list_ = key == "cables" || key == "links";
      if (!top_key_is_list_) top_errors_.emplace_back(line, std::move(key));
    } else if (stack_.back() == Frame::top_map) {
      if (top_key_is_list_) list_ok_ = kind == YamlEv::seq;
      if (top_key_is_list_ && list_ok_) next = start_list();
    } else if (stack_.back() == Frame::list) {
      if (kind == YamlEv::map) {
        link_ = PlannedLink{};
        link_.line = line;
        seen_ = 0;
        item_at_value_ = false;
        next = Frame::item;
      } else {
        items_.add(line, "", "each cable must be a map of column: value");
      }
    } else if (stack_.back() == Frame::item && !item_at_value_) {
      key_ = key_name(kind, value);
      key_line_ = line;
      key_known_ = plan_fields::is_known(key_);
      if (!key_known_) items_.add(line, key_, "unknown key; known: " + plan_fields::known_list());
    } else if (stack_.back() == Frame::item && key_known_) {
      if (kind != YamlEv::scalar && kind != YamlEv::null) {
        items_.add(key_line_, key_, "expected a single value");
      } else {  // a null value (`kind:` or `~`) is an empty field
        for (size_t i = 0; i < std::size(plan_fields::kRequired); ++i)
          if (plan_fields::kRequired[i] == key_) seen_ |= 1u << i;
        plan_fields::set_field(link_, key_, value, key_line_, items_);
      }
    }
    if (kind == YamlEv::seq || kind == YamlEv::map)
      stack_.push_back(next);
    else
      node_done();
  }

  void close() {
    Frame f = stack_.back();
    stack_.pop_back();
    if (f == Frame::item) {
      for (size_t i = 0; i < std::size(plan_fields::kRequired); ++i)
        if (!(seen_ & (1u << i)))
          items_.add(link_.line, std::string(plan_fields::kRequired[i]), "required key missing");
      plan_.links.push_back(std::move(link_));
    }
    node_done();
  }

  // A whole node (key or value) is done: its map now expects the other half of a pair.
  void node_done() {
    if (stack_.empty()) return;
    if (stack_.back() == Frame::top_map)
      top_at_value_ = !top_at_value_;
    else if (stack_.back() == Frame::item)
      item_at_value_ = !item_at_value_;
  }

  // A later `cables:` replaces an earlier one, with its diagnostics.
  Frame start_list() {
    list_ok_ = true;
    plan_.links.clear();
    items_ = DiagnosticSink(items_.file());
    return Frame::list;
  }

  // What YAML::Node::as<std::string>("") gives for a key.
  static std::string key_name(YamlEv kind, const std::string& value) {
    return kind == YamlEv::scalar ? value : kind == YamlEv::null ? "null" : "";
  }

  void record(YamlEv kind, const YAML::Mark& mark, const std::string& value) {
    for (YAML::anchor_t a : recording_) {
      Recording& rec = anchors_[a];
      rec.events.push_back({kind, mark, value});
      rec.depth += kind == YamlEv::seq || kind == YamlEv::map ? 1 : kind == YamlEv::end ? -1 : 0;
    }
    recording_.erase(std::remove_if(recording_.begin(), recording_.end(),
                                    [this](YAML::anchor_t a) { return anchors_[a].depth == 0; }),
                     recording_.end());
  }

  Plan& plan_;
  DiagnosticSink items_;  // diagnostics of the current cables list
  std::vector<std::pair<int, std::string>> top_errors_;
  int root_line_ = 0;  // 0 when there is no document at all
  bool list_ok_ = false;
  std::vector<Frame> stack_;
  bool top_at_value_ = false, top_key_is_list_ = false;
  bool item_at_value_ = false, key_known_ = false;
  std::string key_;
  int key_line_ = 0;
  unsigned seen_ = 0;  // bit i: kRequired[i] has a value
  PlannedLink link_;
  std::unordered_map<YAML::anchor_t, Recording> anchors_;
  std::vector<YAML::anchor_t> recording_;  // anchored nodes still open
};

}  // namespace

Plan parse_plan_yaml(std::string_view data, const std::string& file) {
  Plan plan{file, PlanFormat::yaml, {}};
  PlanYamlEvents events(plan, file);
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
  events.finish(file);
  return plan;
}

}  // namespace ibw::fabric
