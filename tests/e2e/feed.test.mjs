// Unit test of the dashboard's live-feed grouping (web/ui/feed.js), run by Node without a
// browser: bursts from one source become one storm line; events from another source, or
// after a gap, do not join it; decisions stay single lines; ids are never shown twice.
import assert from 'node:assert/strict';
import { Feed } from '../../web/ui/feed.js';

globalThis.requestAnimationFrame = () => {};  // render() is not exercised here

let id = 0;
const ev = (ms, source = 'opensm', kind = 'link_down') => ({
  id: ++id, time: new Date(Date.UTC(2026, 10, 22, 3, 0, 0) + ms).toISOString(), source, kind,
  severity: 'warning', node: `leaf${id}`, port: 1, message: '',
});

const f = new Feed();
for (let i = 0; i < 60; ++i) f.add('event', ev(i * 20), true);         // 60 events in 1.2 s
f.add('event', ev(1200, 'ufm'), true);                                  // another source
f.add('event', ev(5000), true);                                         // after a 3.8 s gap
f.add('event', ev(5500), true);
f.add('decision', { id: 1, action: 'disable', status: 'executed' }, true);
f.add('event', ev(5600), true);                                         // a decision splits
f.add('event', { ...ev(5700), id: 3 }, true);                           // an old id: dropped

assert.deepEqual(f.groups.map((g) => [g.kind, g.items.length]),
  [['events', 60], ['events', 1], ['events', 2], ['decision', 1], ['events', 1]]);
const rows = f.groups.filter((g) => g.kind === 'events' && g.items.length >= 10);
assert.equal(rows.length, 1, 'exactly one storm');

// A very long storm stays one group; the feed keeps at most 300 groups.
const g = new Feed();
for (let i = 0; i < 5000; ++i) g.add('event', ev(10000 + i * 10), true);
assert.equal(g.groups.length, 1);
for (let i = 0; i < 400; ++i) g.add('decision', { id: i }, true);
assert.equal(g.groups.length, 300);
console.log('feed grouping: ok');
