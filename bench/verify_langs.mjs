// SPDX-License-Identifier: Apache-2.0
// verify_langs.mjs - the Node side of bench/verify_langs.bench.sh: js/mero_verify.js over one
// `calimero-tee-verify --serve` process judging one request, median of 7 rounds after a
// warm-up (collateral cached). Prints `bench verify_serve_roundtrip <us> us` (request() on the
// request line, each answer awaited before the next request: a caller's latency),
// `bench verify_serve_js <us> us` (verify() with JS arguments, request built every call) and
// `bench verify_serve_pipelined <us> us` (N requests in flight at once: cost per verification).
// Usage: node verify_langs.mjs REQUEST.json [N]   (env MERO_ROOT, MERO_TEE_VERIFY)
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const mv = require(`${process.env.MERO_ROOT}/js/mero_verify.js`);
const line = fs.readFileSync(process.argv[2], 'utf8').trim();
const n = Number(process.argv[3] || 300);
const req = JSON.parse(line);
const args = [req.quote_b64 !== undefined ? Buffer.from(req.quote_b64, 'base64') : Buffer.from(req.quote_hex, 'hex'),
  Buffer.from(req.nonce_hex, 'hex'), Buffer.from(req.app_hash_hex, 'hex'), req.collateral, req.time_unix];
const v = new mv.Verifier();

async function median(fn) {
  for (let i = 0; i < 20; i++) await fn(1);
  const per = [];
  for (let r = 0; r < 7; r++) {
    const t0 = process.hrtime.bigint();
    await fn(n);
    per.push(Number(process.hrtime.bigint() - t0) / 1000 / n);
  }
  per.sort((a, b) => a - b);
  return per[3];
}

if ((await v.verify(...args)).valid !== true) throw new Error('the request is not a valid verdict');
const rt = await median(async (k) => { for (let i = 0; i < k; i++) await v.request(line); });
const js = await median(async (k) => { for (let i = 0; i < k; i++) await v.verify(...args); });
const pl = await median(async (k) => { await Promise.all(Array.from({ length: k }, () => v.request(line))); });
console.log(`bench verify_serve_roundtrip ${rt.toFixed(1)} us`);
console.log(`bench verify_serve_js ${js.toFixed(1)} us`);
console.log(`bench verify_serve_pipelined ${pl.toFixed(1)} us`);
await v.close();
