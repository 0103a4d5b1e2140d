// What the *.e2e.mjs tests share: their environment and deadline, their step log and checks,
// GET on the API with a token, Debian's headless Chromium, a page that collects every uncaught
// page error and console error (the test fails on any), and the report of a failure.
//
//   const { env, out } = setup('grid_large.e2e.mjs', 'run_grid.sh', ['IBW_URL', 'IBW_VIEWER'], 200);
//   const { step, check, apiGet } = helpers('grid', env.IBW_URL, env.IBW_VIEWER);
//   const browser = await launchChromium();
//   const page = await openPage(browser, { width: 1280, height: 900 }, problems);
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

// The environment variables `names` as env (the test exits 2 when one is unset: `runner` sets
// them), out = $IBW_E2E_OUT (default e2e-output; screenshots), created, and a deadline below
// ctest's TIMEOUT: after `seconds` the test fails, so that a hang still ends in a report.
export function setup(test, runner, names, seconds) {
  const env = Object.fromEntries(names.map((n) => [n, process.env[n]]));
  if (names.some((n) => !env[n])) {
    const list = names.length > 1 ? names.slice(0, -1).join(', ') + ' and ' + names.at(-1) : names[0];
    console.error(`${test}: ${list} must be set (${runner} sets them)`);
    process.exit(2);
  }
  const out = process.env.IBW_E2E_OUT || 'e2e-output';
  mkdirSync(out, { recursive: true });
  setTimeout(() => { console.error(`FAILED: the test took over ${seconds} s`); process.exit(1); }, seconds * 1000).unref();
  return { env, out };
}

// step(text) logs "[tag hh:mm:ss] text"; check(cond, what) throws unless cond, else logs
// "ok: what"; apiGet(path) is GET /api/v1<path> on `url` with the bearer `token`, as JSON.
export function helpers(tag, url, token) {
  const step = (s) => console.log(`[${tag} ${new Date().toISOString().slice(11, 19)}] ${s}`);
  function check(cond, what) {
    if (!cond) throw new Error('check failed: ' + what);
    step('ok: ' + what);
  }
  async function apiGet(path) {
    const r = await fetch(new URL('/api/v1' + path, url), { headers: { Authorization: 'Bearer ' + token } });
    if (!r.ok) throw new Error(`GET ${path}: HTTP ${r.status}`);
    return r.json();
  }
  return { step, check, apiGet };
}

// Chromium at $CHROMIUM (default /usr/bin/chromium), headless, without background traffic.
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-quic',
      '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
}

// A new page of `viewport` size whose uncaught errors, and the console errors `counts(message)`
// accepts (default: all), are pushed onto `problems`.
export async function openPage(browser, viewport, problems, counts = () => true) {
  const page = await (await browser.newContext({ viewport })).newPage();
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && counts(m)) problems.push('console error: ' + m.text());
  });
  return page;
}

// Reports a failed test: the error, the problems collected, and a screenshot of the page at
// `shot` (best effort). Returns true, for `failed = await reportFailure(...)`.
export async function reportFailure(e, problems, page, shot) {
  console.error('FAILED: ' + e.message);
  for (const p of problems) console.error('  ' + p);
  await page.screenshot({ path: shot }).catch(() => {});
  return true;
}
