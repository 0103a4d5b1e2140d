// Times the dashboard in headless Chromium on a running demo (bench/bench_dashboard.sh):
// overview until the fabric numbers show, the port grid until every port has its cell, a
// redraw of the grid after typing a filter, and the link page until its chart is drawn.
// Prints one JSON object of milliseconds (median of RUNS) and the cell count.
const pw = await import(process.env.PLAYWRIGHT_CORE);
const { IBW_URL: url, IBW_VIEWER: token } = process.env;
const runs = Number(process.env.RUNS || 5);

const browser = await pw.chromium.launch({
  executablePath: '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-quic',
    '--no-first-run', '--disable-component-update', '--disable-sync'],
});
const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
await context.addInitScript((t) => sessionStorage.setItem('ibwarden.token', t), token);
const page = await context.newPage();
const fabric = await (await fetch(new URL('/api/v1/fabric', url), { headers: { Authorization: 'Bearer ' + token } })).json();

async function timed(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = { overview: [], grid: [], filter: [], link: [] };
for (let i = 0; i < runs; ++i) {
  results.overview.push(await timed(async () => {
    await page.goto('about:blank');  // a real page load each run, not a hash change
    await page.goto(url + '#/');
    await page.getByTestId('fabric-stats').getByText('ports', { exact: true }).waitFor();
  }));
  results.grid.push(await timed(async () => {
    await page.goto('about:blank');
    await page.goto(url + '#/ports');
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=port-grid] .cell').length === n,
      fabric.ports, { polling: 20 });
  }));
  results.filter.push(await timed(async () => {
    await page.getByTestId('port-filter').fill('leaf01');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=switch-row]').length <= 10, null, { polling: 10 });
  }));
  results.link.push(await timed(async () => {
    await page.goto('about:blank');
    await page.goto(url + '#/port/leaf005/34');
    await page.getByTestId('counter-chart').waitFor();
  }));
}
const heap = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : 0));
await browser.close();
console.log(JSON.stringify({
  ports: fabric.ports, cells: fabric.ports,
  overview_ms: Math.round(median(results.overview)), grid_ms: Math.round(median(results.grid)),
  filter_ms: Math.round(median(results.filter)), link_ms: Math.round(median(results.link)),
  js_heap_mib: +(heap / 1048576).toFixed(1),
}));
