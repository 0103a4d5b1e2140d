// Input diagnostics: every bad input is reported as file:line: field: message, and loaders
// collect all of them before failing so an operator fixes a file in one pass.
#pragma once

#include <cstddef>
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

// Size caps of the files ibwarden reads (issue 31): a huge file, or /dev/zero given as a plan
// or a probe file, fails at once with an error naming the file and the cap, never by memory.
inline constexpr size_t kMaxConfigBytes = size_t{4} << 20;   // config, rules, tokens
inline constexpr size_t kMaxSecretBytes = size_t{64} << 10;  // password, token, secret files
inline constexpr size_t kMaxInputBytes = size_t{1} << 30;    // plan, topology, LFTs, probes

// Reads a whole file of at most max_bytes; throws InputError naming the file when it cannot be
// read, is larger ("over the 4 MiB cap for a config file"; `what` names the kind), or is not
// a regular file or a pipe (a device such as /dev/zero, a directory).
std::string read_file(const std::string& path, size_t max_bytes = kMaxInputBytes,
                      const char* what = "an input file");

// A secret (password, token, webhook secret) file, read as read_file with kMaxSecretBytes,
// refused when group or other users may write it (readable by the service's group is fine):
// "PATH: group or other users may write it (chmod go-w; it holds a secret)".
std::string read_secret_file(const std::string& path);

// A whole file as read-only text: mapped, not copied, when it is a regular file (a 100 MB
// probe file then costs no copy and no fresh memory); read as read_file does otherwise
// (pipes, /proc). Throws as read_file (the same cap). The text lives as long as the object.
class FileText {
 public:
  explicit FileText(const std::string& path, size_t max_bytes = kMaxInputBytes);
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
