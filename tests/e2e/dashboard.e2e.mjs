// End-to-end test of the dashboard in Debian's headless Chromium, driven by playwright-core.
// tests/e2e/run.sh starts the demo fabric (scripts/demo.sh --faults off) and passes, in the
// environment: IBW_URL, IBW_OPERATOR (token), IBW_CONSOLE (ibsim's console FIFO) and
// IBW_E2E_OUT (where screenshots go). The test:
//   1. opens the dashboard and signs in as an operator;
//   2. injects symbol errors on the uplink leaf005/10 through the ibsim console and waits for
//      the port to show up as disabled by ibwarden, without reloading the page;
//   3. opens the port's work order from that row and checks the cable and locations;
//   4. re-enables the port from the order page, giving a reason, and sees the order resolved
//      and the port gone from the disabled list; the API then shows the executed enable;
//   5. visits the port grid, the link page (chart), tries to disable a host's only link (the
//      guard's refusal shows in the dialog) and the audit;
//   6. makes leaf007/11 drop 40% of what it receives (a cursed link no counter shows), sees
//      the Routes page's heatmap and the cursed_path disable, and follows it to the port;
//   7. unlinks a whole leaf and sees the burst of link-down events as one storm line.
// Any uncaught page error or console error (a CSP violation, say) fails the test.
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { clickCell, gridSettled } from './grid.mjs';
import { helpers, launchChromium, openPage, setup } from './harness.mjs';

const { env, out } = setup('dashboard.e2e.mjs', 'run.sh', ['IBW_URL', 'IBW_OPERATOR', 'IBW_CONSOLE'], 330);
const { IBW_URL: url, IBW_OPERATOR: operator, IBW_CONSOLE: consoleFifo } = env;

const kPort = 'leaf005/10';

// One ibsim console command. Non-blocking: with ibsim gone, opening its FIFO fails (ENXIO)
// instead of blocking the whole event loop.
function inject(command) {
  const fd = openSync(consoleFifo, constants.O_WRONLY | constants.O_NONBLOCK);
  try { writeSync(fd, command + '\n'); } finally { closeSync(fd); }
}
const problems = [];
const { step, check, apiGet } = helpers('e2e', url, operator);

const browser = await launchChromium();
let failed = false;
let signedIn = false;  // before sign-in, the first API call's 401 is expected
let expect409 = false;  // the browser logs the guard's refusal (an API answer) as an error
const page = await openPage(browser, { width: 1440, height: 1000 }, problems,
  (m) => signedIn && !(expect409 && /status of 409/.test(m.text())));
