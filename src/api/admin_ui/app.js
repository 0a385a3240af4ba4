// SPDX-License-Identifier: Apache-2.0
// app.js - the admin page (issue 19): asks for the admin token once (sessionStorage, this tab
// only), lists the namespaces (GET /admin-api/namespaces), shows the selected one's fleet
// document (GET /admin-api/groups/:id/fleet, docs/fleet.md) as a members table and an
// attempts table, and refreshes every 5 s. Its "TEE timelines" link draws, on request, the
// namespace's fleet audit (GET /admin-api/namespaces/:id/audit, docs/audit.md) as one SVG
// timeline per TEE, the same timeline report.html draws.
// Invariants: data from the node reaches the DOM only through textContent and attributes
// (never innerHTML); a failure is always shown (401: the token is forgotten and asked for
// again; the node unreachable: a banner, the last data kept and marked stale), never a blank
// page. No framework, no build step, nothing loaded from elsewhere.
'use strict';

const TOKEN_KEY = 'mero-admin-token';
const REFRESH_MS = 5000;
const $ = (id) => document.getElementById(id);

let token = sessionStorage.getItem(TOKEN_KEY);
let selected = null; // namespace id shown
let timer = null;

class ApiError extends Error {
  constructor(kind, message, status) {
    super(message);
    this.kind = kind; // 'auth' | 'unreachable' | 'http'
    this.status = status;
  }
}

async function api(path) {
  let resp;
  try {
    resp = await fetch(path, {
      headers: { Authorization: 'Bearer ' + token },
      cache: 'no-store',
    });
  } catch (e) {
    throw new ApiError('unreachable', 'Cannot reach the node at ' + location.origin +
                       ' (' + e.message + ').');
  }
  let body = null;
  try {
    body = await resp.json();
  } catch (e) {
    body = null;
  }
  if (resp.status === 401) {
    throw new ApiError('auth', 'The node refused the admin token (401 Unauthorized).', 401);
  }
  if (!resp.ok) {
    const msg = body && body.error && body.error.message ? body.error.message : resp.statusText;
    throw new ApiError('http', path + ': ' + resp.status + ' ' + msg, resp.status);
  }
  return body;
}

// ---- formatting ----

function shortId(hex) {
  return typeof hex === 'string' && hex.length > 8 ? hex.slice(0, 8) + '…' : (hex || '—');
}

function age(seconds) {
  if (seconds === null || seconds === undefined) return '—';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return s + ' s';
  if (s < 3600) return Math.floor(s / 60) + ' min';
  if (s < 172800) return Math.floor(s / 3600) + ' h';
  return Math.floor(s / 86400) + ' d';
}

function ago(unix, now) {
  return unix === null || unix === undefined ? '—' : age(now - unix) + ' ago';
}

function when(unix) {
  return unix ? new Date(unix * 1000).toLocaleString() : '';
}

function el(tag, text, cls, title) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  if (title) e.title = title;
  return e;
}

function row(cells) {
  const tr = document.createElement('tr');
  for (const c of cells) tr.appendChild(c instanceof Node ? c : el('td', c));
  return tr;
}

function idCell(hex) {
  return el('td', shortId(hex), 'id', hex || '');
}

// Issue 35: a member by the name this node knows for it (an admin's label, or the node's own
// --name on its own row) above its short id; the full id on hover either way.
function namedCell(hex, names) {
  const name = hex && names ? names.get(hex) : null;
  if (!name) return idCell(hex);
  const td = el('td', null, 'named', hex || '');
  td.appendChild(el('span', name, 'name'));
  td.appendChild(el('span', shortId(hex), 'mono short'));
  return td;
}

function namesOf(doc) {
  const names = new Map();
  for (const m of doc.members || []) if (m.name) names.set(m.identity, m.name);
  return names;
}

function measurementsText(tee) {
  if (!tee) return '—';
  if (tee.matched && tee.matched.kind !== 'none' && tee.matched.name) {
    return tee.matched.name;
  }
  const m = tee.measurements || {};
  return m.mrtd ? m.mrtd.slice(0, 8) : '—';
}

// ---- errors ----

function showError(text) {
  const e = $('error');
  e.textContent = text;
  e.hidden = false;
}

function clearError() {
  $('error').hidden = true;
  $('error').textContent = '';
}

function askToken(message) {
  stop();
  token = null;
  sessionStorage.removeItem(TOKEN_KEY);
  $('app').hidden = true;
  $('logout').hidden = true;
  $('login').hidden = false;
  if (message) showError(message);
  $('token').focus();
}

