// Input diagnostics: every bad input is reported as file:line: field: message, and loaders
// collect all of them before failing so an operator fixes a file in one pass.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ibw::fabric {

struct Diagnostic {
  std::string file;
  int line = 0;       // 1-based; 0 when the problem is about the whole file
  std::string field;  // column/key name; empty when not about one field
  std::string message;
};

// "plan.csv:12: a_port: \"x\" is not a port number"
std::string format_diagnostic(const Diagnostic& d);

// Thrown by loaders with every problem found; what() holds them one per line.
class InputError : public std::runtime_error {
 public:
  explicit InputError(std::vector<Diagnostic> diags);
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }

 private:
  std::vector<Diagnostic> diags_;
};

// Collects diagnostics for one file; throw_if_any() raises InputError when any were added.
class DiagnosticSink {
 public:
  explicit DiagnosticSink(std::string file) : file_(std::move(file)) {}
  void add(int line, std::string field, std::string message);
  bool empty() const { return diags_.empty(); }
  size_t size() const { return diags_.size(); }
  const std::string& file() const { return file_; }
  void throw_if_any();
  // Appends another sink's diagnostics (a part of the same input checked apart), in order.
  void absorb(DiagnosticSink&& other) {
    for (auto& d : other.diags_) diags_.push_back(std::move(d));
    other.diags_.clear();
  }

 private:
  std::string file_;
  std::vector<Diagnostic> diags_;
};

// Reads a whole file; throws InputError naming the file when it cannot be read.
std::string read_file(const std::string& path);

// A whole file as read-only text: mapped, not copied, when it is a regular file (a 100 MB
// probe file then costs no copy and no fresh memory); read as read_file does otherwise
// (pipes, /proc). Throws as read_file. The text lives as long as the object.
class FileText {
 public:
  explicit FileText(const std::string& path);
  ~FileText();
  FileText(FileText&& other) noexcept;
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;
  FileText& operator=(FileText&&) = delete;
  std::string_view text() const { return map_ ? std::string_view(map_, size_) : copy_; }

 private:
  const char* map_ = nullptr;
  size_t size_ = 0;
  std::string copy_;
};

}  // namespace ibw::fabric
