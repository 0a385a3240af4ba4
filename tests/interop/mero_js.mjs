// SPDX-License-Identifier: Apache-2.0
// mero_js.mjs - drives merod with Calimero's JavaScript SDK (mero-js 13.2.0, unchanged, from
// $MERO_SHARED/peers/mero-js) through the reference scenario: create a namespace, set the
// TEE admission policy, read it back, attest, fleet-join (generic HttpClient), list members
// (the TEE with its role), add a batch, change a role, remove, list contexts. Every result is
// checked against the SDK's declared type (types/admin-types.d.ts) field by field: each
// required field present with its type, each optional one absent or of its type. Prints TAP.
//
// Env: MERO_SHARED, OWNER_URL, OWNER_TOKEN, TEE_URL, TEE_TOKEN, OWNER_ADDR (multiaddr with
// /p2p/), A_KEY, B_KEY, C_KEY (hex Ed25519 keys of absent members).
import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';

const env = process.env;
const sdk = await import(pathToFileURL(`${env.MERO_SHARED}/peers/mero-js/index.mjs`).href);

let n = 0;
let fails = 0;
function ok(cond, name, detail) {
  n++;
  if (cond) {
    console.log(`ok ${n} - ${name}`);
  } else {
    fails++;
    console.log(`not ok ${n} - ${name}${detail ? ` # ${String(detail).slice(0, 400)}` : ''}`);
  }
}

// ---- the declared types, as schemas: 'string' | 'number' | 'boolean' | 'hex64' | 'hex96' |
// 'null' | 'unknown' | alternatives 'a|b' | [schema] for arrays | {field: schema} with a
// trailing '?' on optional field names.
const HEX64 = /^[0-9a-f]{64}$/;
const HEX96 = /^[0-9a-f]{96}$/;
function checkType(v, schema, path, errs) {
  if (typeof schema === 'string') {
    const alts = schema.split('|');
    const okOne = alts.some((t) => {
      switch (t) {
        case 'string': return typeof v === 'string';
        case 'number': return typeof v === 'number' && Number.isFinite(v);
        case 'boolean': return typeof v === 'boolean';
        case 'hex64': return typeof v === 'string' && HEX64.test(v);
        case 'hex96': return typeof v === 'string' && HEX96.test(v);
        case 'null': return v === null;
        case 'unknown': return v !== undefined;
        default: throw new Error(`bad schema ${t}`);
      }
    });
    if (!okOne) errs.push(`${path}: expected ${schema}, got ${JSON.stringify(v)?.slice(0, 80)}`);
    return;
  }
  if (Array.isArray(schema)) {
    if (!Array.isArray(v)) {
      errs.push(`${path}: expected an array, got ${JSON.stringify(v)?.slice(0, 80)}`);
      return;
    }
    v.forEach((x, i) => checkType(x, schema[0], `${path}[${i}]`, errs));
    return;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    errs.push(`${path}: expected an object, got ${JSON.stringify(v)?.slice(0, 80)}`);
    return;
  }
  for (const [k0, s] of Object.entries(schema)) {
    const opt = k0.endsWith('?');
    const k = opt ? k0.slice(0, -1) : k0;
    if (!(k in v) || v[k] === undefined) {
      if (!opt) errs.push(`${path}.${k}: missing`);
      continue;
    }
    checkType(v[k], s, `${path}.${k}`, errs);
  }
}
function typed(v, schema, name) {
  const errs = [];
  checkType(v, schema, name, errs);
  ok(errs.length === 0, `${name}: matches the declared type`, errs.join('; '));
  return errs.length === 0;
}

const T = {
  HealthStatus: { status: 'string' },
  AdminAuthStatus: { data: { status: 'string' } },
  NodeIdentity: { accountId: 'hex64', deviceId: 'hex64|null', publicKey: 'string', 'accountRootPublicKey?': 'hex64' },
  CreateNamespaceResponseData: { namespaceId: 'hex64' },
  Namespace: {
    namespaceId: 'hex64', appKey: 'string', targetApplicationId: 'string', 'upgradePolicy?': 'string',
    createdAt: 'number', 'name?': 'string', memberCount: 'number', contextCount: 'number',
    subgroupCount: 'number', 'appVersion?': 'string',
  },
  NamespaceIdentity: { namespaceId: 'hex64', publicKey: 'string', account: 'hex64' },
  CreateGroupInNamespaceResponseData: { groupId: 'hex64' },
  SubgroupEntry: { groupId: 'hex64', 'name?': 'string' },
  GroupInfo: {
    groupId: 'hex64', appKey: 'string', targetApplicationId: 'string', 'upgradePolicy?': 'string',
    memberCount: 'number', contextCount: 'number', 'activeUpgrade?': 'unknown',
    defaultCapabilities: 'number', subgroupVisibility: 'string', 'metadata?': 'unknown',
  },
  ListGroupMembersResponseData: { members: [{ identity: 'hex64', role: 'string', 'name?': 'string' }] },
  GroupContextEntry: { contextId: 'hex64', 'name?': 'string' },
  GetTeeAdmissionPolicyResponseData: {
    allowedMrtd: ['hex96'], allowedRtmr0: ['hex96'], allowedRtmr1: ['hex96'], allowedRtmr2: ['hex96'],
    allowedRtmr3: ['hex96'], allowedTcbStatuses: ['string'], acceptMock: 'boolean',
  },
  TeeInfoResponseData: { cloudProvider: 'string', osImage: 'string', mrtd: 'string' },
  TeeAttestResponseData: {
    quoteB64: 'string',
    quote: {
      header: { version: 'number', attestationKeyType: 'number', teeType: 'number', qeVendorId: 'string', userData: 'string' },
      body: {
        tdxVersion: 'string', teeTcbSvn: 'string', mrseam: 'string', mrsignerseam: 'string',
        seamattributes: 'string', tdattributes: 'string', xfam: 'string', mrtd: 'string',
        mrconfigid: 'string', mrowner: 'string', mrownerconfig: 'string', rtmr0: 'string',
        rtmr1: 'string', rtmr2: 'string', rtmr3: 'string', reportdata: 'string',
        'teeTcbSvn2?': 'string', 'mrservicetd?': 'string',
      },
      signature: 'string', attestationKey: 'string', certificationData: 'unknown',
    },
  },
};

// run NAME FN: the SDK call; a throw is a failed test with the node's answer
async function run(name, fn) {
  try {
    return { ok: true, v: await fn() };
  } catch (e) {
    ok(false, `${name}: call succeeds`, `${e?.status ?? ''} ${e?.bodyText ?? e?.message ?? e}`);
    return { ok: false };
  }
}
// refused NAME STATUS TEXT FN: the call throws HTTPError with STATUS and a message with TEXT
async function refused(name, status, text, fn) {
  try {
    await fn();
    ok(false, name, 'the call succeeded');
  } catch (e) {
    const body = String(e?.bodyText ?? '');
    ok(e?.status === status && body.includes(text), name, `${e?.status} ${body}`);
  }
}

const mk = (url, token, timeoutMs) =>
  sdk.createNodeHttpClient({ baseUrl: url, getAuthToken: async () => token, timeoutMs });
const ownerHttp = mk(env.OWNER_URL, env.OWNER_TOKEN, 30000);
const teeHttp = mk(env.TEE_URL, env.TEE_TOKEN, 180000);
const owner = new sdk.AdminApiClient(ownerHttp);
const tee = new sdk.AdminApiClient(teeHttp);
const anon = new sdk.AdminApiClient(sdk.createNodeHttpClient({ baseUrl: env.OWNER_URL }));
const wrong = new sdk.AdminApiClient(mk(env.OWNER_URL, '0'.repeat(64), 30000));
const ZERO96 = '0'.repeat(96);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- health / auth / identity
let r = await run('healthCheck', () => anon.healthCheck());
if (r.ok) typed(r.v, T.HealthStatus, 'healthCheck (no token)');
r = await run('isAuthed', () => owner.isAuthed());
if (r.ok && typed(r.v, T.AdminAuthStatus, 'isAuthed')) ok(r.v.data.status === 'authenticated', 'isAuthed: the right token is authenticated', JSON.stringify(r.v));
r = await run('isAuthed (wrong token)', () => wrong.isAuthed());
if (r.ok && typed(r.v, T.AdminAuthStatus, 'isAuthed (wrong token)')) ok(r.v.data.status === 'unauthenticated', 'isAuthed: a wrong token is not authenticated, without a 401', JSON.stringify(r.v));
r = await run('getNodeIdentity', () => owner.getNodeIdentity());
if (r.ok) typed(r.v, T.NodeIdentity, 'getNodeIdentity');

// ---- namespace
r = await run('createNamespace', () => owner.createNamespace({ applicationId: 'app-fleet', name: 'fleet' }));
if (!r.ok) {
  console.log(`1..${n}`);
  process.exit(1);
}
typed(r.v, T.CreateNamespaceResponseData, 'createNamespace');
const NS = r.v.namespaceId;
ok(r.v.applicationId === 'app-fleet' && r.v.upgradePolicy === 'LazyOnAccess', 'createNamespace: applicationId and upgradePolicy returned', JSON.stringify(r.v));
r = await run('listNamespaces', () => owner.listNamespaces());
if (r.ok && typed(r.v, [T.Namespace], 'listNamespaces')) {
  const e = r.v.find((x) => x.namespaceId === NS);
  ok(e && e.targetApplicationId === 'app-fleet' && e.upgradePolicy === 'LazyOnAccess' && e.name === 'fleet' && e.memberCount === 1,
    'listNamespaces: the namespace with its stored applicationId, upgradePolicy, name, one member', JSON.stringify(e));
}
let OWN_ID = null;
r = await run('getNamespace', () => owner.getNamespace(NS));
if (r.ok && typed(r.v, T.Namespace, 'getNamespace')) {
  ok(r.v.namespaceId === NS && r.v.targetApplicationId === 'app-fleet', 'getNamespace: that namespace', JSON.stringify(r.v));
  OWN_ID = r.v.identity;
}
await refused('getNamespace: unknown namespace is 404', 404, 'namespace not found', () => owner.getNamespace('ab'.repeat(32)));
r = await run('getNamespaceIdentity', () => owner.getNamespaceIdentity(NS));
if (r.ok) typed(r.v, T.NamespaceIdentity, 'getNamespaceIdentity');

// ---- policy, with requester
const policy = {
  allowedMrtd: [ZERO96], allowedRtmr0: [], allowedRtmr1: [ZERO96], allowedRtmr2: [ZERO96],
  allowedRtmr3: [ZERO96], allowedTcbStatuses: [], acceptMock: true,
};
await refused('setTeeAdmissionPolicy: another requester is 403 with a reason', 403, 'signs only as itself',
  () => owner.setTeeAdmissionPolicy(NS, { ...policy, requester: env.A_KEY }));
r = await run('setTeeAdmissionPolicy', () => owner.setTeeAdmissionPolicy(NS, { ...policy, requester: OWN_ID }));
if (r.ok) ok(r.v === undefined, 'setTeeAdmissionPolicy (requester = this node): resolves (void)');
r = await run('getTeeAdmissionPolicy', () => owner.getTeeAdmissionPolicy(NS));
if (r.ok && typed(r.v, T.GetTeeAdmissionPolicyResponseData, 'getTeeAdmissionPolicy')) {
  ok(r.v.acceptMock === true && r.v.allowedMrtd[0] === ZERO96 && r.v.allowedRtmr3[0] === ZERO96 && r.v.allowedRtmr0.length === 0,
    'getTeeAdmissionPolicy: reads back what was set', JSON.stringify(r.v));
}

// ---- TEE
r = await run('getTeeInfo', () => tee.getTeeInfo());
if (r.ok) typed(r.v, T.TeeInfoResponseData, 'getTeeInfo');
const nonce = randomBytes(32).toString('hex');
r = await run('teeAttest', () => tee.teeAttest({ nonce }));
if (r.ok && typed(r.v, T.TeeAttestResponseData, 'teeAttest')) {
  ok(r.v.quote.body.reportdata.startsWith(nonce), 'teeAttest: report data starts with the nonce', r.v.quote.body.reportdata);
}
r = await run('registration-attest (HttpClient)', () => teeHttp.post('/admin-api/tee/registration-attest', { nonce }));
if (r.ok) typed(r.v?.data, { quoteB64: 'string', quote: 'unknown' }, 'registration-attest (HttpClient)');
r = await run('fleet-join (HttpClient)', () =>
  teeHttp.post('/admin-api/tee/fleet-join', { groupId: NS, admitterAddrs: [env.OWNER_ADDR] }));
let TEE_ID = null;
if (r.ok && typed(r.v?.data, { status: 'string', group_id: 'hex64', namespace_id: 'hex64', public_key: 'string', account: 'hex64', admitted: 'boolean', auto_follow_enabled: 'boolean', contexts_joined: ['hex64'] }, 'fleet-join (HttpClient)')) {
  ok(r.v.data.admitted === true && r.v.data.status === 'joined', 'fleet-join: admitted, joined', JSON.stringify(r.v.data));
  TEE_ID = r.v.data.public_key;
}

// ---- members
async function members(group) {
  const m = await owner.listGroupMembers(group);
  return m.members;
}
let ms = null;
for (let i = 0; i < 50; i++) {
  r = await run('listGroupMembers', () => owner.listGroupMembers(NS));
  if (!r.ok) break;
  ms = r.v;
  if (ms.members.some((m) => m.identity === TEE_ID)) break;
  await sleep(200);
}
if (ms && typed(ms, T.ListGroupMembersResponseData, 'listGroupMembers')) {
  ok(ms.members.some((m) => m.identity === TEE_ID && m.role === 'ReadOnlyTee'), 'listGroupMembers: the TEE with its role ReadOnlyTee', JSON.stringify(ms.members));
  ok(ms.members.some((m) => m.identity === OWN_ID && m.role === 'Admin'), 'listGroupMembers: the owner as Admin');
}
const bs58 = (hex) => {
  const A = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  let x = BigInt('0x' + hex), s = '';
  while (x > 0n) { s = A[Number(x % 58n)] + s; x /= 58n; }
  for (let i = 0; i < hex.length && hex.slice(i, i + 2) === '00'; i += 2) s = '1' + s;
  return s;
};
await refused('addGroupMembers: a batch with one refusal is refused whole, the refusal named', 403, 'members[1]',
  () => owner.addGroupMembers(NS, { members: [{ identity: env.C_KEY, role: 'Member' }, { identity: TEE_ID, role: 'Member' }] }));
ok(!(await members(NS)).some((m) => m.identity === env.C_KEY), 'addGroupMembers: nothing of the refused batch was added');
await refused('addGroupMembers: another requester is 403', 403, 'signs only as itself',
  () => owner.addGroupMembers(NS, { members: [{ identity: env.C_KEY, role: 'Member' }], requester: env.A_KEY }));
r = await run('addGroupMembers', () => owner.addGroupMembers(NS, {
  members: [{ identity: env.A_KEY, role: 'Member' }, { identity: bs58(env.B_KEY), role: 'ReadOnly' }], requester: OWN_ID }));
if (r.ok) {
  const m = await members(NS);
  ok(m.some((x) => x.identity === env.A_KEY && x.role === 'Member') && m.some((x) => x.identity === env.B_KEY && x.role === 'ReadOnly'),
    'addGroupMembers: both added with their roles (hex and base58 keys)', JSON.stringify(m));
}
r = await run('updateMemberRole', () => owner.updateMemberRole(NS, env.A_KEY, { role: 'Admin', requester: OWN_ID }));
if (r.ok) ok((await members(NS)).some((x) => x.identity === env.A_KEY && x.role === 'Admin'), 'updateMemberRole: Member -> Admin');
await refused('updateMemberRole: a TEE role by hand is 403', 403, 'TeeMemberRoleLocked',
  () => owner.updateMemberRole(NS, env.A_KEY, { role: 'ReadOnlyTee' }));
await refused('updateMemberRole: another requester is 403', 403, 'signs only as itself',
  () => owner.updateMemberRole(NS, env.A_KEY, { role: 'Member', requester: env.B_KEY }));
// A removed first, then the owner would be the last admin (409): the whole batch rolls back
await refused('removeGroupMembers: a batch whose second removal is refused is refused whole', 409, 'members[1]',
  () => owner.removeGroupMembers(NS, { members: [env.A_KEY, OWN_ID] }));
ok((await members(NS)).some((x) => x.identity === env.A_KEY && x.role === 'Admin'), 'removeGroupMembers: the first removal of the refused batch was rolled back');
await refused('removeGroupMembers: another requester is 403', 403, 'signs only as itself',
  () => owner.removeGroupMembers(NS, { members: [env.A_KEY], requester: env.B_KEY }));
r = await run('removeGroupMembers', () => owner.removeGroupMembers(NS, { members: [env.A_KEY, env.B_KEY], requester: OWN_ID }));
if (r.ok) {
  const m = await members(NS);
  ok(!m.some((x) => x.identity === env.A_KEY || x.identity === env.B_KEY), 'removeGroupMembers: both gone', JSON.stringify(m));
}

// ---- groups of the namespace
r = await run('createGroupInNamespace', () => owner.createGroupInNamespace(NS, { name: 'workers' }));
let G = null;
if (r.ok && typed(r.v, T.CreateGroupInNamespaceResponseData, 'createGroupInNamespace')) G = r.v.groupId;
r = await run('listNamespaceGroups', () => owner.listNamespaceGroups(NS));
if (r.ok && typed(r.v, [T.SubgroupEntry], 'listNamespaceGroups')) {
  ok(r.v.some((x) => x.groupId === G && x.name === 'workers'), 'listNamespaceGroups: the new group with its name', JSON.stringify(r.v));
}
r = await run('getGroupInfo', () => owner.getGroupInfo(G ?? NS));
if (r.ok && typed(r.v, T.GroupInfo, 'getGroupInfo')) {
  ok(r.v.groupId === G && r.v.memberCount === 1 && r.v.targetApplicationId === 'app-fleet', 'getGroupInfo: that group, one member, the namespace application', JSON.stringify(r.v));
}

// ---- contexts
r = await run('create a context (extension route)', () => ownerHttp.post(`/admin-api/groups/${NS}/contexts`, {}));
const CTX = r.ok ? r.v?.data?.contextId : null;
r = await run('listGroupContexts', () => owner.listGroupContexts(NS));
if (r.ok && typed(r.v, [T.GroupContextEntry], 'listGroupContexts')) {
  ok(r.v.length === 1 && r.v[0].contextId === CTX, 'listGroupContexts: the namespace root\'s one context', JSON.stringify(r.v));
}

console.log(`1..${n}`);
process.exit(fails ? 1 : 0);
