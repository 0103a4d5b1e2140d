// Internal to web/metrics*.cpp: the Prometheus text writer the families are rendered with,
// and the families read from the store (metrics_store.cpp), which render_metrics() calls.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "web/metrics.h"

namespace ibw::web::metrics_detail {

// Integers as such; otherwise the shortest text that reads back as the same double.
std::string number(double v);
// name="value", the value escaped (escape_label).
std::string label(const char* name, const std::string& value);

class Writer {
 public:
  // base: labels every sample carries first ('fabric="x"'; "" none).
  explicit Writer(std::string base) : base_(std::move(base)) {}
  void family(const char* name, const char* help, const char* type = "gauge") {
    out_ += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  }
  void sample(const char* name, double v) {
    out_ += std::string(name) + (base_.empty() ? "" : "{" + base_ + "}") + " " + number(v) + "\n";
  }
  void sample(const char* name, const std::string& labels, double v) {
    out_ += std::string(name) + "{" + base_ + (base_.empty() ? "" : ",") + labels + "} " +
            number(v) + "\n";
  }
  // Without the base labels (a family labelled by the fabric it describes).
  void own_labels(const char* name, const std::string& labels, double v) {
    out_ += std::string(name) + "{" + labels + "} " + number(v) + "\n";
  }
  // A family of one unlabelled sample: HELP, TYPE and the value.
  void gauge(const char* name, const char* help, double v) {
    family(name, help);
    sample(name, v);
  }
  // The family always listed; its sample only when the value is known.
  void gauge(const char* name, const char* help, const std::optional<int64_t>& v) {
    family(name, help);
    if (v) sample(name, static_cast<double>(*v));
  }
  std::string take() { return std::move(out_); }

 private:
  std::string base_;
  std::string out_;
};

// Read from the store (when it could be read).
void store_families(Writer& w, const MetricsSnapshot& m);
// Per fabric in the store, labelled by that fabric.
void fabric_families(Writer& w, const MetricsSnapshot& m);

}  // namespace ibw::web::metrics_detail
