// Reading and using the dashboard's port grid (web/ui/view_ports.js) in the e2e tests: its
// cells are pixels of a canvas, described for tests by one element per row in view,
// [data-testid=grid-row][data-row=N] with data-ports (a JSON list of "node/port" in the order
// drawn) and data-pending while a page of the row is still coming. Clicks go to the canvas at
// the cell's coordinates, as a user's would (the geometry is grid_canvas.js's).
const kRowHeight = 18, kPitch = 16, kCell = 14, kNameWidth = 198;
const kRows = '[data-testid=port-grid] [data-testid=grid-row]';

// The ports the rows in view describe, in row order (pending rows give what they have).
export function gridPorts(page) {
  return page.evaluate((sel) => [...document.querySelectorAll(sel)]
    .sort((a, b) => Number(a.dataset.row) - Number(b.dataset.row))
    .flatMap((r) => JSON.parse(r.dataset.ports || '[]')), kRows);
}

// Waits until the rows in view describe ports and none is pending.
export async function gridSettled(page, timeout = 30000) {
  await page.waitForFunction((sel) => {
    const rows = [...document.querySelectorAll(sel)];
    return rows.length > 0 && rows.every((r) => !r.dataset.pending) && rows.some((r) => r.dataset.ports !== '[]');
  }, kRows, { timeout, polling: 100 });
}

// Waits until row r is described with all its ports; returns them.
export async function rowPorts(page, r, timeout = 30000) {
  const sel = `${kRows}[data-row="${r}"]:not([data-pending])`;
  await page.waitForFunction((s) => !!document.querySelector(s), sel, { timeout, polling: 100 });
  return JSON.parse(await page.locator(sel).getAttribute('data-ports'));
}

// The viewport point at the centre of the cell drawn for `label` ("node/port"), its row scrolled
// into view first; null when no complete row in view holds it within `timeout` ms.
export async function cellPoint(page, label, timeout = 15000) {
  const shown = ([sel, l]) => [...document.querySelectorAll(sel)]
    .some((row) => !row.dataset.pending && JSON.parse(row.dataset.ports).includes(l));
  if (!(await page.waitForFunction(shown, [kRows, label], { timeout, polling: 100 }).catch(() => false))) return null;
  const at = await page.evaluate(([sel, l, h]) => {
    for (const row of document.querySelectorAll(sel)) {
      const c = row.dataset.pending ? -1 : JSON.parse(row.dataset.ports).indexOf(l);
      if (c >= 0) {
        const r = Number(row.dataset.row), grid = row.closest('[data-testid=port-grid]');
        if (r * h < grid.scrollTop || (r + 1) * h > grid.scrollTop + grid.clientHeight) grid.scrollTop = r * h - 2 * h;
        return { r, c };
      }
    }
    return null;
  }, [kRows, label, kRowHeight]);
  if (!at) return null;
  await rowPorts(page, at.r);  // after a scroll: drawn again
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  return page.evaluate(([r, c, geo]) => {
    const grid = document.querySelector('[data-testid=port-grid]'), box = grid.getBoundingClientRect();
    return {
      x: box.left + grid.clientLeft + geo.kNameWidth + c * geo.kPitch + geo.kCell / 2,
      y: box.top + grid.clientTop + r * geo.kRowHeight - grid.scrollTop + geo.kRowHeight / 2,
    };
  }, [at.r, at.c, { kRowHeight, kPitch, kCell, kNameWidth }]);
}

// Clicks the cell drawn for `label` on the canvas; options: page.mouse.click's (e.g. button:
// 'middle') and modifiers (keys held, e.g. ['Control']).
export async function clickCell(page, label, { modifiers = [], ...options } = {}) {
  const at = await cellPoint(page, label);
  if (!at) {
    const seen = await page.evaluate((sel) => ({
      visibility: document.visibilityState, hash: location.hash,
      rows: [...document.querySelectorAll(sel)].map((r) => `${r.dataset.row}${r.dataset.pending ? ' (pending)' : ''}: ${r.dataset.ports}`),
    }), kRows);
    throw new Error(`the port grid shows no cell for ${label} (page ${seen.visibility} at ${seen.hash}; rows ${seen.rows.join('; ') || 'none'})`);
  }
  for (const key of modifiers) await page.keyboard.down(key);
  await page.mouse.click(at.x, at.y, options);
  for (const key of modifiers) await page.keyboard.up(key);
}

// The colour the grid's canvas (a tile) shows at a viewport point, as "rgb(r, g, b)".
export function pixelAt(page, x, y) {
  return page.evaluate(([px, py]) => {
    const canvas = document.elementsFromPoint(px, py).find((e) => e.tagName === 'CANVAS');
    if (!canvas) return 'no canvas';
    const box = canvas.getBoundingClientRect();
    const dpr = canvas.width / box.width;
    const [r, g, b] = canvas.getContext('2d').getImageData(Math.floor((px - box.left) * dpr),
      Math.floor((py - box.top) * dpr), 1, 1).data;
    return `rgb(${r}, ${g}, ${b})`;
  }, [x, y]);
}
