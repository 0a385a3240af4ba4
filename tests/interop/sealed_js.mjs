// SPDX-License-Identifier: Apache-2.0
// sealed_js.mjs - issue 31: Calimero's sealed-transport client (mero-js-sealed, unchanged) and
// mero-js's AdminApiClient against a real `merod run --mock-tee --sealed-only` on loopback.
// The node is started (and restarted) from here, at a fixed port. Checks: plaintext admin
// routes are refused 403 `sealed_required` but the three a client needs to find the key;
// the chapter's admin functions work through createSealedFetch and createAttestedSealedFetch
// with the token inside the envelope; only envelopes cross the wire (no token, path or body
// in the clear, both ways); a restart mid-run makes the client attest again and go on; the
// node refuses malformed, undecryptable, replayed, unknown-session and stale-key envelopes
// with core's codes, and the client refuses tampered, reordered and truncated frames. TAP.
//
// Env: MERO_SHARED, MEROD, NODE_HOME, NODE_LOG, BASE_URL, TOKEN.
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';

const env = process.env;
const sdk = await import(pathToFileURL(`${env.MERO_SHARED}/peers/mero-js/index.mjs`).href);
const sealed = await import(pathToFileURL(`${env.MERO_SHARED}/peers/mero-js-sealed/sealed.mjs`).href);
const BASE = env.BASE_URL;
const TOKEN = env.TOKEN;

