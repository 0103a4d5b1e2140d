// chart.js: a dependency-free SVG line chart for one counter series: x is time, y is linear
// from 0 to the series' maximum; gaps (null) break the line. Small on purpose: one series,
// three time labels, the maximum on the y axis.
const NS = 'http://www.w3.org/2000/svg';

function el(tag, attrs, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function fmt(v) {
  if (v >= 1e9) return (v / 1e9).toFixed(1) + 'G';
  if (v >= 1e6) return (v / 1e6).toFixed(1) + 'M';
  if (v >= 1e3) return (v / 1e3).toFixed(1) + 'k';
  return v % 1 ? v.toFixed(2) : String(v);
}

// times: ISO strings; values: numbers or null. Returns an <svg> element.
export function lineChart(times, values, { color = '#58a6ff', label = '' } = {}) {
  const W = 800, H = 260, L = 56, R = 10, T = 14, B = 28;
  const svg = el('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none',
    'data-testid': 'counter-chart' });
  const xs = times.map((t) => Date.parse(t));
  const finite = values.filter((v) => v !== null && Number.isFinite(v));
  if (xs.length < 2 || !finite.length) {
    svg.append(el('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle' }, 'not enough samples yet'));
    return svg;
  }
  const x0 = xs[0], x1 = xs[xs.length - 1] === x0 ? x0 + 1 : xs[xs.length - 1];
  const ymax = Math.max(...finite) || 1;
  const px = (x) => L + ((x - x0) / (x1 - x0)) * (W - L - R);
  const py = (y) => T + (1 - y / ymax) * (H - T - B);
  svg.append(el('line', { class: 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B }));
  svg.append(el('line', { class: 'axis', x1: L, y1: T, x2: L, y2: H - B }));
  svg.append(el('text', { x: L - 6, y: T + 4, 'text-anchor': 'end' }, fmt(ymax)));
  svg.append(el('text', { x: L - 6, y: H - B, 'text-anchor': 'end' }, '0'));
  svg.append(el('text', { x: L + 6, y: T + 4 }, label));
  for (const f of [0, 0.5, 1]) {
    const t = new Date(x0 + f * (x1 - x0)).toLocaleTimeString([], { hour12: false });
    svg.append(el('text', { x: L + f * (W - L - R), y: H - 8, 'text-anchor': f === 0 ? 'start' : f === 1 ? 'end' : 'middle' }, t));
  }
  let run = [];
  const flush = () => {
    if (run.length === 1) svg.append(el('circle', { cx: run[0][0], cy: run[0][1], r: 2, fill: color }));
    else if (run.length > 1) svg.append(el('polyline', { points: run.map((p) => p.join(',')).join(' '), stroke: color }));
    run = [];
  };
  values.forEach((v, i) => {
    if (v === null || !Number.isFinite(v)) return flush();
    run.push([px(xs[i]).toFixed(1), py(v).toFixed(1)]);
  });
  flush();
  return svg;
}

// Per-second increase between samples; null across a reset or a gap.
export function ratesOf(times, values) {
  const out = [null];
  for (let i = 1; i < values.length; ++i) {
    const a = values[i - 1], b = values[i];
    const dt = (Date.parse(times[i]) - Date.parse(times[i - 1])) / 1000;
    out.push(a === null || b === null || b < a || dt <= 0 ? null : (b - a) / dt);
  }
  return out;
}
