// `ibwarden store backup FILE [--config FILE]`: an online copy of the daemon's SQLite store
// (store/backup.h). Any failure (configuration, missing store, existing FILE, I/O) is exit 2.
#include <iostream>

#include "cli/commands.h"
#include "config/config.h"
#include "store/backup.h"

namespace ibw::cli {

int cmd_store_backup(const CmdArgs& args) {
  return run_command(args, "store backup", [&] {
    std::string file = args.get("FILE").value_or("");
    if (file.empty()) throw UsageError("FILE is required");
    config::Config cfg = config::load_config(args.get("config").value_or(""));
    if (cfg.store.backend != "sqlite")
      throw std::runtime_error(
          "store backup copies a SQLite store; back up PostgreSQL (store.url) "
          "with its own tools (pg_dump, pg_basebackup)");
    store::BackupResult r = store::backup_store(cfg.store.path, file);
    std::cout << "ibwarden store backup: wrote " << file << " (" << r.pages << " pages, " << r.bytes
              << " bytes)\n";
    return 0;
  });
}

}  // namespace ibw::cli