// ---- rendering ----

function renderNamespaces(list) {
  const ul = $('namespaces');
  ul.replaceChildren();
  if (list.length === 0) {
    ul.appendChild(el('li', 'This node is in no namespace yet.', 'muted'));
  }
  for (const ns of list) {
    const li = document.createElement('li');
    const a = el('a', (ns.name ? ns.name + ' ' : '') + shortId(ns.namespaceId), 'mono',
                 ns.namespaceId);
    a.href = '#' + ns.namespaceId;
    a.dataset.ns = ns.namespaceId;
    if (ns.namespaceId === selected) a.classList.add('selected');
    if (typeof ns.memberCount === 'number') {
      a.appendChild(el('span', ' · ' + ns.memberCount + ' members', 'muted'));
    }
    li.appendChild(a);
    ul.appendChild(li);
  }
}

function policyText(p) {
  if (!p || !p.enabled) return 'Admission policy: none (every TEE is refused).';
  const parts = ['mode ' + p.mode];
  if (p.signedRelease) {
    parts.push('signed release, profiles: ' +
               ((p.signedRelease.allowedProfiles || []).join(', ') || 'none'));
  } else {
    parts.push((p.allowedMrtd || []).length + ' allowed MRTD');
  }
  parts.push(p.acceptMock ? 'mock quotes accepted' : 'mock quotes refused');
  if ((p.allowedTcbStatuses || []).length) {
    parts.push('TCB ' + p.allowedTcbStatuses.join('/'));
  }
  return 'Admission policy: ' + parts.join('; ') + '.';
}

// The emptied body of table `id`, holding one line saying `emptyText` when items is empty.
function tableBody(id, items, emptyText) {
  const table = $(id);
  const tb = table.tBodies[0];
  tb.replaceChildren();
  if (!items || items.length === 0) {
    const td = el('td', emptyText, 'empty');
    td.colSpan = table.tHead.rows[0].cells.length;
    tb.appendChild(row([td]));
  }
  return tb;
}

function renderMembers(doc) {
  const tb = tableBody('members', doc.members, 'No members.');
  const now = doc.generatedAt;
  const names = namesOf(doc);
  for (const m of doc.members || []) {
    const tee = m.tee;
    const state = tee ? tee.evidenceState || 'none' : 'none';
    let evidence = '—';
    let title = '';
    if (tee) {
      evidence = tee.evidenceAgeSeconds === null || tee.evidenceAgeSeconds === undefined
        ? 'no evidence' : age(tee.evidenceAgeSeconds) + ' (' + state + ')';
      if (tee.evidenceLapsesAt) title = 'lapses ' + when(tee.evidenceLapsesAt);
    }
    const ev = el('td', null, 'evidence');
    ev.appendChild(el('span', evidence, 'badge ev-' + state, title));
    const seen = m.lastSeenVia === 'self' ? 'now (this node)'
      : m.lastSeen ? ago(m.lastSeen, now) + (m.lastSeenVia ? ' (' + m.lastSeenVia + ')' : '')
      : '—';
    const self = doc.viewOf && doc.viewOf.identity === m.identity;
    const idc = namedCell(m.identity, names);
    if (m.nameSource) idc.title = m.identity + ' (name: ' + m.nameSource + ')';
    if (self) idc.appendChild(el('span', ' (this node)', 'muted'));
    const tr = row([
      idc,
      el('td', m.role, 'role'),
      el('td', m.isTee ? 'TEE' : '—', 'tee'),
      el('td', measurementsText(tee), 'measurements',
         tee && tee.measurements ? 'MRTD ' + tee.measurements.mrtd : ''),
      el('td', tee ? tee.tcbStatus : '—', 'tcb',
         tee && tee.advisoryIds && tee.advisoryIds.length ? tee.advisoryIds.join(', ') : ''),
      ev,
      m.admittedBy ? namedCell(m.admittedBy, names) : el('td', '—'),
      el('td', seen, 'seen', when(m.lastSeen)),
    ]);
    tr.dataset.identity = m.identity;
    tr.className = 'member ' + (m.isTee ? 'is-tee' : 'not-tee');
    tb.appendChild(tr);
  }
}

