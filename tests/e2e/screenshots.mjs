// Saves the manual's pictures of the dashboard (tests/e2e/screenshots.sh starts the demo with
// its faults and passes IBW_URL, IBW_OPERATOR and IBW_E2E_OUT, e.g. docs/img):
//   dashboard-overview.png  health, disabled ports, orders that need a human, the live feed;
//   dashboard-ports.png     the port grid, the disabled and faulty ports in colour;
//   dashboard-workorder.png the work order of the uplink the rules disabled (leaf005/10);
//   dashboard-routes.png    the Routes page: heatmap, suspects, the cursed_path disable.
// It first waits (up to 4 min) until the demo's schedule has played: the symbol-error disable
// at 20 s and the cursed link found and disabled after 110 s.
import { helpers, launchChromium, openPage, setup } from './harness.mjs';
import { gridSettled } from './grid.mjs';

const { env, out } = setup('screenshots.mjs', 'screenshots.sh', ['IBW_URL', 'IBW_OPERATOR'], 420);
const { IBW_URL: url, IBW_OPERATOR: operator } = env;
const { step, check, apiGet } = helpers('shots', url, operator);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The executed disable by `rule` (null: any rule) of `port` (either end), polled for up to `seconds`.
async function disabled(rule, port, seconds) {
  for (let i = 0; i < seconds; ++i) {
    const d = (await apiGet('/decisions?since=1h')).decisions.find(
      (x) => (!rule || x.rule === rule) && x.action === 'disable' && x.status === 'executed' &&
        [`${x.node}/${x.port}`, `${x.peer_node}/${x.peer_port}`].includes(port));
    if (d) return d;
    await sleep(1000);
  }
  return null;
}

const problems = [];
const browser = await launchChromium();
let failed = false;
let signedIn = false;  // before sign-in, the first API call's 401 is expected
const page = await openPage(browser, { width: 1280, height: 800 }, problems, () => signedIn);
// The viewport, or only down to the bottom of `until` (a locator) when that ends higher up.
const shot = async (name, until = null) => {
  await sleep(1500);  // let the charts and the feed settle
  const box = until && (await until.boundingBox());
  const clip = box && { x: 0, y: 0, width: 1280, height: Math.min(800, Math.ceil(box.y + box.height + 24)) };
  await page.screenshot({ path: `${out}/${name}.png`, ...(clip ? { clip } : {}) });
  step(`saved ${out}/${name}.png`);
};
try {
  check(await disabled(null, 'leaf005/10', 120), 'the rules disabled leaf005/10');
  check(await disabled('cursed_path', 'leaf007/11', 240), 'the cursed link leaf007/11 is disabled');

  await page.goto(url);
  await page.getByTestId('token-input').fill(operator);
  await page.getByTestId('login-submit').click();
  await page.getByTestId('login').waitFor({ state: 'hidden', timeout: 10000 });
  signedIn = true;
  await page.locator('[data-testid=disabled-port][data-port="leaf005/10"]').waitFor({ timeout: 15000 });
  await shot('dashboard-overview');

  await page.goto(url + '#/ports');
  await gridSettled(page, 15000);
  await shot('dashboard-ports', page.locator('[data-testid=port-grid] [data-testid=grid-row]').last());

  await page.goto(url + '#/');
  const row = page.locator('[data-testid=disabled-port][data-port="leaf005/10"]');
  await row.getByTestId('order-link').click();
  await page.getByTestId('order-detail').getByTestId('order-cable').waitFor({ timeout: 10000 });
  await shot('dashboard-workorder');

  await page.goto(url + '#/routes');
  await page.getByTestId('route-heatmap').waitFor({ timeout: 30000 });
  await page.getByTestId('cursed-decision').first().waitFor({ timeout: 15000 });
  await shot('dashboard-routes');
  check(problems.length === 0, 'no page or console errors' + (problems.length ? ': ' + problems.join('; ') : ''));
} catch (e) {
  failed = true;
  console.error('FAILED:', e.message);
  if (problems.length) console.error(problems.join('\n'));
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
