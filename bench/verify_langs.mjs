// SPDX-License-Identifier: Apache-2.0
// verify_langs.mjs - the Node side of bench/verify_langs.bench.sh: js/mero_verify.js over one
// `calimero-tee-verify --serve` process judging one request (collateral cached), and
// @phala/dcap-qvl-web (Rust core in wasm) verifying the same quote and collateral, in
// interleaved rounds (so both see the same machine load), median of 7 rounds after a warm-up.
// Prints `bench <name> <us> us` for
//   verify_serve_roundtrip   request() on the request line, each answer awaited (a caller's latency)
//   verify_serve_js          verify() with JS arguments, the request built on every call
//   verify_serve_pipelined   N requests in flight at once: cost per verification
//   verify_serve_fetchcache  as roundtrip, the request without collateral (NOCOLL.json): the
//                            collateral is fetched once and then served from the fetch cache
//   dcap_qvl_web_same_run    dcap-qvl-web's js_verify (when tests/js/node_modules has it)
// each also as `<name>_cpu`: CPU time per verification, this process plus (for --serve) the
// verifier process (its /proc/<pid>/schedstat), which a loaded machine disturbs far less.
// Usage: node verify_langs.mjs REQUEST.json [N [NOCOLL.json]]   (env MERO_ROOT, MERO_TEE_VERIFY)
import fs from 'node:fs';
import { createRequire } from 'node:module';

const ROOT = process.env.MERO_ROOT;
const require = createRequire(import.meta.url);
const mv = require(`${ROOT}/js/mero_verify.js`);
const line = fs.readFileSync(process.argv[2], 'utf8').trim();
const n = Number(process.argv[3] || 300);
const req = JSON.parse(line);
const quote = req.quote_b64 !== undefined ? Buffer.from(req.quote_b64, 'base64') : Buffer.from(req.quote_hex, 'hex');
const args = [quote, Buffer.from(req.nonce_hex, 'hex'), Buffer.from(req.app_hash_hex, 'hex'), req.collateral, req.time_unix];
const v = new mv.Verifier();
if ((await v.verify(...args)).valid !== true) throw new Error('the request is not a valid verdict');

let web = null;
const webDir = `${ROOT}/tests/js/node_modules/@phala/dcap-qvl-web`;
if (fs.existsSync(webDir)) {
  web = await import(`${webDir}/dcap-qvl-web.js`);
  web.initSync({ module: fs.readFileSync(`${webDir}/dcap-qvl-web_bg.wasm`) });
}

function childNs() {
  // first field of schedstat: time on CPU in ns
  return Number(fs.readFileSync(`/proc/${v.child.pid}/schedstat`, 'utf8').split(' ')[0]);
}
function selfUs() {
  const u = process.cpuUsage();
  return u.user + u.system;
}

const methods = {
  verify_serve_roundtrip: { serve: true, run: async (k) => { for (let i = 0; i < k; i++) await v.request(line); } },
  verify_serve_js: { serve: true, run: async (k) => { for (let i = 0; i < k; i++) await v.verify(...args); } },
  verify_serve_pipelined: { serve: true, run: async (k) => { await Promise.all(Array.from({ length: k }, () => v.request(line))); } },
};
if (process.argv[4]) {
  const nc = fs.readFileSync(process.argv[4], 'utf8').trim();
  if ((await v.request(nc)).document.valid !== true) throw new Error('the fetching request is not a valid verdict');
  methods.verify_serve_fetchcache = { serve: true, run: async (k) => { for (let i = 0; i < k; i++) await v.request(nc); } };
}
if (web) {
  const t = BigInt(req.time_unix);
  methods.dcap_qvl_web_same_run = { serve: false, run: async (k) => { for (let i = 0; i < k; i++) web.js_verify(quote, req.collateral, t); } };
}
const wall = {};
const cpu = {};
for (const [name, m] of Object.entries(methods)) {
  await m.run(20);
  wall[name] = [];
  cpu[name] = [];
}
for (let r = 0; r < 7; r++) {
  for (const [name, m] of Object.entries(methods)) {
    const k = m.serve ? n : Math.max(10, Math.floor(n / 10));
    const c0 = m.serve ? childNs() : 0;
    const s0 = selfUs();
    const t0 = process.hrtime.bigint();
    await m.run(k);
    wall[name].push(Number(process.hrtime.bigint() - t0) / 1000 / k);
    cpu[name].push((selfUs() - s0 + (m.serve ? (childNs() - c0) / 1000 : 0)) / k);
  }
}
const med = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
for (const name of Object.keys(methods)) {
  console.log(`bench ${name} ${med(wall[name]).toFixed(1)} us`);
  console.log(`bench ${name}_cpu ${med(cpu[name]).toFixed(1)} us`);
}
await v.close();
