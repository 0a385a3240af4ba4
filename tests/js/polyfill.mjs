// SPDX-License-Identifier: Apache-2.0
// polyfill.mjs - Node 20 lacks Promise.withResolvers (Node 22+), which some current js-libp2p
// dependencies (it-queue) call. Import this first in every test script.
if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function withResolvers () {
    let resolve, reject
    const promise = new Promise((res, rej) => { resolve = res; reject = rej })
    return { promise, resolve, reject }
  }
}
