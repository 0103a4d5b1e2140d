#include "ingest/event.h"

namespace ibw::ingest {

std::string_view source_name(EventSource s) {
  switch (s) {
    case EventSource::opensm:
      return "opensm";
    case EventSource::counters:
      return "counters";
    case EventSource::ufm:
      return "ufm";
  }
  return "?";
}

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::info:
      return "info";
    case Severity::warning:
      return "warning";
    case Severity::error:
      return "error";
    case Severity::critical:
      return "critical";
  }
  return "?";
}

}  // namespace ibw::ingest
