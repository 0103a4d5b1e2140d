// view_orders.js: the work-order board (one column per status) and an order's page
// ("#/orders/ID") with what a technician needs: the cable, both ends and their rack
// locations, the advice, the running Slurm jobs its link carries, the evidence, and (for operators) status, assignee and note, saved
// with PATCH. A disabled link's order is resolved by enabling the port, not by PATCH.
import { api, byId } from './api.js';
import { debounce, enableButton } from './actions.js';
import { badge, h, jobsText, panel, portLink, replace, splitEnd, timeCell } from './ui.js';

const kColumns = ['open', 'reopened', 'in_progress', 'resolved', 'verified'];

function card(o) {
  return h('a', { class: `card ${o.severity}`, href: `#/orders/${o.id}`, 'data-testid': 'order-card',
    dataset: { order: o.id } },
    h('div', {}, h('b', {}, `#${o.id} `), h('span', { class: 'mono' }, o.cable_id || o.link_key)),
    h('div', { class: 'mono' }, `${o.a} ↔ ${o.b}`),
    h('div', {}, o.summary),
    h('div', { class: 'meta' }, badge(o.severity), o.needs_human ? [' ', badge('needs human', 'critical')] : '',
      ` ${o.offences} offence${o.offences === 1 ? '' : 's'}`, o.assignee ? ` · ${o.assignee}` : ''));
}

function board(root, ctx) {
  const cols = h('div', { class: 'board', 'data-testid': 'order-board' });
  replace(root, h('h1', {}, 'Work orders'), cols);
  async function load() {
    const { items: all } = await byId('/workorders?limit=1000', 'workorders', { pages: 20 });
    replace(cols, kColumns.map((s) => {
      const list = all.filter((o) => o.status === s).sort((a, b) => b.updated.localeCompare(a.updated));
      return h('div', { class: 'column', dataset: { status: s } },
        h('h2', {}, `${s.replace('_', ' ')} (${list.length})`), list.slice(0, 200).map(card));
    }));
  }
  const refresh = debounce(() => load().catch((e) => replace(cols, h('p', { class: 'error' }, e.message))), 500);
  refresh();
  return { onLive: (type) => { if (type !== 'event') refresh(); } };
}

function detail(root, ctx, id) {
  const body = h('div', { 'data-testid': 'order-detail' });
  replace(root, h('p', {}, h('a', { href: '#/orders' }, '← all work orders')), body);
  async function load() {
    if (body.contains(document.activeElement) && document.activeElement.form) return;  // typing
    const [o, fab] = await Promise.all([api(`/workorders/${id}`), api('/fabric')]);
    const [an, ap] = splitEnd(o.a), [bn, bp] = splitEnd(o.b);
    // The end ibwarden disabled (the switch side, usually not end A where the rule fired).
    const off = fab.disabled_ports.find((d) => d.link_key === o.link_key);
    const kv = (k, v) => [h('dt', {}, k), h('dd', {}, v)];
    const form = ctx.who.can_operate ? editForm(o, () => reload()) : '';
    replace(body,
      h('h1', {}, `Work order #${o.id} `, badge(o.status), ' ', badge(o.severity)),
      h('div', { class: 'grid2' },
        panel('Repair', h('dl', { class: 'kv' },
          kv('cable', h('b', { class: 'mono', 'data-testid': 'order-cable' }, o.cable_id || '(not in the plan)')),
          kv('end A', [portLink(an, ap), o.locations[0] ? ` at ${o.locations[0]}` : '']),
          kv('end B', [portLink(bn, bp), o.locations[1] ? ` at ${o.locations[1]}` : '']),
          kv('summary', o.summary), kv('advice', h('b', {}, o.advice)),
          kv('rule', o.rule), kv('offences', o.offences),
          kv('affected jobs', h('span', { 'data-testid': 'order-jobs' }, jobsText(o.affected_jobs) +
            (o.affected_hosts == null ? '' : ` (${o.affected_hosts} hosts)`))),
          kv('port disabled', o.port_disabled ? 'yes, by ibwarden' : 'no'),
          kv('needs a human', o.needs_human ? 'yes' : 'no'),
          kv('opened', timeCell(o.opened)), kv('updated', timeCell(o.updated)),
          kv('resolved', o.resolved ? timeCell(o.resolved) : '—'),
          kv('assignee', o.assignee || '—'), kv('note', o.note || '—')),
          off ? h('p', {}, enableButton(ctx, off.node, off.port, reload)) : ''),
        h('div', {}, form, slurmPanel(o.slurm),
          panel('Evidence', h('pre', { class: 'evidence' }, JSON.stringify(o.evidence, null, 2))))));
  }
  const reload = () => load().catch((e) => replace(body, h('p', { class: 'error' }, e.message)));
  reload();
  return { onLive: (type, data) => { if (type === 'workorder' && String(data.id) === id) reload(); } };
}

// Slurm drains and resumes of the host's node (docs/slurm.md); nothing when there are none.
function slurmPanel(list) {
  if (!list || !list.length) return '';
  return panel('Slurm', h('table', { 'data-testid': 'order-slurm' },
    h('tr', {}, h('th', {}, 'node'), h('th', {}, 'action'), h('th', {}, 'status'), h('th', {}, 'at'), h('th', {}, 'reason')),
    list.map((e) => h('tr', {}, h('td', { class: 'mono' }, e.node), h('td', {}, e.action),
      h('td', {}, badge(e.status)), h('td', {}, timeCell(e.at)), h('td', {}, e.reason)))));
}

function editForm(o, reload) {
  const status = h('select', { name: 'status', 'data-testid': 'order-status' },
    ['', 'open', 'in_progress', 'resolved'].map((s) => h('option', { value: s }, s || '(keep status)')));
  const assignee = h('input', { name: 'assignee', value: o.assignee, maxlength: 200 });
  const note = h('textarea', { name: 'note', rows: 3, maxlength: 2000 });
  note.value = o.note;
  const err = h('p', { class: 'error' });
  const form = h('form', {
    onsubmit: async (ev) => {
      ev.preventDefault();
      const patch = {};
      if (status.value) patch.status = status.value;
      if (assignee.value !== o.assignee) patch.assignee = assignee.value;
      if (note.value !== o.note) patch.note = note.value;
      try {
        await api(`/workorders/${o.id}`, { method: 'PATCH', body: patch });
        document.activeElement.blur();
        reload();
      } catch (e) {
        err.textContent = e.message;
      }
    },
  }, h('dl', { class: 'kv' }, h('dt', {}, 'status'), h('dd', {}, status),
    h('dt', {}, 'assignee'), h('dd', {}, assignee), h('dt', {}, 'note'), h('dd', {}, note)),
  err, h('button', { class: 'primary', 'data-testid': 'order-save' }, 'Save'));
  return panel('Update', form);
}

export function render(root, ctx, params) {
  return params.length ? detail(root, ctx, params[0]) : board(root, ctx);
}