function renderAttempts(doc) {
  const tb = tableBody('attempts', doc.attempts, 'No admission attempts recorded by this node.');
  const now = doc.generatedAt;
  const names = namesOf(doc);
  for (const a of doc.attempts || []) {
    const tr = row([
      el('td', ago(a.at, now), 'at', when(a.at)),
      a.identity ? namedCell(a.identity, names) : el('td', a.peerId ? shortId(a.peerId) : '—', 'id',
                                           a.peerId || ''),
      el('td', a.path || '—', 'path'),
      el('td', a.verdict, 'verdict v-' + a.verdict),
      el('td', a.rule || '—', 'rule'),
      el('td', a.reason || '', 'reason'),
      a.admitter ? namedCell(a.admitter, names) : el('td', '—'),
    ]);
    tr.className = 'attempt ' + a.verdict;
    tb.appendChild(tr);
  }
}

function renderFleet(doc) {
  $('fleet-title').textContent = shortId(doc.namespaceId);
  $('fleet-title').title = doc.namespaceId;
  const me = doc.viewOf && doc.viewOf.identity;
  const myName = namesOf(doc).get(me);
  $('view-of').textContent = 'As seen by this node: ' + (myName ? myName + ', ' : '') +
    'identity ' + shortId(me) + ', peer ' + ((doc.viewOf && doc.viewOf.peerId) || '—') +
    '. Evidence is due for a refresh after ' + age(doc.evidence.refreshSeconds) +
    ' and lapses after ' + age(doc.evidence.maxAgeSeconds) + '.';
  $('policy').textContent = policyText(doc.policy);
  renderMembers(doc);
  renderAttempts(doc);
}

// ---- the TEE timelines (issue 36, docs/audit.md) ----

const SVG_NS = 'http://www.w3.org/2000/svg';
const KIND_COLOUR = {
  admitted: '#1a7f37', refresh: '#2f6fb3', converted: '#6f42c1', removed: '#b42318',
  left: '#b42318', due: '#9a6700', lapsed: '#b42318', refused: '#66707a',
};

function svgEl(tag, attrs) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const k of Object.keys(attrs)) e.setAttribute(k, String(attrs[k]));
  return e;
}

function checkText(c) {
  if (!c || c.verdict === 'n/a') return '—';
  if (c.verdict === 'mock') return 'mock: not hardware-backed';
  return c.verdict + (c.verdict === 'fail' && c.detail ? ': ' + c.detail : '');
}

function renderTimeline(doc) {
  const body = $('timeline-body');
  body.textContent = '';
  const tees = doc.tees || [];
  $('timeline-summary').textContent = tees.length + ' TEE' + (tees.length === 1 ? '' : 's') +
    ', ' + (doc.ops || []).length + ' ops' +
    (doc.findings ? ', ' + doc.findings + ' check(s) do not hold' : ', every check holds');
  let lo = Infinity, hi = doc.exportedAt || 0;
  for (const t of tees) {
    for (const e of t.events) {
      if (e.at > 0) { lo = Math.min(lo, e.at); hi = Math.max(hi, e.at); }
    }
  }
  const span = hi > lo ? hi - lo : 1, W = 900, M = 20;
  for (const t of tees) {
    const h = el('h2', null);
    h.appendChild(el('span', shortId(t.identity), 'mono', t.identity));
    h.appendChild(el('span', t.member ? ' (member)' : ' (no longer a member)', 'muted'));
    body.appendChild(h);
    const svg = svgEl('svg', { viewBox: '0 0 ' + W + ' 56', width: '100%', role: 'img' });
    svg.appendChild(svgEl('line', { x1: M, y1: 28, x2: W - M, y2: 28, stroke: '#d9dee3',
                                    'stroke-width': 2 }));
    const tb = el('tbody', null);
    for (const e of t.events) {
      const x = M + (Math.max(0, e.at - lo) / span) * (W - 2 * M);
      const colour = KIND_COLOUR[e.kind] || '#66707a';
      const when = (e.atExact ? '' : '~ ') + new Date(e.at * 1000).toISOString();
      const mark = e.kind === 'due' || e.kind === 'lapsed'
        ? svgEl('line', { x1: x, y1: 14, x2: x, y2: 42, stroke: colour, 'stroke-dasharray': '3 2' })
        : svgEl('circle', { cx: x, cy: 28, r: e.kind === 'refresh' ? 4 : 7, fill: colour });
      const title = document.createElementNS(SVG_NS, 'title');
      title.textContent = e.kind + ' ' + when;
      mark.appendChild(title);
      svg.appendChild(mark);
      const c = e.checks || {};
      const kind = el('td', e.kind + (e.refusal ? ': ' + e.refusal : ''));
      kind.style.color = colour;
      tb.appendChild(row([el('td', when), kind, e.op ? idCell(e.op) : el('td', '—'),
                          el('td', e.tcbStatus || '—'), el('td', checkText(c.dcap)),
                          el('td', checkText(c.binding)), el('td', checkText(c.policy))]));
    }
    body.appendChild(svg);
    const table = el('table', null);
    const head = el('thead', null);
    head.appendChild(row(['When (UTC)', 'Event', 'Op', 'TCB', 'DCAP', 'Binding', 'Policy']
      .map((x) => el('th', x))));
    table.appendChild(head);
    table.appendChild(tb);
    body.appendChild(table);
  }
  if (tees.length === 0) body.appendChild(el('p', 'No TEE was ever a member of this namespace.'));
}

