// The running Slurm jobs ("slurm_jobs"), with slurm.enabled: every slurm.jobs_refresh one
// `squeue` of every running job (actions::CommandSlurmClient, bounded by slurm.timeout) into
// FabricState::jobs (daemon/job_board.h), on this source's own thread, so the action worker
// and the web API only read the last answer and never wait for Slurm. A failed read is
// counted (ibwarden_slurm_jobs_refresh_failures_total), keeps the last good answer, marks the
// source degraded on the health board (/api/v1/health) and is logged on the change and then
// at most once every 10 minutes while it lasts.
#include "actions/affected_jobs.h"
#include "daemon/logger.h"
#include "daemon/sources/sources.h"

namespace ibw::daemon {
namespace slurm_jobs_detail {

constexpr int64_t kLogEveryUs = 600'000'000;  // a lasting failure is logged again this often

void run(SourceContext& ctx, const std::optional<std::string>& /*cursor*/) {
  const config::SlurmSection& s = ctx.cfg().slurm;
  actions::CommandSlurmClient client(actions::slurm_commands(s));
  int64_t logged_us = 0;
  int64_t last_ok = 0;
  while (ctx.running()) {
    int64_t now = ctx.clock().now_us();
    try {
      auto jobs = client.running_jobs({});
      size_t n = jobs.size();
      ctx.fabric().jobs.set(std::move(jobs), ctx.clock().now_us());
      last_ok = ctx.clock().now_us();
      if (ctx.report({"slurm_jobs", ingest::HealthState::ok, "", last_ok, last_ok}))
        log(LogLevel::info, "Slurm jobs read again", {{"running", n}});
    } catch (const std::exception& e) {
      ctx.fabric().jobs.failed();
      bool changed =
          ctx.report({"slurm_jobs", ingest::HealthState::degraded, e.what(), last_ok, now});
      if (changed || now - logged_us >= kLogEveryUs) {
        logged_us = now;
        log(LogLevel::error, "Slurm running jobs not read (affected jobs keep the last answer)",
            {{"error", e.what()}});
      }
    }
    ctx.nap(std::chrono::microseconds(s.jobs_refresh_us));
  }
}

}  // namespace slurm_jobs_detail

std::unique_ptr<Source> make_slurm_jobs() {
  return std::make_unique<FunctionSource>("slurm_jobs", &slurm_jobs_detail::run);
}

}  // namespace ibw::daemon
