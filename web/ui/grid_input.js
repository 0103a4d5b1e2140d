// grid_input.js: the pointer and the keyboard on the port grid (view_ports.js), whose cells are
// pixels of a canvas (grid_canvas.js), not elements. Two real links stand in for them:
//  - the hover cell: an <a class="cell hover"> moved onto the cell under the pointer, with its
//    port page as href and the port's tooltip as title, so a click, a ctrl- or middle-click
//    (new tab) and the tooltip are the browser's own; over a pending cell there is none;
//  - the cursor cell: an <a class="cell cursor" data-port="NODE/PORT" href=...> that the arrow
//    keys move (scrolling it into view) and focus, so Enter opens its port page and a screen
//    reader reads its title. Home, End, PageUp and PageDown scroll the grid.
// Both are placed in the grid's content (grid coordinates, like the row labels), so they
// scroll with it.
import { h, portHref } from './ui.js';
import { kCell, kNameWidth, kPitch, kRowHeight } from './grid_canvas.js';

const kTop = (kRowHeight - kCell) / 2;

// `grid` is the scroll container, `inner` its content; `g` tells about the grid:
// g.cols(), g.total(), g.port(i) -> the port of index i or undefined (still coming), and
// g.title(p) -> the tooltip of port p.
export function gridInput(grid, inner, g) {
  const hover = h('a', { class: 'cell hover', tabindex: '-1', 'aria-hidden': 'true' });
  const cursor = h('a', { class: 'cell cursor', 'data-testid': 'grid-cursor' });
  hover.hidden = true;
  cursor.hidden = true;
  let hovered = -1, hoverPort = null, at = -1, atPort = null;

  const place = (el, i) => {
    const cols = g.cols();
    el.style.top = `${Math.floor(i / cols) * kRowHeight + kTop}px`;
    el.style.left = `${kNameWidth + (i % cols) * kPitch}px`;
  };
  // The index of the cell under a viewport point, or -1 (between cells, the labels, past the end).
  function cellAt(clientX, clientY) {
    const box = grid.getBoundingClientRect();
    const x = clientX - box.left - grid.clientLeft - kNameWidth;
    const y = clientY - box.top - grid.clientTop + grid.scrollTop;
    if (x < 0 || y < 0 || x % kPitch >= kCell || y % kRowHeight < kTop || y % kRowHeight >= kTop + kCell) return -1;
    const c = Math.floor(x / kPitch), i = Math.floor(y / kRowHeight) * g.cols() + c;
    return c < g.cols() && i < g.total() ? i : -1;
  }
  function showHover(i) {
    const p = i < 0 ? undefined : g.port(i);
    // A cell whose page is still coming keeps its index: refresh() shows it once drawn, so the
    // pointer resting on it gets its link back without moving.
    if (!p) { hovered = i; hoverPort = null; hover.hidden = true; return; }
    if (i === hovered && p === hoverPort) return;
    hovered = i;
    hoverPort = p;
    place(hover, i);
    hover.href = portHref(p.node, p.port);
    hover.title = g.title(p);
    hover.hidden = false;
  }
  // The cursor shows the port of index `at`, or, while its page is coming, no link.
  function showCursor() {
    if (at < 0) { cursor.hidden = true; return; }
    const p = g.port(at);
    place(cursor, at);
    cursor.hidden = false;
    if (p === atPort) return;
    atPort = p;
    if (p) {
      cursor.href = portHref(p.node, p.port);
      cursor.dataset.port = `${p.node}/${p.port}`;
      cursor.title = g.title(p);
    } else {
      cursor.removeAttribute('href');
      cursor.removeAttribute('data-port');
      cursor.removeAttribute('title');
    }
  }
  function moveCursor(to) {
    const total = g.total();
    if (total <= 0) return;
    at = Math.max(0, Math.min(total - 1, to));
    const top = Math.floor(at / g.cols()) * kRowHeight;
    if (top < grid.scrollTop) grid.scrollTop = top;
    else if (top + kRowHeight > grid.scrollTop + grid.clientHeight) grid.scrollTop = top + kRowHeight - grid.clientHeight;
    atPort = null;
    showCursor();
    cursor.focus({ preventScroll: true });
  }

  grid.addEventListener('mousemove', (e) => showHover(cellAt(e.clientX, e.clientY)));
  grid.addEventListener('mouseleave', () => showHover(-1));
  // A click on a cell that did not reach a link (no hover link there yet, e.g. a touch, or the
  // cell's page redrawn under a resting pointer): the same as the link.
  grid.addEventListener('click', (e) => {
    if (e.target.closest('a')) return;
    const i = cellAt(e.clientX, e.clientY), p = i < 0 ? undefined : g.port(i);
    if (!p) return;
    if (e.ctrlKey || e.metaKey) window.open(portHref(p.node, p.port), '_blank');
    else location.assign(portHref(p.node, p.port));
  });
  grid.addEventListener('keydown', (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const cols = g.cols();
    const first = () => Math.ceil(grid.scrollTop / kRowHeight) * cols;  // the first row fully in view
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -cols, ArrowDown: cols }[e.key];
    if (step !== undefined) {
      moveCursor(at < 0 ? first() : at + step);
    } else if (e.key === 'Enter' && e.target === grid && at >= 0 && cursor.href) {
      location.assign(cursor.href);
    } else if (e.key === 'Home' || e.key === 'End') {
      grid.scrollTop = e.key === 'Home' ? 0 : grid.scrollHeight;
    } else if (e.key === 'PageUp' || e.key === 'PageDown') {
      grid.scrollTop += (e.key === 'PageUp' ? -1 : 1) * Math.max(kRowHeight, grid.clientHeight - kRowHeight);
    } else {
      return;
    }
    e.preventDefault();
  });

  return {
    elements: [hover, cursor],
    // After a draw: the ports under the hover and the cursor may have come or changed.
    refresh() {
      if (hovered >= 0) showHover(hovered);
      showCursor();
    },
    // The grid starts over (a filter, a new width): indexes mean other ports now.
    reset() {
      const focused = document.activeElement === cursor;
      hovered = -1; hoverPort = null; at = -1; atPort = null;
      hover.hidden = true;
      cursor.hidden = true;
      if (focused) grid.focus({ preventScroll: true });
    },
  };
}
