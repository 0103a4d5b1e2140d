#include "cli/args.h"

#include <charconv>
#include <chrono>
#include <ctime>
#include <iostream>

#include "config/config.h"

namespace ibw::cli {

Args::Args(const std::vector<OptionSpec>& specs, int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0 || arg.size() == 2)
      throw UsageError("unexpected argument \"" + arg + "\"");
    std::string name = arg.substr(2);
    std::optional<std::string> inline_value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name.resize(eq);
    }
    const OptionSpec* spec = nullptr;
    for (const auto& s : specs)
      if (s.name == name) spec = &s;
    if (!spec) throw UsageError("unknown option --" + name);
    if (!spec->repeatable && values_.count(name))
      throw UsageError("--" + name + " given more than once");
    if (!spec->takes_value) {
      if (inline_value) throw UsageError("--" + name + " takes no value");
      values_[name].push_back("");
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argc) throw UsageError("--" + name + " needs a value");
      inline_value = argv[++i];
    }
    values_[name].push_back(*inline_value);
  }
}

std::optional<std::string> Args::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> Args::all(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

namespace args_detail {

std::optional<int> to_int(const std::string& name, const std::optional<std::string>& v, int lo,
                          int hi) {
  if (!v) return std::nullopt;
  int out = 0;
  auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || ptr != v->data() + v->size() || out < lo || out > hi)
    throw UsageError("--" + name + " must be a number " + std::to_string(lo) + "-" +
                     std::to_string(hi) + ", got \"" + *v + "\"");
  return out;
}

}  // namespace args_detail

std::optional<int> Args::get_int(const std::string& name, int lo, int hi) const {
  return args_detail::to_int(name, get(name), lo, hi);
}

void CmdArgs::set(const std::string& name, std::vector<std::string> values,
                  std::vector<std::string> choices) {
  values_[name] = std::move(values);
  if (!choices.empty()) choices_[name] = std::move(choices);
}

std::optional<std::string> CmdArgs::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> CmdArgs::all(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::optional<int> CmdArgs::get_int(const std::string& name, int lo, int hi) const {
  return args_detail::to_int(name, get(name), lo, hi);
}

std::string CmdArgs::choice(const std::string& name, const std::string& fallback) const {
  std::string v = get(name).value_or(fallback);
  auto it = choices_.find(name);
  if (it == choices_.end()) return v;
  const auto& allowed = it->second;
  for (const auto& a : allowed)
    if (a == v) return v;
  std::string list;
  for (size_t i = 0; i < allowed.size(); ++i)
    list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
  throw UsageError("--" + name + " must be " + list + ", got \"" + v + "\"");
}

int CmdArgs::usage_error(const std::string& msg) const {
  std::cerr << "ibwarden " << command_ << ": " << msg << "\n\n" << help_;
  return 2;
}

int run_command(const CmdArgs& args, const std::string& name, const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    return args.usage_error(e.what());
  } catch (const std::exception& e) {
    std::cerr << "ibwarden " << name << ": " << e.what() << "\n";
    return 2;
  }
}

int64_t parse_since_arg(const std::string& text) {
  int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  if (auto d = config::parse_duration(text)) return now - *d;
  std::tm tm{};
  int frac = 0;
  char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!end) end = strptime(text.c_str(), "%Y-%m-%d %H:%M:%S", &tm);
  if (!end) throw UsageError("--since must be a duration (10m) or a time (2026-11-22T01:00:00Z)");
  if (*end == '.') {
    std::string digits;
    for (++end; *end >= '0' && *end <= '9'; ++end) digits += *end;
    digits = (digits + "000000").substr(0, 6);
    frac = std::stoi(digits);
  }
  if (*end == 'Z') ++end;
  if (*end) throw UsageError("--since: unexpected \"" + std::string(end) + "\" (times are UTC)");
  return static_cast<int64_t>(timegm(&tm)) * 1'000'000 + frac;
}

void keep_until_exit(const void* p) {
  static auto* kept = new std::vector<const void*>;  // never destroyed: reachable at exit
  kept->push_back(p);
}

}  // namespace ibw::cli
