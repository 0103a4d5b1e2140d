// grid_canvas.js: paints the port grid's cells (view_ports.js) on canvases instead of a DOM
// element per cell: ~5,500 elements in view cost every scroll frame style, layout and paint
// (issue 32: frames of 66-300 ms at 393k ports). The cells are drawn on tiles, a canvas per
// kTileRows rows placed in the grid's content, so the browser scrolls them itself; a tile is
// painted again only when it comes into reach or its ports change. (One viewport-sized sticky
// canvas painted every scroll frame was tried: in software raster the per-frame upload of
// its bitmap blocked the main thread ~10 ms a frame.)
//
// Geometry (the old DOM grid's, kept so the page looks the same): rows of kRowHeight px, a
// kCell px cell every kPitch px across starting kNameWidth px from the left (the row label's
// column), vertically centred in its row. A tile starts kTileMargin px left of the first
// cell (room for an outline) and is devicePixelRatio-sized.
//
// Colours are the stylesheet's: a port's colour comes from its state (the CSS variables of
// :root), then its heat (errors or congestion) as before; a planned link that is down has a
// 1 px outline in --bad around the cell.

export const kRowHeight = 18;  // px per row
export const kPitch = 16;      // px per cell across (a 14 px cell and the 2 px gap)
export const kCell = 14;       // px: the cell
export const kNameWidth = 198; // px: the row label (190) and the gap (8) before the first cell
export const kTileRows = 16;   // rows per tile
export const kTileMargin = 2;  // px left of the first cell on a tile
const kTop = (kRowHeight - kCell) / 2;

// The error heat: green (clean) through yellow to red at 10^4 errors/s.
export function heat(rate) {
  const x = Math.min(1, Math.log10(1 + rate) / 4);
  return `hsl(${Math.round(120 - 120 * x)}, 70%, ${Math.round(38 + 10 * x)}%)`;
}

// The congestion heat (a finding of GET /api/v1/congestion): blue through purple.
export function congestionHeat(c) {
  const drops = c.discards_per_s > 0 ? Math.log10(1 + c.discards_per_s) / 4 : 0;
  const x = Math.min(1, Math.max((c.wait_ratio || 0) / 0.5, drops));
  return `hsl(${Math.round(210 + 80 * x)}, 70%, ${Math.round(62 - 22 * x)}%)`;
}

// The state colours, read once from the stylesheet's variables (style.css :root and .cell.s-*).
let palette = null;
function colours() {
  if (palette) return palette;
  const css = getComputedStyle(document.documentElement);
  const v = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
  const info = v('--info', '#58a6ff');
  palette = {
    state: new Map([['active', v('--ok', '#2ea043')], ['init', info], ['armed', info],
      ['disabled', v('--off', '#8b5cf6')], ['down', '#3a4048']]),
    plannedDown: '#6e7681', other: '#30363d', pending: '#21262d', outline: v('--bad', '#f85149'),
  };
  return palette;
}

// A port's look: {fill, outline}. `mode` is 'errors' or 'congestion'; `congestion` is the
// port's congestion finding (or undefined); `rate` its errors/s (used for active ports only).
export function cellLook(p, mode, congestion, rate) {
  const c = colours();
  const off = p.disabled_by_ibwarden || p.phys_state === 'Disabled';
  const state = off ? 'disabled' : (p.state || '?').toLowerCase();
  const plannedDown = state === 'down' && !!p.cable_id;
  let fill = plannedDown ? c.plannedDown : (c.state.get(state) || c.other);
  if (mode === 'congestion') {
    if (congestion) fill = congestionHeat(congestion);
  } else if (state === 'active' && rate > 0) {
    fill = heat(rate);
  }
  return { fill, outline: plannedDown };
}

// Paints one tile: `canvas` gets the rows [first, first + kTileRows) of `cols` cells;
// cells(r) -> the count of cells of row r (0 past the end), look(r, c) -> the look of row r's
// cell c, or null while its port is still coming (a grey placeholder).
export function paintTile(canvas, first, cols, cells, look) {
  const dpr = window.devicePixelRatio || 1;
  const width = kTileMargin + cols * kPitch, height = kTileRows * kRowHeight;
  if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  const byFill = new Map();  // colour -> [x, y, x, y, ...]: one fillStyle per colour
  const outlines = [];
  const pending = colours().pending;
  for (let r = first; r < first + kTileRows; ++r) {
    const y = (r - first) * kRowHeight + kTop;
    const n = cells(r);
    for (let c = 0; c < n; ++c) {
      const x = kTileMargin + c * kPitch;
      const l = look(r, c);
      const fill = l ? l.fill : pending;
      let xs = byFill.get(fill);
      if (!xs) byFill.set(fill, (xs = []));
      xs.push(x, y);
      if (l && l.outline) outlines.push(x, y);
    }
  }
  for (const [fill, xs] of byFill) {
    ctx.fillStyle = fill;
    for (let i = 0; i < xs.length; i += 2) ctx.fillRect(xs[i], xs[i + 1], kCell, kCell);
  }
  if (outlines.length) {
    ctx.strokeStyle = colours().outline;
    ctx.lineWidth = 1;
    for (let i = 0; i < outlines.length; i += 2) {
      ctx.strokeRect(outlines[i] - 0.5, outlines[i + 1] - 0.5, kCell + 1, kCell + 1);
    }
  }
}
