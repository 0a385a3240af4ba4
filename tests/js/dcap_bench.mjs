// SPDX-License-Identifier: Apache-2.0
// dcap_bench.mjs - times @phala/dcap-qvl (pure JS) and @phala/dcap-qvl-web (Rust core in wasm)
// verifying one genuine quote with its collateral (default case dcapqvl-1). Prints
// `bench dcap_qvl_js_verify <us> us` and `bench dcap_qvl_web_verify <us> us` (median of rounds).
// Usage: node dcap_bench.mjs [case]   (env MERO_SHARED)
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const qvl = require('@phala/dcap-qvl');
const web = await import('@phala/dcap-qvl-web');
web.initSync({ module: fs.readFileSync(new URL('./node_modules/@phala/dcap-qvl-web/dcap-qvl-web_bg.wasm', import.meta.url)) });

const name = process.argv[2] || 'dcapqvl-1';
const dir = `${process.env.MERO_SHARED}/testdata/tdx/${name}`;
const f = fs.readdirSync(dir).find((x) => x.includes('collateral') && x.endsWith('.json'));
const coll = JSON.parse(fs.readFileSync(`${dir}/${f}`, 'utf8'));
const t = JSON.parse(fs.readFileSync(`${dir}/expected.json`, 'utf8')).verify_time_unix;
const quote = fs.readFileSync(`${dir}/quote.bin`);

function time(fn, iters, rounds) {
  for (let i = 0; i < 20; i++) fn();
  const per = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iters; i++) fn();
    per.push(Number(process.hrtime.bigint() - t0) / 1000 / iters);
  }
  per.sort((a, b) => a - b);
  return per[Math.floor(per.length / 2)];
}

const js = time(() => qvl.verify(quote, coll, t), 30, 7);
const w = time(() => web.js_verify(quote, coll, BigInt(t)), 30, 7);
console.log(`bench dcap_qvl_js_verify ${js.toFixed(1)} us`);
console.log(`bench dcap_qvl_web_verify ${w.toFixed(1)} us`);
