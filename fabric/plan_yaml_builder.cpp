// YAML plan events -> PlannedLinks (see plan_yaml_builder.h).
#include "fabric/plan_yaml_builder.h"

#include "core/strict_keys.h"
#include "fabric/plan_fields.h"

namespace ibw::fabric::plan_yaml {
namespace {

// A cable's keys, in plan_fields' index order (kRequired, then kOptional).
core::KeyTable cable_keys() {
  std::vector<std::string_view> names;
  for (int i = 0; i < plan_fields::kNumRequired + plan_fields::kNumOptional; ++i)
    names.push_back(plan_fields::name_of(i));
  return core::KeyTable(std::move(names));
}
const core::KeyTable kCableKeys = cable_keys();
const core::KeyTable kTopKeys = {"cables", "links"};  // either names the list

// What YAML::Node::as<std::string>("") gave for a key.
std::string_view key_name(Ev kind, std::string_view value) {
  return kind == Ev::scalar ? value : kind == Ev::null ? "null" : "";
}

}  // namespace

void Builder::event(Ev kind, int line, std::string_view value) {
  if (kind == Ev::end) return close();
  Frame next = Frame::skip;  // for a collection: how to treat its content
  if (stack_.empty()) {      // the document's root
    root_line_ = line;
    if (kind == Ev::map)
      next = Frame::top_map;
    else if (kind == Ev::seq)
      next = start_list();
  } else if (stack_.back() == Frame::item && !item_at_value_) {  // the hot path first
    std::string_view key = key_name(kind, value);
    key_line_ = line;
    key_field_ = kCableKeys.find(key);
    if (key_field_ < 0)
      items_.add(line, std::string(key), "unknown key; known: " + kCableKeys.known());
  } else if (stack_.back() == Frame::item && key_field_ >= 0) {
    if (kind != Ev::scalar && kind != Ev::null) {
      items_.add(key_line_, std::string(plan_fields::name_of(key_field_)),
                 "expected a single value");
    } else {  // a null value (`kind:` or `~`) is an empty field
      if (key_field_ < plan_fields::kNumRequired) seen_ |= 1u << key_field_;
      plan_fields::set_field(link_, key_field_, value, key_line_, items_);
    }
  } else if (stack_.back() == Frame::top_map && !top_at_value_) {
    std::string_view key = key_name(kind, value);
    top_key_is_list_ = kTopKeys.contains(key);
    if (!top_key_is_list_) top_errors_.emplace_back(line, std::string(key));
  } else if (stack_.back() == Frame::top_map) {
    if (top_key_is_list_) list_ok_ = kind == Ev::seq;
    if (top_key_is_list_ && list_ok_) next = start_list();
  } else if (stack_.back() == Frame::list) {
    if (kind == Ev::map) {
      link_ = PlannedLink{};
      link_.line = line;
      seen_ = 0;
      item_at_value_ = false;
      next = Frame::item;
    } else {
      items_.add(line, "", "each cable must be a map of column: value");
    }
  }
  if (kind == Ev::seq || kind == Ev::map)
    stack_.push_back(next);
  else
    node_done();
}

void Builder::close() {
  Frame f = stack_.back();
  stack_.pop_back();
  if (f == Frame::item) {
    for (int i = 0; i < plan_fields::kNumRequired; ++i)
      if (!(seen_ & (1u << i)))
        items_.add(link_.line, std::string(plan_fields::kRequired[i]), "required key missing");
    plan_.links.push_back(std::move(link_));
  }
  node_done();
}

// A whole node (key or value) is done: its map now expects the other half of a pair.
void Builder::node_done() {
  if (stack_.empty()) return;
  if (stack_.back() == Frame::top_map)
    top_at_value_ = !top_at_value_;
  else if (stack_.back() == Frame::item)
    item_at_value_ = !item_at_value_;
}

// A later `cables:` replaces an earlier one, with its diagnostics.
Builder::Frame Builder::start_list() {
  list_ok_ = true;
  plan_.links.clear();
  items_ = DiagnosticSink(items_.file());
  return Frame::list;
}

void Builder::finish() {
  DiagnosticSink sink(items_.file());
  for (auto& [line, key] : top_errors_)
    sink.add(line, key, "unknown top-level key; expected \"cables\"");
  if (!list_ok_) {
    sink.add(root_line_, "cables", "expected a list of cables");
    sink.throw_if_any();
  }
  DiagnosticSink* out = &items_;
  if (!top_errors_.empty()) {  // the cables' diagnostics go after the top-level ones
    out = &sink;
    sink.absorb(std::move(items_));
  }
  finish_plan(plan_, *out);
  out->throw_if_any();
}

}  // namespace ibw::fabric::plan_yaml
