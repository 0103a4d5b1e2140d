// Argument parsing shared by the bench/*.cpp programs: whole numbers and a flag walker.
#pragma once

#include <exception>
#include <optional>
#include <string>

namespace ibw::bench {

// `text` as a whole number in C notation (decimal, 0x hex, 0 octal); nullopt when it is not
// one, or has anything after the number.
inline std::optional<unsigned long> whole_number(const std::string& text) {
  try {
    size_t used = 0;
    unsigned long v = std::stoul(text, &used, 0);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// Walks a command line flag by flag, for the benches' own parsers:
//   Flags f{argc, argv, usage};
//   while (f.next()) if (f.flag == "--lid") lid = number(f.value(), f.flag); else ...
struct Flags {
  int argc;
  char** argv;
  void (*usage)(const std::string& why);  // exits
  std::string flag;                       // the current one
  int i = 0;

  bool next() {
    if (++i >= argc) return false;
    flag = argv[i];
    return true;
  }
  // The argument after the current flag (usage() when there is none).
  std::string value() {
    if (i + 1 >= argc) usage(flag + " needs a value");
    return argv[++i];
  }
};

}  // namespace ibw::bench
