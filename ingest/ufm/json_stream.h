// JsonArrayStream: scan_json_array (json_scan.h) fed the document piece by piece as it arrives
// (a libcurl write callback), so that a list of hundreds of megabytes (/resources/ports on a
// 400,000-port fabric) is never held whole: each element is handed out as soon as the text
// after it (the ',' or ']' that closes it) has come, and only the unfinished element's text is
// kept. The elements, their order and the error of a bad document are those scan_json_array
// gives for the whole text, whatever the pieces (error offsets count from the document's start).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/ufm/json_scan.h"

namespace ibw::ingest {

namespace ufm_json_scan_detail {
class Scanner;
}

class JsonArrayStream {
 public:
  using OnElement = std::function<void(const std::vector<JsonMember>& members, bool is_object)>;

  JsonArrayStream();
  ~JsonArrayStream();
  JsonArrayStream(JsonArrayStream&&) noexcept;
  JsonArrayStream& operator=(JsonArrayStream&&) noexcept;

  // The next bytes of the document; calls on_element for each element they complete. False
  // once the text is known not to be a JSON array (error() says why; later bytes are ignored).
  bool feed(std::string_view bytes, const OnElement& on_element);
  // The end of the document: "" when it was a JSON array, else why not (as scan_json_array).
  std::string finish(const OnElement& on_element);
  const std::string& error() const { return error_; }
  // Bytes of an unfinished element kept for the next piece.
  size_t held() const { return held_.size(); }

 private:
  std::unique_ptr<ufm_json_scan_detail::Scanner> scanner_;
  std::string held_;    // text after the last element handed out
  size_t base_ = 0;     // offset of held_[0] in the document
  size_t tracked_ = 0;  // bytes of held_ the bracket tracker has seen
  int depth_ = 0;       // nesting outside strings ('[' of the array = 1)
  bool in_string_ = false;
  bool escaped_ = false;  // the previous byte was a backslash in a string
  std::string error_;
};

}  // namespace ibw::ingest