let n = 0;
let fails = 0;
function ok(cond, name, detail) {
  n++;
  if (cond) console.log(`ok ${n} - ${name}`);
  else {
    fails++;
    console.log(`not ok ${n} - ${name}${detail ? ` # ${String(detail).slice(0, 400)}` : ''}`);
  }
}
async function run(name, fn) {
  try {
    return { ok: true, v: await fn() };
  } catch (e) {
    ok(false, name, e?.body ?? e?.message ?? e);
    return { ok: false, e };
  }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the node, started from here so that it can be restarted at the same address
let child = null;
async function startNode() {
  const log = openSync(env.NODE_LOG, 'a');
  child = spawn(env.MEROD, ['run', '--home', env.NODE_HOME, '--mock-tee', '--sealed-only'],
    { stdio: ['ignore', log, log] });
  for (let i = 0; i < 200; i++) {
    try {
      const r = await fetch(`${BASE}/admin-api/health`);
      if (r.status === 200) return;
    } catch { /* not listening yet */ }
    await sleep(50);
  }
  throw new Error('merod did not answer /admin-api/health');
}
async function stopNode() {
  if (child === null) return;
  const c = child;
  child = null;
  const exited = new Promise((r) => c.once('exit', r));
  c.kill('SIGTERM');
  await exited;
}
process.on('exit', () => { if (child) child.kill('SIGKILL'); });

// ---- the wire, as a proxy sees it: every request and answer the sealed fetch sends
const wire = [];
let tamper = null; // (url, bytes) => bytes: rewrite an answer's body on its way back
async function proxyFetch(input, init) {
  const url = typeof input === 'string' ? input : input.url;
  const body = init?.body ? new Uint8Array(await new Response(init.body).arrayBuffer()) : new Uint8Array();
  const res = await fetch(url, { ...init, body: init?.body ? body : undefined });
  let answer = new Uint8Array(await res.arrayBuffer());
  wire.push({ url, method: init?.method ?? 'GET', headers: JSON.stringify(init?.headers ?? {}), body, status: res.status, answer });
  if (tamper) answer = tamper(url, answer);
  return new Response(answer, { status: res.status, headers: res.headers });
}

// verify for a mock node (the operator's --accept-mock): the quote's 64 bytes of report data
// are nonce || reportDataSuffix (a mock quote carries them in the clear)
let attests = 0;
const verify = async ({ quoteB64, nonce, reportDataSuffix }) => {
  attests++;
  const q = Buffer.from(quoteB64, 'base64').toString('hex');
  return q.includes(nonce + reportDataSuffix);
};

await startNode();
const plain = new sdk.AdminApiClient(sdk.createNodeHttpClient({ baseUrl: BASE }));
const plainAuthed = new sdk.AdminApiClient(sdk.createNodeHttpClient({ baseUrl: BASE, getAuthToken: async () => TOKEN }));

// ---- sealed-only: plaintext refused, but what a client needs to find the key
{
  const r = await fetch(`${BASE}/admin-api/namespaces`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const j = await r.json().catch(() => ({}));
  ok(r.status === 403 && j?.error?.code === 'sealed_required' && /sealed transport/.test(j?.error?.message),
    'sealed-only: a plaintext admin route is 403 sealed_required, naming the sealed transport', JSON.stringify(j));
  const h = await fetch(`${BASE}/admin-api/health`);
  const i = await fetch(`${BASE}/admin-api/tee/info`);
  ok(h.status === 200 && i.status === 200, 'sealed-only: GET /admin-api/health and /admin-api/tee/info still answer in the clear');
  const g = await fetch(`${BASE}/admin-api/tee/attest`);
  ok(g.status === 403, 'sealed-only: only POST /admin-api/tee/attest is let through, not GET', g.status);
}
let key = null;
{
  const r = await run('fetchAttestedTransportKey', () => sealed.fetchAttestedTransportKey(plain, verify));
  if (r.ok) key = r.v;
  ok(key instanceof Uint8Array && key.length === 32, 'fetchAttestedTransportKey: the attested 32-byte transport key (plain POST /tee/attest)');
}

// ---- the admin functions through the envelope
const sealedFetch = sealed.createSealedFetch({ baseUrl: BASE, transportPublicKey: () => sealed.fetchAttestedTransportKey(plain, verify), fetch: proxyFetch });
const http = sdk.createNodeHttpClient({ baseUrl: BASE, getAuthToken: async () => TOKEN, fetch: sealedFetch, timeoutMs: 60000 });
const admin = new sdk.AdminApiClient(http);
const sfetch0 = sealed.createSealedFetch({ baseUrl: BASE, transportPublicKey: () => sealed.fetchAttestedTransportKey(plain, verify), fetch: proxyFetch });
const wrongHttp = sdk.createNodeHttpClient({ baseUrl: BASE, getAuthToken: async () => '0'.repeat(64), fetch: sealedFetch });
const wrong = new sdk.AdminApiClient(wrongHttp);

let r = await run('isAuthed (sealed)', () => admin.isAuthed());
if (r.ok) ok(r.v?.data?.status === 'authenticated', 'isAuthed through the envelope: the token inside it authenticates', JSON.stringify(r.v));
r = await run('isAuthed (sealed, wrong token)', () => wrong.isAuthed());
if (r.ok) ok(r.v?.data?.status === 'unauthenticated', 'isAuthed through the envelope: a wrong token does not', JSON.stringify(r.v));
try {
  await wrong.listNamespaces();
  ok(false, 'a protected route with a wrong token inside the envelope is 401');
} catch (e) {
  ok(e?.status === 401, 'a protected route with a wrong token inside the envelope is 401 (sealed answer)', `${e?.status} ${e?.message}`);
}
r = await run('getTeeInfo (sealed)', () => admin.getTeeInfo());
if (r.ok) ok(typeof r.v === 'object' && r.v !== null, 'getTeeInfo through the envelope', JSON.stringify(r.v));
r = await run('createNamespace (sealed)', () => admin.createNamespace({ applicationId: 'app-sealed-secret', name: 'sealedns' }));
const NS = r.ok ? r.v.namespaceId : null;
ok(/^[0-9a-f]{64}$/.test(NS ?? ''), 'createNamespace through the envelope', JSON.stringify(r.v));
r = await run('listNamespaces (sealed)', () => admin.listNamespaces());
if (r.ok) ok(r.v.some((x) => x.namespaceId === NS && x.name === 'sealedns'), 'listNamespaces through the envelope', JSON.stringify(r.v));
let OWN = null;
r = await run('getNamespace (sealed)', () => admin.getNamespace(NS));
if (r.ok) { OWN = r.v.identity; ok(r.v.namespaceId === NS, 'getNamespace through the envelope'); }
const ZERO96 = '0'.repeat(96);
const policy = { allowedMrtd: [ZERO96], allowedRtmr0: [], allowedRtmr1: [ZERO96], allowedRtmr2: [ZERO96], allowedRtmr3: [ZERO96], allowedTcbStatuses: [], acceptMock: true };
r = await run('setTeeAdmissionPolicy (sealed)', () => admin.setTeeAdmissionPolicy(NS, { ...policy, requester: OWN }));
r = await run('getTeeAdmissionPolicy (sealed)', () => admin.getTeeAdmissionPolicy(NS));
if (r.ok) ok(r.v.acceptMock === true && r.v.allowedMrtd[0] === ZERO96, 'setTeeAdmissionPolicy and getTeeAdmissionPolicy through the envelope', JSON.stringify(r.v));
const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex');
r = await run('teeAttest (sealed)', () => admin.teeAttest({ nonce }));
if (r.ok) ok(r.v.quote.body.reportdata.startsWith(nonce), 'teeAttest through the envelope');
r = await run('listGroupMembers (sealed)', () => admin.listGroupMembers(NS));
if (r.ok) ok(r.v.members.some((m) => m.identity === OWN && m.role === 'Admin'), 'listGroupMembers through the envelope', JSON.stringify(r.v));

// the inner request's query reaches the route (fleet view ?attempts=N), and is checked as a
// plaintext one is
{
  const a = await sfetch0(`${BASE}/admin-api/groups/${NS}/fleet?attempts=2`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const b = await sfetch0(`${BASE}/admin-api/groups/${NS}/fleet?attempts=x`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const bj = await b.json().catch(() => ({}));
  ok(a.status === 200 && b.status === 400 && /attempts/.test(bj?.error?.message ?? ''),
    'an inner query reaches the route: ?attempts=2 is 200, ?attempts=x is 400 naming it (sealed)', `${a.status} ${b.status} ${JSON.stringify(bj)}`);
  const c = await sfetch0(`${BASE}/admin-api/health%00x`);
  ok(c.status === 400, 'an inner path with an encoded NUL is 400 inside the envelope', c.status);
  let code = null;
  try {
    await sfetch0(`${BASE}/sealed/v2`, { method: 'POST', body: 'x' });
  } catch (e) {
    code = e?.code;
  }
  ok(code === 'malformed', 'an envelope inside an envelope is refused malformed', code);
}
// an answer larger than one frame: more than 64 KiB of namespaces, in several frames, whole
{
  for (let i = 0; i < 24; i++) {
    await Promise.all(Array.from({ length: 10 }, (_, j) => admin.createNamespace({ applicationId: `app-${i}-${j}`, name: `bulk-${i}-${j}-${'n'.repeat(40)}` })));
  }
  const before = wire.length;
  r = await run('listNamespaces, a large answer (sealed)', () => admin.listNamespaces());
  const answer = wire.slice(before).find((w) => w.url.endsWith('/sealed/v2'))?.answer ?? new Uint8Array();
  const lens = [];
  for (let o = 0; o + 4 <= answer.length;) {
    const len = new DataView(answer.buffer, answer.byteOffset + o).getUint32(0);
    lens.push(len);
    o += 4 + len;
  }
  const body = r.ok ? JSON.stringify(r.v).length : 0;
  ok(r.ok && r.v.length === 241 && body > 65536 && lens.length >= 4 && lens.every((l) => l <= 1 + 65536 + 16),
    'a 64 KiB+ answer arrives whole, in frames of at most 64 KiB of data', `${r.v?.length} ${body} ${lens.join(',')}`);
}

// ---- only envelopes on the wire
{
  const paths = new Set(wire.map((w) => new URL(w.url).pathname));
  ok([...paths].every((p) => p === '/sealed/v2' || p === '/sealed/v2/handshake') && paths.has('/sealed/v2'),
    'on the wire: only POST /sealed/v2/handshake and /sealed/v2', [...paths].join(' '));
  const text = (u8) => Buffer.from(u8).toString('latin1');
  const leaks = ['admin-api', TOKEN, 'Bearer', 'app-sealed-secret', 'sealedns', NS, 'namespaces', 'acceptMock'];
  const seen = wire.flatMap((w) => leaks.filter((s) => s && (text(w.body).includes(s) || text(w.answer).includes(s) || w.headers.includes(s))));
  ok(seen.length === 0, 'on the wire: no token, path or body in the clear, either way', seen.join(','));
  ok(wire.every((w) => w.method === 'POST'), 'on the wire: every request is a POST');
}

// ---- refusals, by the node (core's codes), with envelopes taken off the wire
async function post(path, body) {
  const res = await fetch(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': sealed.SEALED_CONTENT_TYPE }, body });
  const t = await res.text();
  let j = null;
  try { j = JSON.parse(t); } catch { /* sealed */ }
  return { status: res.status, code: j?.error?.code, retry: res.headers.get('retry-after'), ctype: res.headers.get('content-type') };
}
const lastReq = wire.filter((w) => w.url.endsWith('/sealed/v2') && w.status === 200).at(-1);
const hs = wire.filter((w) => w.url.endsWith('/handshake') && w.status === 200).at(-1);
{
  let x = await post('/sealed/v2', lastReq.body);
  ok(x.status === 400 && x.code === 'replayed_request', 'node: a replayed sealed request is 400 replayed_request', JSON.stringify(x));
  const t = Uint8Array.from(lastReq.body);
  t[t.length - 1] ^= 1;
  t[17 + 7] ^= 0x40; // a request id never used, so only the tag can refuse it
  x = await post('/sealed/v2', t);
  ok(x.status === 400 && x.code === 'undecryptable', 'node: a tampered sealed request is 400 undecryptable', JSON.stringify(x));
  const u = Uint8Array.from(lastReq.body);
  u[1] ^= 0xff;
  x = await post('/sealed/v2', u);
  ok(x.status === 409 && x.code === 'unknown_session', 'node: a request in no open session is 409 unknown_session', JSON.stringify(x));
  x = await post('/sealed/v2', lastReq.body.slice(0, 30));
  ok(x.status === 400 && x.code === 'malformed', 'node: a short envelope is 400 malformed', JSON.stringify(x));
  x = await post('/sealed/v2/handshake', hs.body.slice(0, 80));
  ok(x.status === 400 && x.code === 'malformed', 'node: a short handshake is 400 malformed', JSON.stringify(x));
  const other = Uint8Array.from(hs.body);
  other[5] ^= 1;
  x = await post('/sealed/v2/handshake', other);
  ok(x.status === 409 && x.code === 'stale_transport_key', 'node: a handshake to another transport key is 409 stale_transport_key', JSON.stringify(x));
  const low = Uint8Array.from(hs.body);
  low.fill(0, 33);
  x = await post('/sealed/v2/handshake', low);
  ok(x.status === 400 && x.code === 'malformed', 'node: a low-order client key is 400 malformed', JSON.stringify(x));
  const bad = Uint8Array.from(hs.body);
  bad[80] ^= 1;
  x = await post('/sealed/v2/handshake', bad);
  ok(x.status === 400 && x.code === 'undecryptable', 'node: a handshake whose tag does not verify is 400 undecryptable', JSON.stringify(x));
  x = await post('/sealed/v2/handshake', hs.body);
  ok(x.status === 200 && x.ctype === sealed.SEALED_CONTENT_TYPE, 'node: a replayed handshake opens a session of its own (new ephemeral, keys its sender lacks)', JSON.stringify(x));
}

// ---- refusals, by the client: frames tampered, reordered, cut short
function frames(u8) {
  const out = [];
  for (let o = 0; o < u8.length;) {
    const len = new DataView(u8.buffer, u8.byteOffset + o).getUint32(0);
    out.push(u8.slice(o, o + 4 + len));
    o += 4 + len;
  }
  return out;
}
const concat = (parts) => Uint8Array.from(parts.flatMap((p) => [...p]));
for (const [name, fn] of [
  ['a tampered frame', (u8) => { const c = Uint8Array.from(u8); c[c.length - 20] ^= 1; return c; }],
  ['reordered frames', (u8) => { const f = frames(u8); return f.length > 2 ? concat([f[1], f[0], ...f.slice(2)]) : u8; }],
  ['a response without its end frame', (u8) => { const f = frames(u8); return concat(f.slice(0, -1)); }],
]) {
  tamper = (url, u8) => (url.endsWith('/sealed/v2') ? fn(u8) : u8);
  let refused = false;
  try {
    await admin.listNamespaces();
  } catch (e) {
    refused = true;
  }
  tamper = null;
  ok(refused, `client: ${name} is refused`);
}

// ---- a restart: new transport key, sessions gone; the client attests again and goes on
{
  const before = attests;
  await stopNode();
  await startNode();
  r = await run('listNamespaces after a restart (sealed)', () => admin.listNamespaces());
  if (r.ok) ok(r.v.some((x) => x.namespaceId === NS), 'after a restart the sealed client goes on (the namespace is still there)');
  ok(attests > before, 'after a restart the client attested again (stale_transport_key, then a new key)', `${before} -> ${attests}`);
  const codes = wire.slice(-6).map((w) => w.status);
  ok(codes.includes(409), 'after a restart the node said 409 (unknown_session / stale_transport_key) first', codes.join(','));
}

// ---- createAttestedSealedFetch: the key obtained by the client itself
{
  const f = sealed.createAttestedSealedFetch({ baseUrl: BASE, verify });
  const a = new sdk.AdminApiClient(sdk.createNodeHttpClient({ baseUrl: BASE, getAuthToken: async () => TOKEN, fetch: f }));
  r = await run('createAttestedSealedFetch', () => a.getNamespace(NS));
  if (r.ok) ok(r.v.namespaceId === NS, 'createAttestedSealedFetch: getNamespace through its own attested session');
}

// ---- a flood of handshakes is told to wait (last: it empties the node's bucket)
{
  const body = wire.filter((w) => w.url.endsWith('/handshake')).at(-1)?.body;
  const k = await sealed.fetchAttestedTransportKey(plain, verify);
  const hsb = Uint8Array.from(body);
  hsb.set(k, 1);
  let busy = null;
  for (let round = 0; round < 100 && busy === null; round++) {
    const xs = await Promise.all(Array.from({ length: 20 }, () => post('/sealed/v2/handshake', hsb)));
    busy = xs.find((x) => x.status === 503) ?? null;
  }
  ok(busy && busy.code === 'busy' && busy.retry === '1', 'node: a handshake flood is answered 503 busy with Retry-After: 1', JSON.stringify(busy));
  const h = await fetch(`${BASE}/admin-api/health`);
  ok(h.status === 200, 'node: still serving after the flood');
}

await stopNode();
console.log(`1..${n}`);
process.exit(fails ? 1 : 0);
