// Unit test of the dashboard's live-feed grouping (web/ui/feed.js), run by Node without a
// browser: a burst becomes one group whatever the sources (counted per source and kind);
// an event after a gap starts a new one; decisions stay single lines and do not split a
// burst; ids are never shown twice; a storm keeps counts but only its first 100 events.
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
f.add('event', ev(1200, 'counters', 'counter_jump'), true);            // another source joins
f.add('event', ev(5000), true);                                         // after a 3.8 s gap
f.add('event', ev(5500), true);
f.add('decision', { id: 1, action: 'disable', status: 'executed' }, true);
f.add('event', ev(5600), true);                   // joins its burst across the decision line
f.add('event', ev(9000), true);                                         // a new burst
f.add('event', { ...ev(5700), id: 3 }, true);                           // an old id: dropped

assert.deepEqual(f.groups.map((g) => [g.kind, g.kind === 'events' ? g.count : 1]),
  [['events', 61], ['events', 3], ['decision', 1], ['events', 1]]);
assert.deepEqual([...f.groups[0].counts], [['opensm link_down', 60], ['counters counter_jump', 1]]);
const rows = f.groups.filter((g) => g.kind === 'events' && g.count >= 10);
assert.equal(rows.length, 1, 'exactly one storm');

// A very long storm stays one group; the feed keeps at most 300 groups.
const g = new Feed();
for (let i = 0; i < 5000; ++i) g.add('event', ev(10000 + i * 10), true);
assert.equal(g.groups.length, 1);
assert.equal(g.groups[0].count, 5000);
assert.equal(g.groups[0].items.length, 100, 'a storm keeps only its first 100 events');
assert.equal(g.groups[0].last.id, id, 'and its newest');
for (let i = 0; i < 400; ++i) g.add('decision', { id: i }, true);
assert.equal(g.groups.length, 300);
console.log('feed grouping: ok');
