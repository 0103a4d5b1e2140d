// Times the dashboard's port grid in headless Chromium (bench/bench_dashboard.sh), on a
// running server (IBW_URL, IBW_VIEWER token). Each of RUNS runs (median reported):
//  - first paint: a fresh page load of #/ports; from navigation start (performance.now() in
//    the page) to the first frame whose DOM has a grid row of real port cells;
//  - scroll: a scripted scroll of the grid, as a user would: 120 frames of wheel-like
//    scrolling (8 rows, 144 px, a frame: ~8,600 px/s, a fast flick) then 10 jumps to random
//    places (a scrollbar drag), 12 frames each. Jank is measured by the frames themselves: the time between requestAnimationFrame
//    callbacks (longest, 95th percentile, frames over 50 ms) and the long tasks (> 50 ms)
//    Chromium reports during the scroll; after it, the rows in view must hold their cells;
//  - filter: typing one node's name until the grid shows only its ports;
//  - overview: #/ until the fabric numbers show.
// Prints one JSON object.
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
const get = async (path) => (await fetch(new URL('/api/v1' + path, url),
  { headers: { Authorization: 'Bearer ' + token } })).json();
const fabric = await get('/fabric');
const someNode = (await get('/ports?limit=1')).ports[0].node;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// Polled every frame: the time of the first frame with a row of real port cells (the canvas
// paints them in the same frame as it updates the rows' description, view_ports.js).
const rowReady = () => (document.querySelector('[data-testid=port-grid] [data-testid=grid-row]:not([data-pending])[data-ports^="[\\""]')
  ? performance.now() : null);

// In the page: the scripted scroll, and what its frames took.
async function scrollRun(seed) {
  const grid = document.querySelector('[data-testid=port-grid]');
  const frames = [];
  let longTasks = 0, longest = 0;
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) { ++longTasks; longest = Math.max(longest, e.duration); }
  });
  obs.observe({ type: 'longtask', buffered: false });
  let x = seed;
  const rand = () => { x = (x * 1103515245 + 12345) % 2147483648; return x / 2147483648; };
  const steps = [];
  for (let i = 0; i < 120; ++i) steps.push(() => { grid.scrollTop += 8 * 18; });
  for (let j = 0; j < 10; ++j) {
    const to = Math.floor(rand() * (grid.scrollHeight - grid.clientHeight));
    steps.push(() => { grid.scrollTop = to; });
    for (let i = 0; i < 11; ++i) steps.push(() => {});
  }
  await new Promise((done) => {
    let last = performance.now(), i = 0;
    const tick = (t) => {
      frames.push(t - last);
      last = t;
      if (i < steps.length) { steps[i++](); requestAnimationFrame(tick); } else done();
    };
    requestAnimationFrame((t) => { last = t; requestAnimationFrame(tick); });
  });
  obs.disconnect();
  frames.shift();  // the first callback measures nothing of ours
  const sorted = [...frames].sort((a, b) => a - b);
  return {
    frames: frames.length, longest_frame_ms: sorted[sorted.length - 1],
    p95_frame_ms: sorted[Math.floor(sorted.length * 0.95)],
    frames_over_50ms: frames.filter((f) => f > 50).length, long_tasks: longTasks,
    longest_task_ms: longest,
  };
}

const results = { paint: [], scroll: [], filter: [], overview: [] };
for (let i = 0; i < runs; ++i) {
  await page.goto('about:blank');  // a real page load each run, not a hash change
  await page.goto(url + '#/ports');
  results.paint.push(await (await page.waitForFunction(rowReady, null, { polling: 'raf', timeout: 60000 })).jsonValue());
  await page.waitForTimeout(500);
  results.scroll.push(await page.evaluate(scrollRun, 12345 + i));
  // After the scroll settles, every row in view has its ports.
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=port-grid] [data-testid=grid-row][data-pending]').length === 0,
    null, { polling: 50, timeout: 30000 });
  const t0 = performance.now();
  await page.getByTestId('port-filter').fill(someNode);
  await page.getByTestId('port-filter').press('Enter');
  await page.waitForFunction((n) => {
    const rows = [...document.querySelectorAll('[data-testid=port-grid] [data-testid=grid-row]')];
    const ports = rows.flatMap((r) => JSON.parse(r.dataset.ports || '[]'));
    return ports.length > 0 && ports.every((p) => p.startsWith(n + '/'));
  }, someNode, { polling: 10, timeout: 30000 });
  results.filter.push(performance.now() - t0);
  const t1 = performance.now();
  await page.goto('about:blank');
  await page.goto(url + '#/');
  await page.getByTestId('fabric-stats').getByText('ports', { exact: true }).waitFor({ timeout: 60000 });
  results.overview.push(performance.now() - t1);
}
const heap = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : 0));
await browser.close();
// The scroll run with the median longest frame stands for the scroll.
const scroll = [...results.scroll].sort((a, b) => a.longest_frame_ms - b.longest_frame_ms)[Math.floor(runs / 2)];
const worst = Math.max(...results.scroll.map((s) => s.longest_frame_ms));
console.log(JSON.stringify({
  ports: fabric.ports, runs,
  first_paint_ms: Math.round(median(results.paint)),
  first_paint_all_ms: results.paint.map(Math.round),
  scroll: Object.fromEntries(Object.entries(scroll).map(([k, v]) => [k, Math.round(v * 10) / 10])),
  scroll_worst_longest_frame_ms: Math.round(worst * 10) / 10,
  filter_ms: Math.round(median(results.filter)), overview_ms: Math.round(median(results.overview)),
  js_heap_mib: +(heap / 1048576).toFixed(1),
}));
