// End-to-end test of the virtualized port grid at a large size, in Debian's headless Chromium
// (playwright-core). tests/e2e/run_grid.sh starts ibw-bench-web_lab (the daemon's web
// backend, API and server over a store of a 3-tier fat tree, tens of thousands of ports) and
// passes IBW_URL, IBW_VIEWER (token) and IBW_E2E_OUT (screenshots). The test checks that:
//   1. the grid knows every port (its total is the API's) but draws only the rows in view;
//   2. scrolled to a row in the middle, that row shows exactly the ports the API lists at its
//      offset (row N holds ports N*cols .. N*cols+cols-1, in the API's order), by name;
//   3. scrolled to the end, the last cell is the last port;
//   4. a filter to one node shows only that node's ports, and a cell opens its port page.
// Any uncaught page error or console error fails the test.
import { helpers, launchChromium, openPage, reportFailure, setup } from './harness.mjs';

const { env, out } = setup('grid_large.e2e.mjs', 'run_grid.sh', ['IBW_URL', 'IBW_VIEWER'], 200);
const { IBW_URL: url, IBW_VIEWER: viewer } = env;
const { step, check, apiGet } = helpers('grid', url, viewer);

const browser = await launchChromium();
const problems = [];
let failed = false;
const page = await openPage(browser, { width: 1280, height: 900 }, problems);
try {
  await page.addInitScript((t) => sessionStorage.setItem('ibwarden.token', t), viewer);
  const total = (await apiGet('/ports?limit=1')).total;
  check(total >= 20000, `the store holds a large fabric (${total} ports)`);

  // 1. All ports known, few drawn.
  await page.goto(url + '#/ports');
  const grid = page.getByTestId('port-grid');
  await page.waitForFunction((n) => document.querySelector('[data-testid=port-grid]')?.dataset.total === String(n),
    total, { timeout: 30000 });
  await page.locator('[data-testid=port-grid] .vrow .cell[data-port]').first().waitFor({ timeout: 30000 });
  const drawn = await page.locator('[data-testid=port-grid] .cell').count();
  check(drawn > 0 && drawn < total / 5, `the grid draws only the rows in view (${drawn} of ${total} cells)`);
  const firstRow = page.locator('[data-testid=grid-row][data-row="0"] .cell[data-port]');
  const cols = await firstRow.count();
  const first = (await apiGet(`/ports?limit=${cols}`)).ports.map((p) => `${p.node}/${p.port}`);
  check(JSON.stringify(await firstRow.evaluateAll((els) => els.map((e) => e.dataset.port))) === JSON.stringify(first),
    `row 0 holds the first ${cols} ports in the API's order`);

  // 2. Row N in the middle, reached by scrolling.
  const rows = Math.ceil(total / cols);
  const n = Math.floor(rows / 2) + 7;
  await grid.evaluate((g, top) => { g.scrollTop = top; }, n * 18);
  const rowN = page.locator(`[data-testid=grid-row][data-row="${n}"]`);
  await page.waitForFunction((r) => {
    const row = document.querySelector(`[data-testid=grid-row][data-row="${r}"]`);
    return row && row.querySelectorAll('.cell[data-port]').length > 0 && !row.querySelector('.cell.pending');
  }, n, { timeout: 30000 });
  const want = (await apiGet(`/ports?limit=${cols}&offset=${n * cols}`)).ports;
  const got = await rowN.locator('.cell[data-port]').evaluateAll((els) => els.map((e) => e.dataset.port));
  check(JSON.stringify(got) === JSON.stringify(want.map((p) => `${p.node}/${p.port}`)),
    `scrolled to row ${n}, it shows ports ${n * cols}..${n * cols + cols - 1} (${got[0]} .. ${got[got.length - 1]})`);
  check((await rowN.locator('.name').textContent()).startsWith(want[0].node), `row ${n} is labelled ${want[0].node}`);
  check(await rowN.isVisible(), `row ${n} is on screen`);
  await page.screenshot({ path: `${out}/grid-middle.png` });

  // 3. The end.
  await grid.evaluate((g) => { g.scrollTop = g.scrollHeight; });
  const lastPort = (await apiGet(`/ports?limit=1&offset=${total - 1}`)).ports[0];
  const lastLabel = `${lastPort.node}/${lastPort.port}`;
  await page.locator(`[data-testid=port-grid] .cell[data-port="${lastLabel}"]`).waitFor({ timeout: 30000 });
  const lastRow = await page.locator(`[data-testid=grid-row][data-row="${rows - 1}"] .cell[data-port]`).last()
    .getAttribute('data-port');
  check(lastRow === lastLabel, `the last row ends with the last port (${lastLabel})`);

  // 4. A filter to one node, then a cell to its port page.
  await page.getByTestId('port-filter').fill(want[0].node);
  await page.getByTestId('port-filter').press('Enter');
  await page.waitForFunction((node) => {
    const cells = [...document.querySelectorAll('[data-testid=port-grid] .cell[data-port]')];
    return cells.length > 0 && cells.every((c) => c.dataset.port.startsWith(node + '/'));
  }, want[0].node, { timeout: 30000 });
  const nodePorts = (await apiGet(`/ports?node=${encodeURIComponent(want[0].node)}`)).total;
  const shown = await page.locator('[data-testid=port-grid] .cell[data-port]').count();
  check(shown === nodePorts, `the filter shows the node's ${nodePorts} ports`);
  await page.locator(`[data-testid=port-grid] .cell[data-port="${want[0].node}/${want[0].port}"]`).click();
  await page.waitForFunction((h) => location.hash === h,
    `#/port/${encodeURIComponent(want[0].node)}/${want[0].port}`, { timeout: 15000 });
  check(true, 'a cell opens its port page');
  check(problems.length === 0, 'no page or console errors' + (problems.length ? ': ' + problems.join('; ') : ''));
} catch (e) {
  failed = await reportFailure(e, problems, page, `${out}/grid-failure.png`);
}
await browser.close();
process.exit(failed ? 1 : 0);
