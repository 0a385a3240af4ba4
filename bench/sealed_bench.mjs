// SPDX-License-Identifier: Apache-2.0
// sealed_bench.mjs - plaintext against sealed requests to one merod (env BASE_URL, TOKEN,
// MERO_SHARED), the same route in alternating rounds so that machine load hits both alike.
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';

const env = process.env;
const sealed = await import(pathToFileURL(`${env.MERO_SHARED}/peers/mero-js-sealed/sealed.mjs`).href);
const BASE = env.BASE_URL;
const auth = { authorization: `Bearer ${env.TOKEN}` };
const ROUTES = [
  ['identity', `${BASE}/admin-api/identity`, () => ({ headers: auth })],
  ['attest_mock', `${BASE}/admin-api/tee/attest`, () => ({
    method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ nonce: '11'.repeat(32) }),
  })],
];
const key = async () => {
  const r = await fetch(`${BASE}/admin-api/tee/attest`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ nonce: '00'.repeat(32), bindTransportKey: true }),
  });
  return Uint8Array.from(Buffer.from((await r.json()).data.transportPublicKey, 'hex'));
};
const sfetch = sealed.createSealedFetch({ baseUrl: BASE, transportPublicKey: await key() });

// the node's own CPU (utime + stime, clock ticks of 10 ms), so the client's cost is not counted
const nodeCpu = () => {
  const f = readFileSync(`/proc/${env.MEROD_PID}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10000; // us
};
let cpu = 0;
async function round(f, n, url, init) {
  const c = nodeCpu();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const r = await f(url, init());
    if (r.status !== 200) throw new Error(`status ${r.status}`);
    await r.arrayBuffer();
  }
  cpu = (nodeCpu() - c) / n;
  return Number(process.hrtime.bigint() - t) / n / 1e3; // us per request
}
for (const [name, url, init] of ROUTES) {
  await round(fetch, 50, url, init);
  await round(sfetch, 50, url, init); // warm: the handshake is not in the measured rounds
  let plain = 0, seal = 0, plainCpu = 0, sealCpu = 0;
  const ROUNDS = 5, N = 300;
  for (let i = 0; i < ROUNDS; i++) {
    plain += await round(fetch, N, url, init);
    plainCpu += cpu;
    seal += await round(sfetch, N, url, init);
    sealCpu += cpu;
  }
  console.log(`bench sealed_${name}_plain_request ${(plain / ROUNDS).toFixed(1)} us/req`);
  console.log(`bench sealed_${name}_sealed_request ${(seal / ROUNDS).toFixed(1)} us/req`);
  console.log(`bench sealed_${name}_node_cpu_plain ${(plainCpu / ROUNDS).toFixed(1)} us/req`);
  console.log(`bench sealed_${name}_node_cpu_sealed ${(sealCpu / ROUNDS).toFixed(1)} us/req`);
  console.log(`ratio sealed_over_plain_${name} ${(seal / plain).toFixed(2)}`);
  console.log(`ratio sealed_over_plain_${name}_node_cpu ${(sealCpu / plainCpu).toFixed(2)}`);
}
