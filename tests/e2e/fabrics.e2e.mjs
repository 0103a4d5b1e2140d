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
import { gridPorts } from './grid.mjs';
import { helpers, launchChromium, openPage, reportFailure, setup } from './harness.mjs';

const { env, out } = setup('fabrics.e2e.mjs', 'run_fabrics.sh', ['IBW_URL', 'IBW_VIEWER'], 150);
const { IBW_URL: url, IBW_VIEWER: viewer } = env;

const { step, check, apiGet } = helpers('e2e-fabrics', url, viewer);

// The node names of the cells the port grid shows, once it has drawn `n` of them.
async function gridNodes(page, n) {
  await page.waitForFunction((want) => {
    const g = document.querySelector('[data-testid=port-grid]');
    const rows = [...document.querySelectorAll('[data-testid=port-grid] [data-testid=grid-row]')];
    return g && g.dataset.total === String(want) && rows.every((r) => !r.dataset.pending) &&
      rows.flatMap((r) => JSON.parse(r.dataset.ports || '[]')).length === want;
  }, n, { timeout: 20000, polling: 100 });
  const ports = await gridPorts(page);
  return [...new Set(ports.map((p) => p.slice(0, p.lastIndexOf('/'))))];
}

const browser = await launchChromium();
const problems = [];
let failed = false;
const page = await openPage(browser, { width: 1280, height: 900 }, problems);
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
  failed = await reportFailure(e, problems, page, `${out}/fabrics-failure.png`);
}
await browser.close();
process.exit(failed ? 1 : 0);