let timelineNs = null; // the namespace the timelines drawn (or being fetched) are of

// The link under the fleet names the namespace the page shows: its timelines, nobody else's.
function linkTimeline(ns) {
  const a = $('timeline-link');
  a.dataset.ns = ns || '';
  a.href = ns ? '#' + ns : '#';
  a.title = ns ? 'GET /admin-api/namespaces/' + ns + '/audit' : '';
  $('timeline-link-ns').textContent = ns ? shortId(ns) : '';
}

async function showTimeline() {
  const ns = $('timeline-link').dataset.ns;
  if (!ns || ns !== selected) return;
  timelineNs = ns;
  $('timeline').hidden = false;
  $('timeline').dataset.ns = ns;
  $('timeline-ns').textContent = shortId(ns);
  $('timeline-ns').title = ns;
  $('timeline-body').textContent = '';
  $('timeline-summary').textContent = 'checking the log…';
  try {
    const doc = (await api('/admin-api/namespaces/' + ns + '/audit')).data;
    // another namespace was picked meanwhile: that answer is not for the page shown now
    if (timelineNs !== ns || selected !== ns) return;
    if (!doc || doc.namespaceId !== ns) throw new Error('the audit answered for another namespace');
    renderTimeline(doc);
  } catch (e) {
    if (e.kind === 'auth') {
      askToken(e.message + ' Enter the admin token of this node (DIR/admin-token).');
      return;
    }
    showError(e.message);
  }
}

// ---- the loop ----

let busy = false; // one refresh at a time: a slow node does not pile requests up

async function refresh() {
  if (busy) return;
  busy = true;
  try {
    const nss = (await api('/admin-api/namespaces')).data || [];
    const wanted = location.hash.slice(1);
    if (nss.some((n) => n.namespaceId === wanted)) selected = wanted;
    if (!nss.some((n) => n.namespaceId === selected)) {
      selected = nss.length ? nss[0].namespaceId : null;
    }
    renderNamespaces(nss);
    $('fleet').hidden = selected === null;
    linkTimeline(selected);
    if (timelineNs !== selected) {
      timelineNs = null;
      $('timeline').hidden = true;
    }
    if (selected !== null) {
      const doc = (await api('/admin-api/groups/' + selected + '/fleet')).data;
      renderFleet(doc);
    }
    clearError();
    $('app').classList.remove('stale');
    $('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
  } catch (e) {
    if (e.kind === 'auth') {
      askToken(e.message + ' Enter the admin token of this node (DIR/admin-token).');
      return;
    }
    $('app').classList.add('stale');
    showError(e.message + (e.kind === 'unreachable' ? ' Retrying every 5 s.' : ''));
  } finally {
    busy = false;
  }
}

function stop() {
  if (timer !== null) clearInterval(timer);
  timer = null;
}

function start() {
  $('login').hidden = true;
  $('app').hidden = false;
  $('logout').hidden = false;
  $('node').textContent = location.host;
  refresh();
  stop();
  timer = setInterval(refresh, REFRESH_MS);
}

document.addEventListener('DOMContentLoaded', () => {
  $('login-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const t = $('token').value.trim();
    if (!t) return;
    token = t;
    sessionStorage.setItem(TOKEN_KEY, t);
    $('token').value = '';
    clearError();
    start();
  });
  $('logout').addEventListener('click', () => askToken(null));
  $('timeline-link').addEventListener('click', (ev) => {
    ev.preventDefault();
    showTimeline();
  });
  window.addEventListener('hashchange', () => {
    if (token) refresh();
  });
  if (token) start(); else askToken(null);
});
