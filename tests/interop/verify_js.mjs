// SPDX-License-Identifier: Apache-2.0
// verify_js.mjs - js/mero_verify.js (Node over `calimero-tee-verify --serve`) against the
// one-shot calimero-tee-verify on every request of tests/support/verify_cases.py (genuine
// cases, flipped copies, unusable input, no verdict): verify() resolves to the CLI's stdout
// document (same members, same order) or rejects with a VerifyError carrying the CLI's exit
// status and document; request() gives {exit, document} for any line, a bad line in the
// middle included; many requests in flight at once come back matched to their request; a
// script that never calls close() still ends; close() resolves to 0. Prints TAP.
// Env: MERO_BIN, MERO_ROOT, MERO_SHARED.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const ROOT = process.env.MERO_ROOT;
const BIN = `${process.env.MERO_BIN}/calimero-tee-verify`;
const mv = require(`${ROOT}/js/mero_verify.js`);

let n = 0;
let failed = 0;
function check(cond, name, why = '') {
  n += 1;
  if (cond) console.log(`ok ${n} - ${name}`);
  else {
    failed += 1;
    console.log(`not ok ${n} - ${name} # ${String(why).slice(0, 300)}`);
  }
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

const gen = spawnSync('python3', [`${ROOT}/tests/support/verify_cases.py`, process.env.MERO_SHARED], {
  maxBuffer: 256 << 20,
});
const cases = gen.stdout.toString().trim().split('\n').map((l) => JSON.parse(l));
check(cases.length >= 40, `${cases.length} shared cases`);
const lineOf = (req) => (typeof req === 'string' ? req : JSON.stringify(req));

function oneShot(req) {
  const p = spawnSync(BIN, [], { input: `${lineOf(req)}\n`, maxBuffer: 16 << 20, timeout: 60000 });
  return { exit: p.status, document: JSON.parse(p.stdout.toString()) };
}

const KNOWN = new Set(['quote_b64', 'quote_hex', 'nonce_hex', 'app_hash_hex', 'collateral', 'time_unix']);
function argsOf(req) {
  if (typeof req !== 'object' || Object.keys(req).some((k) => !KNOWN.has(k))) return null;
  const quote = req.quote_b64 !== undefined ? Buffer.from(req.quote_b64, 'base64') : Buffer.from(req.quote_hex, 'hex');
  const nonce = /^[0-9a-f]{64}$/.test(req.nonce_hex) ? Buffer.from(req.nonce_hex, 'hex') : req.nonce_hex;
  return [quote, nonce, req.app_hash_hex, req.collateral ?? null, req.time_unix ?? null];
}

async function throughVerify(v, args) {
  try {
    return { exit: 0, document: await v.verify(...args) };
  } catch (e) {
    if (!(e instanceof mv.VerifyError)) return { exit: -1, document: { thrown: String(e) } };
    return { exit: e.exitCode, document: e.document };
  }
}

const v = new mv.Verifier({ bin: BIN });
const expected = new Map();
let valid = 0;
for (const { name, request } of cases) {
  const want = oneShot(request);
  expected.set(name, want);
  if (want.exit === 0 && want.document.valid === true) valid += 1;
  const got = await v.request(lineOf(request));
  check(same(got, want), `request(): ${name}`, `got ${JSON.stringify(got).slice(0, 150)}`);
  const args = argsOf(request);
  if (args) {
    const g = await throughVerify(v, args);
    check(same(g, want), `verify(): ${name}`, `got ${JSON.stringify(g).slice(0, 150)}`);
  }
}
check(valid >= 5, `${valid} genuine cases valid through the CLI`);

// Everything in flight at once, three times over, with a bad line and an empty line among them.
const all = [];
for (let r = 0; r < 3; r++) {
  for (const { name, request } of cases) all.push([name, v.request(lineOf(request))]);
  all.push(['bad', v.request('{"nonce_hex":')]);
  all.push(['empty', v.request('')]);
}
const answers = await Promise.all(all.map(([, p]) => p));
const mism = all.filter(([name], i) => {
  if (name === 'bad' || name === 'empty') return answers[i].exit !== 1 || !answers[i].document.error;
  return !same(answers[i], expected.get(name));
});
check(mism.length === 0, `${all.length} requests in flight at once, each answer matched to its request`,
  mism.map(([name]) => name).join(', '));

// The module-level verify() (one shared process), via $MERO_TEE_VERIFY.
process.env.MERO_TEE_VERIFY = BIN;
const first = cases[0];
const d = await mv.verify(...argsOf(first.request));
check(same({ exit: 0, document: d }, expected.get(first.name)) && d.valid === true, 'module verify() gives the verdict');

// A request holding a newline is refused before it is sent (it would be two requests).
let refused = false;
try {
  await v.request('{}\n{}');
} catch (e) {
  refused = e instanceof TypeError;
}
const after = await v.request(lineOf(first.request));
check(refused && same(after, expected.get(first.name)), 'a two-line request is refused; the stream stays in step');

// A script that never calls close() ends by itself.
const script = `const mv = require(${JSON.stringify(`${ROOT}/js/mero_verify.js`)});
mv.request('[1]').then((a) => console.log(JSON.stringify(a)));`;
const s = spawnSync(process.execPath, ['-e', script], { env: { ...process.env }, timeout: 30000 });
check(s.status === 0 && s.stdout.toString().includes('"exit":1'), 'a script without close() ends after its answer',
  `status ${s.status} signal ${s.signal} ${s.stdout}`);

check((await v.close()) === 0, 'close() ends --serve with status 0');
let dead = false;
try {
  await v.request('{}');
} catch (e) {
  dead = /ended/.test(e.message);
}
check(dead, 'a request after close() is rejected, not left pending');
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
