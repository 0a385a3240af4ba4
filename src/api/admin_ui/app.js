// SPDX-License-Identifier: Apache-2.0
// app.js - the admin page (issue 19): asks for the admin token once (sessionStorage, this tab
// only), lists the namespaces (GET /admin-api/namespaces), shows the selected one's fleet
// document (GET /admin-api/groups/:id/fleet, docs/fleet.md) as a members table and an
// attempts table, and refreshes every 5 s.
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
    const seen = m.lastSeen ? ago(m.lastSeen, now) + (m.lastSeenVia ? ' (' + m.lastSeenVia + ')' : '')
      : '—';
    const self = doc.viewOf && doc.viewOf.identity === m.identity;
    const idc = idCell(m.identity);
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
      m.admittedBy ? idCell(m.admittedBy) : el('td', '—'),
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
  for (const a of doc.attempts || []) {
    const tr = row([
      el('td', ago(a.at, now), 'at', when(a.at)),
      a.identity ? idCell(a.identity) : el('td', a.peerId ? shortId(a.peerId) : '—', 'id',
                                           a.peerId || ''),
      el('td', a.path || '—', 'path'),
      el('td', a.verdict, 'verdict v-' + a.verdict),
      el('td', a.rule || '—', 'rule'),
      el('td', a.reason || '', 'reason'),
      a.admitter ? idCell(a.admitter) : el('td', '—'),
    ]);
    tr.className = 'attempt ' + a.verdict;
    tb.appendChild(tr);
  }
}

function renderFleet(doc) {
  $('fleet-title').textContent = shortId(doc.namespaceId);
  $('fleet-title').title = doc.namespaceId;
  $('view-of').textContent = 'As seen by this node: identity ' +
    shortId(doc.viewOf && doc.viewOf.identity) + ', peer ' + ((doc.viewOf && doc.viewOf.peerId) || '—') +
    '. Evidence is due for a refresh after ' + age(doc.evidence.refreshSeconds) +
    ' and lapses after ' + age(doc.evidence.maxAgeSeconds) + '.';
  $('policy').textContent = policyText(doc.policy);
  renderMembers(doc);
  renderAttempts(doc);
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
  window.addEventListener('hashchange', () => {
    if (token) refresh();
  });
  if (token) start(); else askToken(null);
});