try {
  // 1. Open and sign in.
  await page.goto(url);
  const login = page.getByTestId('login');
  await login.waitFor({ state: 'visible', timeout: 15000 });
  await page.getByTestId('token-input').fill(operator);
  await page.getByTestId('login-submit').click();
  await login.waitFor({ state: 'hidden', timeout: 10000 });
  signedIn = true;
  await page.getByTestId('who').filter({ hasText: 'operator' }).waitFor({ timeout: 10000 });
  await page.getByTestId('fabric-stats').getByText('links', { exact: true }).waitFor({ timeout: 15000 });
  await page.getByTestId('health-status').filter({ hasText: /^(ok|degraded)$/ }).waitFor({ timeout: 30000 });
  check(true, 'dashboard open, signed in as operator');
  await page.screenshot({ path: `${out}/1-overview.png`, fullPage: true });

  // 2. A fault: the rules disable the uplink; the open page shows it without a reload.
  check((await page.locator(`[data-testid=disabled-port][data-port="${kPort}"]`).count()) === 0,
    `${kPort} is not disabled before the fault`);
  inject('PerformanceSet "leaf005"[10] PortCounters.SymbolErrorCounter=5000');
  step('fault injected: SymbolErrorCounter=5000 on ' + kPort);
  const row = page.locator(`[data-testid=disabled-port][data-port="${kPort}"]`);
  await row.waitFor({ timeout: 60000 });
  check(true, `${kPort} appears as disabled by ibwarden`);
  await page.getByTestId('feed-decision').first().waitFor({ timeout: 10000 });
  check(true, 'the live feed shows the decision');
  await page.screenshot({ path: `${out}/2-disabled.png`, fullPage: true });

  // 3. Its work order.
  await row.getByTestId('order-link').click();
  const detail = page.getByTestId('order-detail');
  await detail.getByTestId('order-cable').waitFor({ timeout: 10000 });
  const cable = (await detail.getByTestId('order-cable').textContent()).trim();
  check(cable === 'C-leaf005-10', `the order names the plan's cable (${cable})`);
  const text = await detail.textContent();
  check(text.includes('yes, by ibwarden'), 'the order says the port is disabled by ibwarden');
  await page.screenshot({ path: `${out}/3-workorder.png`, fullPage: true });

  // 4. Re-enable from the order page as an operator.
  await detail.getByTestId('enable-button').click();
  await page.getByTestId('reason-input').fill('reseated the cable (e2e)');
  await page.getByTestId('confirm-action').click();
  await page.getByTestId('confirm').waitFor({ state: 'hidden', timeout: 30000 });
  await detail.locator('.badge.resolved').waitFor({ timeout: 15000 });
  check(true, 'the order is resolved after the enable');
  await page.screenshot({ path: `${out}/4-enabled.png`, fullPage: true });
  const decisions = (await apiGet('/decisions')).decisions;
  const enable = decisions.find((d) => d.action === 'enable' && `${d.node}/${d.port}` === kPort);
  check(enable && enable.status === 'executed' && enable.reason.includes('reseated the cable (e2e)'),
    'the API shows the executed enable with the reason typed in the UI');
  await page.goto(url + '#/');
  await page.getByTestId('disabled-ports').getByText('no port is disabled').waitFor({ timeout: 15000 });
  check(true, 'the overview no longer lists the port as disabled');

  // 5. The other pages.
  await page.goto(url + '#/ports');
  await gridSettled(page, 15000);
  const fabric = await apiGet('/fabric');
  await page.waitForFunction((n) => document.querySelector('[data-testid=port-grid]').dataset.total === String(n),
    fabric.ports, { timeout: 15000, polling: 100 });
  check(true, `the grid holds every port (${fabric.ports}; tests/e2e/grid_large.e2e.mjs scrolls a large one)`);
  await page.screenshot({ path: `${out}/5-ports.png`, fullPage: true });
  await clickCell(page, kPort);  // on the canvas, at the cell's place
  await page.getByTestId('counter-chart').waitFor({ timeout: 15000 });
  check(true, 'the link page draws a counter chart');
  await page.screenshot({ path: `${out}/6-link.png`, fullPage: true });
  // The guard's refusal reaches the operator: a host's only link is never disabled.
  await page.goto(url + '#/port/leaf006/1');
  await page.getByTestId('disable-button').click();
  check(await page.locator('#confirm-force-row').isHidden(), 'no force option for an operator');
  await page.getByTestId('reason-input').fill('e2e: try to cut a host off');
  expect409 = true;
  await page.getByTestId('confirm-action').click();
  const refusal = page.locator('#confirm-error');
  await refusal.filter({ hasText: 'refused' }).waitFor({ timeout: 15000 });
  check((await refusal.textContent()).includes('host'),
    `the dialog shows the guard's reason (${(await refusal.textContent()).slice(0, 90)}...)`);
  await page.locator('#confirm-cancel').click();
  expect409 = false;
  await page.goto(url + '#/audit');
  await page.getByTestId('audit-finding').first().waitFor({ timeout: 15000 });
  check(true, 'the audit page lists the demo fabric\'s cabling mistakes');
  await page.screenshot({ path: `${out}/7-audit.png`, fullPage: true });

  // 6. A cursed link: leaf007/11 silently drops 40% of what it receives. The probes find it,
  //    the cursed_path rule disables it, and the Routes page shows the heatmap, the suspect or
  //    the decision, and links to the port's evidence.
  await page.goto(url + '#/routes');
  await page.getByTestId('route-heatmap').waitFor({ timeout: 30000 });
  const leaves = (await apiGet('/routes/health')).switches.length;
  const hcells = await page.locator('[data-testid=route-heatmap] .hcell').count();
  check(leaves >= 12 && hcells === leaves * leaves, `the heatmap has leaf x leaf cells (${hcells})`);
  inject('Error "leaf007"[11] 40');
  step('fault injected: leaf007/11 drops 40% of the packets it receives');
  let cursed = null;
  for (let i = 0; i < 90 && !cursed; ++i) {
    cursed = (await apiGet('/decisions?since=1h')).decisions.find(
      (d) => d.rule === 'cursed_path' && d.action === 'disable' && d.status === 'executed');
    if (!cursed) await new Promise((r) => setTimeout(r, 1000));
  }
  check(cursed && [`${cursed.node}/${cursed.port}`, `${cursed.peer_node}/${cursed.peer_port}`].includes('leaf007/11'),
    `the cursed_path rule disabled the link at leaf007/11 (${cursed && cursed.reason.slice(0, 80)}...)`);
  const row7 = page.getByTestId('cursed-decision').first();
  await row7.waitFor({ timeout: 15000 });
  await page.screenshot({ path: `${out}/8-routes.png`, fullPage: true });
  await row7.locator('a', { hasText: 'leaf007/11' }).click();
  await page.getByTestId('counter-chart').waitFor({ timeout: 15000 });
  await page.getByText('cursed_path', { exact: false }).first().waitFor({ timeout: 15000 });
  check(true, 'the decision links to the port page with the cursed_path evidence');
  inject('Error "leaf007"[11] 0');

  // 7. A storm: a whole leaf unlinked at once gives one grouped line, not a page of events.
  await page.goto(url + '#/');
  await page.getByTestId('feed').waitFor({ timeout: 10000 });
  inject('Unlink "leaf011"');
  step('fault injected: every link of leaf011 unlinked');
  const storm = page.getByTestId('feed-storm').filter({ hasText: 'link_down' }).first();
  await storm.waitFor({ timeout: 30000 });
  const summary = await storm.locator('summary').textContent();
  check(/^\d+ events from [\w +]+ in [\d.]+ s on \d+ nodes: .*link_down/.test(summary),
    `the feed groups the leaf's link-down storm (${summary})`);
  await page.screenshot({ path: `${out}/9-storm.png`, fullPage: true });
  check(problems.length === 0, 'no page or console errors' + (problems.length ? ': ' + problems.join('; ') : ''));
} catch (e) {
  failed = true;
  console.error('FAILED:', e.message);
  if (problems.length) console.error(problems.join('\n'));
  await page.screenshot({ path: `${out}/failure.png`, fullPage: true }).catch(() => {});
} finally {
  await browser.close();
}
console.log(`screenshots in ${out}`);
process.exit(failed ? 1 : 0);
