// SPDX-License-Identifier: Apache-2.0
// mero_verify.js - verify an Intel TDX quote from Node through one long-lived
// `calimero-tee-verify --serve` process (docs/bindings.md, calimero-tee-verify(1)). Plain
// CommonJS, Node's standard library only, no build step.
//
//   const { verify } = require('./js/mero_verify.js');
//   const verdict = await verify(quote, nonce, appHash, collateral, time);
//   verdict.valid   // the object is the CLI's stdout document, member for member
//
// verify() resolves to the verdict document (the one-shot exit status 0) and rejects with a
// VerifyError (.exitCode 1 unusable input or 2 no verdict, .document the CLI's {error}) otherwise.
// Verifier#request() sends any request line and resolves to {exit, document} without rejecting
// on exit 1 or 2.
//
// Invariants: answers are matched to requests by order (the --serve contract); every request is
// one line (a raw line holding a newline is refused before it is sent); while no request is
// pending the process keeps no reference on Node's event loop, so a script ends without
// close(); if the process dies, every pending and later request is rejected.
'use strict';
const { spawn } = require('node:child_process');

class VerifyError extends Error {
  constructor(exitCode, document) {
    super(document && typeof document.error === 'string' ? document.error : 'calimero-tee-verify failed');
    this.name = 'VerifyError';
    this.exitCode = exitCode;
    this.document = document;
  }
}

function isBytes(v) {
  return v instanceof Uint8Array || v instanceof ArrayBuffer;
}

function bytes(v) {
  return Buffer.from(v instanceof ArrayBuffer ? new Uint8Array(v) : v);
}

function hexArg(name, v) {
  if (isBytes(v)) return bytes(v).toString('hex'); // the verifier judges the length
  if (typeof v === 'string') return v;
  throw new TypeError(`${name}: bytes (32) or a hex string`);
}

// The request verify() sends: quote bytes go as quote_b64, a string quote is taken as the
// base64 text `meroctl tee attest` returns; nonce and appHash as 32 bytes or 64 hex;
// collateral a QuoteCollateralV3 object or its JSON text; time unix seconds.
function makeRequest(quote, nonce, appHash, collateral = null, time = null) {
  let q;
  if (isBytes(quote)) q = bytes(quote).toString('base64');
  else if (typeof quote === 'string') q = quote;
  else throw new TypeError('quote: bytes, or base64 text');
  const req = { quote_b64: q, nonce_hex: hexArg('nonce', nonce), app_hash_hex: hexArg('appHash', appHash) };
  if (collateral !== null && collateral !== undefined) {
    req.collateral = typeof collateral === 'string' ? JSON.parse(collateral) : collateral;
  }
  if (time !== null && time !== undefined) {
    if (typeof time === 'bigint') time = Number(time);
    if (!Number.isSafeInteger(time)) throw new TypeError('time: unix seconds as an integer');
    req.time_unix = time;
  }
  return req;
}

class Verifier {
  // options.bin: the calimero-tee-verify binary (default $MERO_TEE_VERIFY, else found in PATH);
  // options.env: its environment (default process.env; CALIMERO_TEE_COLLATERAL_URL is read there).
  constructor(options = {}) {
    this.bin = options.bin || process.env.MERO_TEE_VERIFY || 'calimero-tee-verify';
    this.env = options.env || process.env;
    this.child = null;
    this.pending = [];
    this.partial = [];
    this.dead = null;
  }

  start() {
    if (this.child) return this.child;
    const child = spawn(this.bin, ['--serve'], { stdio: ['pipe', 'pipe', 'inherit'], env: this.env });
    this.child = child;
    child.stdout.on('data', (chunk) => this.onData(chunk));
    const die = (why) => {
      if (this.dead) return;
      this.dead = new Error(`calimero-tee-verify --serve ${why}`);
      for (const p of this.pending.splice(0)) p.reject(this.dead);
    };
    child.on('error', (e) => die(`could not run: ${e.message}`));
    child.on('exit', (code, signal) => die(`ended (${signal || `status ${code}`})`));
    child.stdin.on('error', () => {}); // EPIPE after a crash: the exit handler reports it
    this.idle();
    return child;
  }

  onData(chunk) {
    let at = chunk.indexOf(10);
    while (at !== -1) {
      this.partial.push(chunk.subarray(0, at));
      const line = Buffer.concat(this.partial).toString('utf8');
      this.partial = [];
      chunk = chunk.subarray(at + 1);
      at = chunk.indexOf(10);
      const p = this.pending.shift();
      if (!p) continue;
      let answer;
      try {
        answer = JSON.parse(line);
      } catch (e) {
        p.reject(new Error(`calimero-tee-verify --serve: an answer is not JSON: ${e.message}`));
        continue;
      }
      const { exit, ...document } = answer;
      p.resolve({ exit, document });
    }
    if (chunk.length > 0) this.partial.push(chunk);
    if (this.pending.length === 0) this.idle();
  }

  // No request in flight: let Node exit if nothing else holds it.
  idle() {
    if (!this.child) return;
    this.child.unref();
    this.child.stdout.unref();
    this.child.stdin.unref();
  }

  busy() {
    this.child.ref();
    this.child.stdout.ref();
    this.child.stdin.ref();
  }

  // Any request (an object, or one JSON text line) -> {exit, document}; exit as the one-shot
  // form's exit status.
  request(req) {
    const line = typeof req === 'string' ? req : JSON.stringify(req);
    if (line.includes('\n')) return Promise.reject(new TypeError('a request is one line'));
    this.start();
    if (this.dead) return Promise.reject(this.dead);
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.busy();
      this.child.stdin.write(line + '\n');
    });
  }

  async verify(quote, nonce, appHash, collateral = null, time = null) {
    const { exit, document } = await this.request(makeRequest(quote, nonce, appHash, collateral, time));
    if (exit === 0) return document;
    throw new VerifyError(exit, document);
  }

  // End the process (end of input); resolves to its exit status.
  close() {
    if (!this.child) return Promise.resolve(0);
    const child = this.child;
    return new Promise((resolve) => {
      if (child.exitCode !== null) return resolve(child.exitCode);
      child.once('exit', (code) => resolve(code));
      child.ref();
      child.stdin.end();
    });
  }
}

let shared = null;
// verify() and request() through one process shared by the whole program, started on first use.
function verify(quote, nonce, appHash, collateral = null, time = null) {
  shared = shared || new Verifier();
  return shared.verify(quote, nonce, appHash, collateral, time);
}

function request(req) {
  shared = shared || new Verifier();
  return shared.request(req);
}

module.exports = { verify, request, Verifier, VerifyError, makeRequest };
