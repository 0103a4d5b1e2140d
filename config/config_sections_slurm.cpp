// The slurm: section's key table (issue 33: drain and resume through scontrol; config.h
// SlurmSection) and the load of its node map.
#include <string>

#include "config/config_reader.h"

namespace ibw::config::config_detail {

Keys slurm_keys(Parse& p) {
  Reader& r = p.r;
  SlurmSection& s = p.c.slurm;
  // A command: a bare name is found in PATH when run; anything with a '/' is a path,
  // relative to the config file's directory.
  auto command = [&r](std::string* out) -> Set {
    return [&r, out](N v, S k) {
      std::string c;
      r.string(v, k, &c, false);
      if (c.empty()) return;
      if (c.find_first_of(" \t\n") != std::string::npos)
        return r.bad(v, k, "\"" + c + "\" is one command, without arguments or blanks");
      *out = c.find('/') == std::string::npos ? c : r.resolve(c);
    };
  };
  Set prefix = [&r, &s](N v, S k) {
    std::string t;
    r.string(v, k, &t, false);
    if (t.empty()) return;
    if (t.size() > 64) return r.bad(v, k, "at most 64 characters (Slurm keeps the reason short)");
    for (char c : t)
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        return r.bad(v, k, "must be one line of printable text");
    s.reason_prefix = t;
  };
  Set rest_url = [&r](N v, S k) {
    r.bad(v, k,
          "slurmrestd is not supported yet: remove rest_url; ibwarden reaches Slurm through "
          "the scontrol and squeue commands (keys scontrol, squeue)");
  };
  return {{"enabled", r.set_bool(&s.enabled)},
          {"scontrol", command(&s.scontrol)},
          {"squeue", command(&s.squeue)},
          {"drain", r.set_bool(&s.drain)},
          {"resume", r.set_bool(&s.resume)},
          {"reason_prefix", prefix},
          {"node_map", r.set_optional_path(&s.node_map)},
          {"clean_window", r.set_duration(&s.clean_window_us)},
          {"max_drains_per_hour", r.set_integer(&s.max_drains_per_hour, 0, 100000)},
          {"timeout", r.set_duration(&s.timeout_us)},
          {"jobs_refresh", r.set_duration(&s.jobs_refresh_us)},
          {"rest_url", rest_url}};
}

}  // namespace ibw::config::config_detail

namespace ibw::config {

fabric::HostMapFile load_slurm_node_map(const Config& c) {
  if (!c.slurm.enabled || !c.slurm.node_map) return {};
  try {
    return fabric::load_host_map(*c.slurm.node_map);
  } catch (const fabric::InputError& e) {
    // Errors of the map's own lines name the map; a map that cannot be read is the config's.
    bool unreadable = true;
    for (const auto& d : e.diagnostics()) unreadable = unreadable && d.line == 0;
    if (!unreadable) throw;
    std::string why = e.diagnostics().empty() ? e.what() : e.diagnostics().front().message;
    throw fabric::InputError(
        {{c.file, c.slurm.node_map_line, "slurm.node_map", *c.slurm.node_map + ": " + why}});
  }
}

}  // namespace ibw::config
