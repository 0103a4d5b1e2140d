// Pieces of the observation reader shared by its two files (ingest/observation.cpp: fields and
// writers; ingest/observation_read.cpp: lines, formats and threads). Not for other modules.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fabric/diagnostics.h"
#include "ingest/observation.h"

namespace ibw::ingest::observation_detail {

using Fields = std::vector<std::pair<std::string_view, std::string_view>>;

// The field's own spelling from the list of known fields, empty when it is not one of them.
std::string_view canonical_field(std::string_view f);
// One field's value as text (JSON numbers and strings alike) into the record; a bad value is
// added to the sink as line: field: message.
void set_field(Observation& o, std::string_view field, std::string_view v, int line,
               fabric::DiagnosticSink& sink);
// Checks that need the whole record (`given`: the fields the line had).
void check_record(const Observation& o, const std::vector<std::string_view>& given, int line,
                  fabric::DiagnosticSink& sink);
// A JSON scalar (or array of integers, as "0,1,5") as the text set_field takes.
std::string scalar_text(const nlohmann::json& v);
// One CSV row's cells, trimmed ("" quoting as RFC 4180).
std::vector<std::string> split_csv(std::string_view line);
// The fast path for a flat JSONL object of plain strings, unsigned integers, true, false, null
// and integer arrays (observation.cpp says what it takes); false sends the line to the JSON
// library.
bool scan_flat(std::string_view s, Fields& out);
std::string iso_time(int64_t us);

}  // namespace ibw::ingest::observation_detail
