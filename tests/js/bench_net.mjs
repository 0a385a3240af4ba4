// SPDX-License-Identifier: Apache-2.0
// bench_net.mjs - the js-libp2p side of bench/net.bench.sh: the same two exchanges as
// bench/bench_net.c between js-libp2p nodes in one process on 127.0.0.1:
//   1. one yamux stream carrying MB megabytes in one varint-length-prefixed frame, received
//      whole (as our request/response delivers it) and answered with one byte (MB/s);
//   2. gossipsub, 1 publisher + 4 subscribers, N messages of 256 bytes (deliveries/s).
// Each is repeated R times over the same connections and the median printed, as ours does.
// Usage: node bench_net.mjs [MB] [N] [R]
import './polyfill.mjs'
import { createLibp2p } from 'libp2p'
import { tcp } from '@libp2p/tcp'
import { noise } from '@chainsafe/libp2p-noise'
import { yamux } from '@chainsafe/libp2p-yamux'
import { gossipsub } from '@chainsafe/libp2p-gossipsub'
import { identify } from '@libp2p/identify'
import * as lp from 'it-length-prefixed'

const MB = Number(process.argv[2] ?? 16)
const N = Number(process.argv[3] ?? 2000)
const R = Number(process.argv[4] ?? 7)

function median (name, v) {
  v.sort((x, y) => x - y)
  console.log(`# ${name}: ${v.length} rounds, min ${v[0].toFixed(1)} median ${v[v.length >> 1].toFixed(1)} max ${v[v.length - 1].toFixed(1)}`)
  return v.length % 2 ? v[v.length >> 1] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2
}

async function mk (withPubsub) {
  const services = { identify: identify() }
  if (withPubsub) services.pubsub = gossipsub({ emitSelf: false, heartbeatInterval: 1000, maxOutboundBufferSize: 1 << 30 })
  const n = await createLibp2p({
    addresses: { listen: ['/ip4/127.0.0.1/tcp/0'] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services
  })
  await n.start()
  return n
}

function varint (n) {
  const out = []
  while (n > 0x7f) { out.push((n & 0x7f) | 0x80); n = Math.floor(n / 128) }
  out.push(n)
  return Uint8Array.from(out)
}

// 1. one stream
{
  const a = await mk(false), b = await mk(false)
  const total = MB << 20
  await b.handle('/bench/sink/1', async ({ stream }) => {
    // Receive the message whole, as our request/response handler does (one contiguous frame),
    // so both sides do the same exchange.
    let got = 0, need = -1
    const parts = []
    for await (const chunk of stream.source) {
      parts.push(chunk.subarray())
      got += chunk.byteLength
      if (need < 0) need = total + varint(total).length
      if (got >= need) break
    }
    const whole = Buffer.concat(parts, got)
    if (whole.length !== got) throw new Error('short message')
    await stream.sink([lp.encode.single(Uint8Array.of(107)).subarray()])
  }, { maxInboundStreams: 4 })
  await a.dial(b.getMultiaddrs()[0])
  const chunk = new Uint8Array(64 * 1024)
  const rates = []
  for (let r = 0; r < R; r++) {
    const t0 = performance.now()
    const s = await a.dialProtocol(b.peerId, '/bench/sink/1')
    await s.sink((async function * () {
      yield varint(total)
      for (let sent = 0; sent < total; sent += chunk.length) yield chunk
    })())
    for await (const x of s.source) { if (x.byteLength) break }
    rates.push(MB / ((performance.now() - t0) / 1000))
  }
  console.log(`bench net_yamux_stream_js ${median('net_yamux_stream_js', rates).toFixed(1)} MB/s`)
  await a.stop(); await b.stop()
}

// 2. gossipsub 1 -> 4
{
  const pub = await mk(true)
  const subs = []
  for (let i = 0; i < 4; i++) subs.push(await mk(true))
  let delivered = 0, resolve = () => {}
  for (const s of subs) {
    s.services.pubsub.subscribe('ns/bench')
    s.services.pubsub.addEventListener('message', () => { if (++delivered >= N * 4) resolve() })
    await s.dial(pub.getMultiaddrs()[0])
  }
  while (pub.services.pubsub.getSubscribers('ns/bench').length < 4) await new Promise((r) => setTimeout(r, 50))
  const msg = new Uint8Array(256).fill(109)
  const rates = []
  let seq = 0
  for (let r = 0; r < R; r++) {
    delivered = 0
    const done = new Promise((res) => { resolve = res })
    const t0 = performance.now()
    for (let i = 0; i < N; i++, seq++) {
      msg[0] = seq & 255; msg[1] = (seq >> 8) & 255; msg[2] = (seq >> 16) & 255
      await pub.services.pubsub.publish('ns/bench', msg)
    }
    await Promise.race([done, new Promise((res) => setTimeout(res, 120000))])
    const dt = (performance.now() - t0) / 1000
    if (delivered < N * 4) console.log(`# js gossip: only ${delivered} of ${N * 4} deliveries`)
    rates.push(delivered / dt)
  }
  console.log(`bench net_gossip_4subs_js ${median('net_gossip_4subs_js', rates).toFixed(0)} msgs/s`)
  await pub.stop()
  for (const s of subs) await s.stop()
}
process.exit(0)
