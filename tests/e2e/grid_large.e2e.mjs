// End-to-end test of the virtualized port grid at a large size, in Debian's headless Chromium
// (playwright-core). tests/e2e/run_grid.sh starts ibw-bench-web_lab (the daemon's web
// backend, API and server over a store of a 3-tier fat tree, tens of thousands of ports) and
// passes IBW_URL, IBW_VIEWER (token) and IBW_E2E_OUT (screenshots). The test checks that:
//   1. the grid knows every port (its total is the API's) but draws only the rows in view;
//   2. scrolled to a row in the middle, that row shows exactly the ports the API lists at its
//      offset (row N holds ports N*cols .. N*cols+cols-1, in the API's order), by name;
//   3. scrolled to the end, the last cell is the last port;
//   4. the keyboard: Home scrolls to the top, the arrows move the cursor cell (a focused link
//      to the port) and Enter opens that port's page;
//   5. a filter to one node shows only that node's ports; pointing at a cell on the canvas
//      gives its tooltip, a click opens its port page and a ctrl-click opens it in a new tab.
// The cells are drawn on a canvas: the rows' descriptions (tests/e2e/grid.mjs) say which ports
// are drawn where, and clicks go to the canvas at the cell's coordinates.
// Any uncaught page error or console error fails the test.
import { helpers, launchChromium, openPage, reportFailure, setup } from './harness.mjs';
import { cellPoint, clickCell, gridPorts, gridSettled, pixelAt, rowPorts } from './grid.mjs';

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
    total, { timeout: 30000, polling: 100 });
  await gridSettled(page);
  const drawn = (await gridPorts(page)).length;
  check(drawn > 0 && drawn < total / 5, `the grid draws only the rows in view (${drawn} of ${total} cells)`);
  const [painted, view] = await grid.evaluate((g) => [[...g.querySelectorAll('canvas')]
    .reduce((sum, c) => sum + c.getBoundingClientRect().height, 0), g.clientHeight]);
  check(painted >= view && painted <= view + 4 * 16 * 18,
    `the canvas tiles cover the view and a margin only (${painted} px for a ${view} px view)`);
  const firstRow = await rowPorts(page, 0);
  const cols = firstRow.length;
  const first = (await apiGet(`/ports?limit=${cols}`)).ports.map((p) => `${p.node}/${p.port}`);
  check(JSON.stringify(firstRow) === JSON.stringify(first), `row 0 holds the first ${cols} ports in the API's order`);

  // 2. Row N in the middle, reached by scrolling.
  const rows = Math.ceil(total / cols);
  const n = Math.floor(rows / 2) + 7;
  await grid.evaluate((g, top) => { g.scrollTop = top; }, n * 18);
  const rowN = page.locator(`[data-testid=grid-row][data-row="${n}"]`);
  const got = await rowPorts(page, n);
  const want = (await apiGet(`/ports?limit=${cols}&offset=${n * cols}`)).ports;
  check(JSON.stringify(got) === JSON.stringify(want.map((p) => `${p.node}/${p.port}`)),
    `scrolled to row ${n}, it shows ports ${n * cols}..${n * cols + cols - 1} (${got[0]} .. ${got[got.length - 1]})`);
  check((await rowN.locator('.name').textContent()).startsWith(want[0].node), `row ${n} is labelled ${want[0].node}`);
  check(await rowN.isVisible(), `row ${n} is on screen`);
  const errorCounters = /Error|Discards|Overrun|LinkDowned/;  // ui.js kErrorCounters
  const clean = want.find((p) => p.state === 'Active' && !p.disabled_by_ibwarden &&
    !Object.entries(p.rates || {}).some(([k, v]) => errorCounters.test(k) && v > 0));
  const down = want.find((p) => p.state === 'Down' && p.cable_id);
  for (const [p, colour, what] of [[clean, 'rgb(46, 160, 67)', 'active and clean'], [down, 'rgb(110, 118, 129)', 'a planned link down']]) {
    if (!p) continue;
    const at = await cellPoint(page, `${p.node}/${p.port}`);
    const px = await pixelAt(page, at.x, at.y);
    check(px === colour, `the canvas paints ${p.node}/${p.port} (${what}) ${colour}: ${px}`);
  }
  await page.screenshot({ path: `${out}/grid-middle.png` });

  // 3. The end.
  await grid.evaluate((g) => { g.scrollTop = g.scrollHeight; });
  const lastPort = (await apiGet(`/ports?limit=1&offset=${total - 1}`)).ports[0];
  const lastLabel = `${lastPort.node}/${lastPort.port}`;
  const lastRow = await rowPorts(page, rows - 1);
  check(lastRow[lastRow.length - 1] === lastLabel, `the last row ends with the last port (${lastLabel})`);

  // 4. The keyboard: Home, three arrows right (the first puts the cursor on the first cell in
  // view), one down, Enter.
  await grid.focus();
  await page.keyboard.press('Home');
  await page.waitForFunction(() => document.querySelector('[data-testid=port-grid]').scrollTop === 0, null, { timeout: 5000, polling: 100 });
  for (const key of ['ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowDown']) await page.keyboard.press(key);
  const target = (await apiGet(`/ports?limit=1&offset=${2 + cols}`)).ports[0];
  const targetLabel = `${target.node}/${target.port}`;
  const cursor = page.locator(`[data-testid=port-grid] a.cell[data-port="${targetLabel}"]`);
  await cursor.waitFor({ timeout: 15000 });
  check(await cursor.evaluate((a) => document.activeElement === a && a.getAttribute('href') !== null),
    `the arrows move the focused cursor cell to port ${2 + cols} (${targetLabel})`);
  await page.keyboard.press('Enter');
  await page.waitForFunction((h) => location.hash === h,
    `#/port/${encodeURIComponent(target.node)}/${target.port}`, { timeout: 15000, polling: 100 });
  check(true, 'Enter opens the cursor\'s port page');
  await page.goto(url + '#/ports');
  await gridSettled(page);

  // 5. A filter to one node, then a cell to its port page.
  const filterTo = async (node) => {
    await page.getByTestId('port-filter').fill(node);
    await page.getByTestId('port-filter').press('Enter');
    await page.waitForFunction((n) => {
      const ports = [...document.querySelectorAll('[data-testid=port-grid] [data-testid=grid-row]')]
        .flatMap((r) => JSON.parse(r.dataset.ports || '[]'));
      return ports.length > 0 && ports.every((p) => p.startsWith(n + '/'));
    }, node, { timeout: 30000, polling: 100 });
  };
  await filterTo(want[0].node);
  const nodePorts = (await apiGet(`/ports?node=${encodeURIComponent(want[0].node)}`)).total;
  const shown = (await gridPorts(page)).length;
  check(shown === nodePorts, `the filter shows the node's ${nodePorts} ports`);
  const label = `${want[0].node}/${want[0].port}`;
  const href = `#/port/${encodeURIComponent(want[0].node)}/${want[0].port}`;
  const at = await cellPoint(page, label);
  await page.mouse.move(at.x, at.y);
  const tip = await page.locator('[data-testid=port-grid] a.cell.hover').getAttribute('title');
  check(tip.startsWith(label + ' '), `pointing at the cell gives its tooltip (${tip.split('\n')[0]})`);
  await clickCell(page, label);
  await page.waitForFunction((h) => location.hash === h, href, { timeout: 15000, polling: 100 });
  check(true, 'a click on the cell opens its port page');
  // The ctrl-click last: the tab it opens takes the browser's focus (and visibility) from this
  // page, which then may not draw or take a click at once.
  await page.goto(url + '#/ports');
  await gridSettled(page);
  await filterTo(want[0].node);
  const [tab] = await Promise.all([page.context().waitForEvent('page', { timeout: 15000 }),
    clickCell(page, label, { modifiers: ['Control'] })]);
  await tab.waitForLoadState('domcontentloaded');
  check(tab.url().endsWith(href), `a ctrl-click opens ${tab.url()} in a new tab`);
  check(await page.evaluate(() => location.hash) === '#/ports', 'and leaves the grid where it was');
  await tab.close();
  check(problems.length === 0, 'no page or console errors' + (problems.length ? ': ' + problems.join('; ') : ''));
} catch (e) {
  failed = await reportFailure(e, problems, page, `${out}/grid-failure.png`);
}
await browser.close();
process.exit(failed ? 1 : 0);
