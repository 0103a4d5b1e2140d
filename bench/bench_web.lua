-- wrk script for bench/bench_web.sh: optional fixed-rate pacing and a one-line summary.
--
-- IBW_WRK_RATE (requests/s, all threads together) and IBW_WRK_THREADS (wrk -t) come from the
-- environment. With a rate, each wrk thread issues its share on a fixed schedule: every
-- delay() call (a connection about to send its next request) claims the thread's next slot,
-- rate/threads per second apart, and waits for it. A slot already past is sent at once and
-- counted as late, so a slow server is not hidden by a slower client: the schedule is never
-- reset, and the summary gives the achieved rate, the late requests and the worst lag. wrk
-- measures latency from the moment a request is written, so a late request's wait for a free
-- connection is not in the percentiles (coordinated omission): that is what `late` shows.
-- Without a rate, no delay() is defined and wrk runs closed-loop as fast as it can.
-- IBW_WRK_PATHS: see request() below.
-- done() prints: RESULT rps=.. requests=.. p50=.. p90=.. p99=.. max=.. (ms) errors=..
-- non2xx=.. late=.. lag_max=.. (ms)

local ffi = require("ffi")
ffi.cdef([[
typedef struct { long tv_sec; long tv_nsec; } ibw_timespec;
int clock_gettime(int clk_id, ibw_timespec *tp);
]])
local clock_monotonic = 1
local ts = ffi.new("ibw_timespec")

local function now_ms()
  ffi.C.clock_gettime(clock_monotonic, ts)
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

local rate = tonumber(os.getenv("IBW_WRK_RATE") or "0") or 0
local nthreads = tonumber(os.getenv("IBW_WRK_THREADS") or "1") or 1

-- Per thread (globals, read back by done() through thread:get).
late = 0      -- requests sent more than 1 ms after their slot
lag_max = 0   -- worst lag behind the schedule, ms

if rate > 0 then
  local interval = 1000 * nthreads / rate  -- ms between this thread's slots
  local slot = nil

  function delay()
    local now = now_ms()
    slot = (slot or now) + interval
    local wait = slot - now
    if wait >= 0 then return math.floor(wait + 0.5) end
    if -wait > 1 then late = late + 1 end
    if -wait > lag_max then lag_max = -wait end
    return 0
  end
end

-- IBW_WRK_PATHS (optional): a file of request paths, one a line; each request takes one at
-- random (pages a client has not asked for before, so no answer comes from a cache).
local paths_file = os.getenv("IBW_WRK_PATHS")
if paths_file and paths_file ~= "" then
  local paths = {}
  for line in io.lines(paths_file) do
    if line ~= "" then table.insert(paths, line) end
  end
  math.randomseed(os.time() + math.floor(now_ms()))
  function request()
    return wrk.format(nil, paths[math.random(#paths)])
  end
end

local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function done(summary, latency, requests)
  local all_late, worst = 0, 0
  for _, t in ipairs(threads) do
    all_late = all_late + (tonumber(t:get("late")) or 0)
    worst = math.max(worst, tonumber(t:get("lag_max")) or 0)
  end
  local e = summary.errors
  io.write(string.format(
      "RESULT rps=%.1f requests=%d p50=%.2f p90=%.2f p99=%.2f max=%.2f errors=%d non2xx=%d " ..
          "late=%d lag_max=%.1f\n",
      summary.requests / (summary.duration / 1e6), summary.requests,
      latency:percentile(50) / 1000, latency:percentile(90) / 1000,
      latency:percentile(99) / 1000, latency.max / 1000,
      e.connect + e.read + e.write + e.timeout, e.status, all_late, worst))
end
