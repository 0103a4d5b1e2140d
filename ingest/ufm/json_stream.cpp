// A JSON array scanned piece by piece; see json_stream.h.
#include "ingest/ufm/json_stream.h"

#include "ingest/ufm/json_scanner.h"

namespace ibw::ingest {

JsonArrayStream::JsonArrayStream() : scanner_(std::make_unique<ufm_json_scan_detail::Scanner>()) {}
JsonArrayStream::~JsonArrayStream() = default;
JsonArrayStream::JsonArrayStream(JsonArrayStream&&) noexcept = default;
JsonArrayStream& JsonArrayStream::operator=(JsonArrayStream&&) noexcept = default;

bool JsonArrayStream::feed(std::string_view bytes, const OnElement& on_element) {
  if (!error_.empty()) return false;
  // Without a held tail the piece is scanned where it is; only its unfinished end is copied.
  const bool in_place = held_.empty();
  if (!in_place) held_.append(bytes);
  std::string_view text = in_place ? bytes : std::string_view(held_);
  size_t from = in_place ? 0 : tracked_;
  // The end of the last ',' or ']' of the array itself: everything before it is whole
  // elements, which the scanner reads exactly as it would in the whole document.
  size_t cut = 0;
  for (size_t i = from; i < text.size(); ++i) {
    char c = text[i];
    if (in_string_) {
      if (escaped_)
        escaped_ = false;
      else if (c == '\\')
        escaped_ = true;
      else if (c == '"')
        in_string_ = false;
    } else if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if (c == '}' || c == ']') {
      if (depth_ == 1 && c == ']') cut = i + 1;
      --depth_;
    } else if (c == ',' && depth_ == 1) {
      cut = i + 1;
    }
  }
  size_t used = 0;
  if (cut > 0) {
    scanner_->input(text.substr(0, cut), base_);
    if (!scanner_->step(/*final=*/false, on_element)) {
      error_ = scanner_->error();
      held_.clear();
      return false;
    }
    used = scanner_->pos();
  }
  base_ += used;
  if (in_place)
    held_.assign(text.substr(used));
  else
    held_.erase(0, used);
  tracked_ = held_.size();
  return true;
}

std::string JsonArrayStream::finish(const OnElement& on_element) {
  if (!error_.empty()) return error_;
  scanner_->input(held_, base_);
  scanner_->step(/*final=*/true, on_element);
  error_ = scanner_->error();
  held_.clear();
  held_.shrink_to_fit();
  return error_;
}

}  // namespace ibw::ingest
