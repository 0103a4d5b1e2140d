// Two fabrics in one dashboard (issue 17), in Debian's headless Chromium with playwright-core.
// tests/e2e/run_fabrics.sh starts ibw-e2e-fabrics_lab (fabrics_lab.cpp): instance host-a
// watching fabric "alpha", over a store that also holds "beta", leased by host-b. It passes
// IBW_URL, IBW_VIEWER (token) and IBW_E2E_OUT (screenshots). The test:
//   1. signs in; the fabric selector lists both fabrics, beta with its leader host-b, and the
//      header names the fabric shown (alpha, the instance's own) and its leader;
//   2. the port grid shows alpha's ports only;
//   3. choosing beta in the selector puts ?fabric=beta in the URL and the grid shows beta's
//      ports only; the header names beta and host-b; the overview counts beta's ports;
//   4. a reload keeps beta (the URL carries it); choosing alpha again brings alpha back.
// Any uncaught page error or console error fails the test.
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

const url = process.env.IBW_URL;
const viewer = process.env.IBW_VIEWER;
const out = process.env.IBW_E2E_OUT || 'e2e-output';
if (!url || !viewer) {
  console.error('fabrics.e2e.mjs: IBW_URL and IBW_VIEWER must be set (run_fabrics.sh sets them)');
  process.exit(2);
}
mkdirSync(out, { recursive: true });
setTimeout(() => { console.error('FAILED: the test took over 150 s'); process.exit(1); }, 150000).unref();

const step = (s) => console.log(`[e2e-fabrics ${new Date().toISOString().slice(11, 19)}] ${s}`);
function check(cond, what) {
  if (!cond) throw new Error('check failed: ' + what);
  step('ok: ' + what);
}
async function apiGet(path) {
  const r = await fetch(new URL('/api/v1' + path, url), { headers: { Authorization: 'Bearer ' + viewer } });
  if (!r.ok) throw new Error(`GET ${path}: HTTP ${r.status}`);
  return r.json();
}

// The node names of the cells the port grid shows, once it has drawn `n` of them.
async function gridNodes(page, n) {
  await page.waitForFunction((want) => {
    const g = document.querySelector('[data-testid=port-grid]');
    return g && g.dataset.total === String(want) &&
      document.querySelectorAll('[data-testid=port-grid] .cell[data-port]').length === want;
  }, n, { timeout: 20000 });
  const ports = await page.locator('[data-testid=port-grid] .cell[data-port]')
    .evaluateAll((els) => els.map((e) => e.dataset.port));
  return [...new Set(ports.map((p) => p.slice(0, p.lastIndexOf('/'))))];
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-quic',
    '--no-first-run', '--disable-component-update', '--disable-sync'],
});
const problems = [];
let failed = false;
const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
page.on('pageerror', (e) => problems.push('page error: ' + e.message));
page.on('console', (m) => { if (m.type() === 'error') problems.push('console error: ' + m.text()); });
try {
  const fabrics = await apiGet('/fabrics');
  check(JSON.stringify(fabrics.map((f) => f.name)) === '["alpha","beta"]', 'GET /fabrics lists alpha and beta');
  const alphaPorts = (await apiGet('/ports?limit=1')).total;
  const betaPorts = (await apiGet('/ports?limit=1&fabric=beta')).total;
  check(alphaPorts !== betaPorts, `the fabrics differ (${alphaPorts} and ${betaPorts} ports)`);
  await page.addInitScript((t) => sessionStorage.setItem('ibwarden.token', t), viewer);

  // 1. The selector and the header.
  await page.goto(url + '#/ports');
  const select = page.getByTestId('fabric-select');
  await select.waitFor({ state: 'visible', timeout: 15000 });
  const options = await select.locator('option').evaluateAll((els) => els.map((e) => [e.value, e.textContent]));
  check(options.length === 2 && options[0][0] === 'alpha' && options[1][0] === 'beta',
    'the selector lists both fabrics: ' + options.map((o) => o[1]).join(', '));
  check(/host-b/.test(options[1][1]), "beta's option names its leader host-b");
  check(await select.inputValue() === 'alpha', 'the instance\'s own fabric is selected');
  await page.getByTestId('fabric-info').filter({ hasText: 'alpha' }).waitFor({ timeout: 10000 });

  // 2. alpha's ports.
  const a = await gridNodes(page, alphaPorts);
  check(a.every((n) => n.startsWith('alpha-')), `the grid shows alpha's ${alphaPorts} ports (${a.join(', ')})`);
  await page.screenshot({ path: `${out}/fabrics-alpha.png` });

  // 3. Switch to beta.
  await Promise.all([page.waitForNavigation({ timeout: 15000 }), select.selectOption('beta')]);
  check(new URL(page.url()).searchParams.get('fabric') === 'beta', 'the URL carries ?fabric=beta');
  check(new URL(page.url()).hash === '#/ports', 'the view is kept');
  const b = await gridNodes(page, betaPorts);
  check(b.every((n) => n.startsWith('beta-')), `the grid shows beta's ${betaPorts} ports (${b.join(', ')})`);
  await page.getByTestId('fabric-info').filter({ hasText: 'beta' }).filter({ hasText: 'host-b' })
    .waitFor({ timeout: 10000 });
  check(true, 'the header names beta and its leader host-b');
  check(await page.getByTestId('fabric-select').inputValue() === 'beta', 'beta is selected');
  await page.screenshot({ path: `${out}/fabrics-beta.png` });
  await page.goto(url + '?fabric=beta#/');
  await page.getByTestId('fabric-stats').getByText('links', { exact: true }).waitFor({ timeout: 15000 });
  const stats = await page.getByTestId('fabric-stats').textContent();
  check(stats.includes(String(betaPorts)), `the overview counts beta's ${betaPorts} ports`);

  // 4. Reload keeps beta; back to alpha.
  await page.goto(url + '?fabric=beta#/ports');
  const b2 = await gridNodes(page, betaPorts);
  check(b2.every((n) => n.startsWith('beta-')), 'a reload keeps beta');
  await page.getByTestId('fabric-select').waitFor({ state: 'visible', timeout: 10000 });
  await Promise.all([page.waitForNavigation({ timeout: 15000 }),
    page.getByTestId('fabric-select').selectOption('alpha')]);
  const a2 = await gridNodes(page, alphaPorts);
  check(a2.every((n) => n.startsWith('alpha-')), 'choosing alpha again shows alpha\'s ports');
  check(problems.length === 0, 'no page or console errors' + (problems.length ? ': ' + problems.join('; ') : ''));
} catch (e) {
  failed = true;
  console.error('FAILED: ' + e.message);
  for (const p of problems) console.error('  ' + p);
  await page.screenshot({ path: `${out}/fabrics-failure.png` }).catch(() => {});
}
await browser.close();
process.exit(failed ? 1 : 0);
