// SPDX-License-Identifier: Apache-2.0
// p2p_peer.mjs - a js-libp2p test peer (TEST TOOL) speaking the same line protocol as
// src/cli/mero_p2p_test: TCP + Noise + yamux + identify + gossipsub (StrictSign) and an echo
// request/response protocol framed like ours (one unsigned-varint length-prefixed frame each
// way, then close). Commands on stdin, events on stdout (see mero_p2p_test/main.c).
// Usage: node p2p_peer.mjs [--listen MA] [--echo PROTO] [--sub TOPIC] [--seed HEX32]
//                          [--accept-px 1] [--do-px 1]
// Peer exchange (issue 33): js's gossipsub takes a PRUNE's PX only from a peer whose score
// reaches acceptPXThreshold (default 10; a fresh peer scores 0), so --accept-px 1 sets it to 0;
// it sends PX only with doPX (default off), which --do-px 1 turns on. Every PRUNE received is
// printed "prune TOPIC FROM"; "record PEER" prints "record PEER ADDRS SIGNED" from the peer
// store (how many addresses, and 1 if a signed peer record for PEER is held); "mesh TOPIC"
// prints "mesh N", the topic's mesh peers.
import './polyfill.mjs'
import { createLibp2p } from 'libp2p'
import { tcp } from '@libp2p/tcp'
import { noise } from '@chainsafe/libp2p-noise'
import { yamux } from '@chainsafe/libp2p-yamux'
import { gossipsub } from '@chainsafe/libp2p-gossipsub'
import { identify } from '@libp2p/identify'
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys'
import { peerIdFromString } from '@libp2p/peer-id'
import { multiaddr } from '@multiformats/multiaddr'
import * as lp from 'it-length-prefixed'
import { pipe } from 'it-pipe'
import { createInterface } from 'node:readline'

const args = process.argv.slice(2)
const opt = { listen: [], sub: [], echo: null, seed: null, 'accept-px': null, 'do-px': null }
for (let i = 0; i < args.length; i += 2) {
  const k = args[i].replace(/^--/, ''), v = args[i + 1]
  if (k === 'listen' || k === 'sub') opt[k].push(v); else opt[k] = v
}
const out = (s) => process.stdout.write(s + '\n')
const dec = new TextDecoder(), enc = new TextEncoder()

const config = {
  addresses: { listen: opt.listen },
  transports: [tcp()],
  connectionEncrypters: [noise()],
  streamMuxers: [yamux()],
  services: {
    identify: identify(),
    pubsub: gossipsub({
      emitSelf: false,
      allowPublishToZeroTopicPeers: false,
      heartbeatInterval: 700,
      doPX: opt['do-px'] === '1',
      scoreThresholds: opt['accept-px'] === '1' ? { acceptPXThreshold: 0 } : {}
    })
  }
}
if (opt.seed) config.privateKey = await generateKeyPairFromSeed('Ed25519', Buffer.from(opt.seed, 'hex'))
const node = await createLibp2p(config)
await node.start()
out('id ' + node.peerId.toString())
for (const a of node.getMultiaddrs()) out('listen ' + a.toString())

node.addEventListener('peer:connect', (e) => out('peer up ' + e.detail.toString()))
node.addEventListener('peer:disconnect', (e) => out('peer down ' + e.detail.toString()))
node.services.pubsub.addEventListener('message', (e) => {
  const m = e.detail
  if (m.type !== 'signed') return
  out(`msg ${m.topic} ${m.from.toString()} ${dec.decode(m.data)}`)
})
node.services.pubsub.addEventListener('gossipsub:prune', (e) => {
  if (e.detail.direction === 'inbound') out(`prune ${e.detail.topic} ${e.detail.peerId.toString()}`)
})
for (const t of opt.sub) node.services.pubsub.subscribe(t)

async function readOneFrame (source) {
  for await (const msg of lp.decode(source, { maxDataLength: 4 << 20 })) {
    return msg.subarray()
  }
  throw new Error('closed before a frame')
}

if (opt.echo) {
  await node.handle(opt.echo, async ({ stream, connection }) => {
    try {
      const req = await readOneFrame(stream.source)
      out(`served ${opt.echo} ${connection.remotePeer.toString()} ${dec.decode(req)}`)
      const reply = enc.encode('echo:' + dec.decode(req))
      await pipe([reply], (s) => lp.encode(s), stream.sink)
    } catch (err) {
      out('served-error ' + err.message)
      stream.abort(err)
    }
  })
}

async function request (peer, proto, text) {
  const stream = await node.dialProtocol(peerIdFromString(peer), proto, { signal: AbortSignal.timeout(10000) })
  await pipe([enc.encode(text)], (s) => lp.encode(s), stream.sink)
  const r = await readOneFrame(stream.source)
  return dec.decode(r)
}

const rl = createInterface({ input: process.stdin })
rl.on('line', async (line) => {
  const [cmd, ...rest] = line.split(' ')
  try {
    if (cmd === 'quit') { await node.stop(); process.exit(0) }
    if (cmd === 'dial') {
      const c = await node.dial(multiaddr(rest[0]), { signal: AbortSignal.timeout(10000) })
      out('dial ok ' + c.remotePeer.toString())
    } else if (cmd === 'sub') { node.services.pubsub.subscribe(rest[0]); out('sub ok') }
    else if (cmd === 'unsub') { node.services.pubsub.unsubscribe(rest[0]); out('unsub ok') }
    else if (cmd === 'mesh') { out('mesh ' + node.services.pubsub.getMeshPeers(rest[0]).length) }
    else if (cmd === 'record') {
      const p = await node.peerStore.get(peerIdFromString(rest[0]))
      out(`record ${rest[0]} ${p.addresses.length} ${p.peerRecordEnvelope != null ? 1 : 0}`)
    }
    else if (cmd === 'pub') {
      try {
        const r = await node.services.pubsub.publish(rest[0], enc.encode(rest.slice(1).join(' ')))
        out('pub ' + r.recipients.length)
      } catch (err) { out('pub ENOPEERS ' + err.message) }
    } else if (cmd === 'topicpeers') {
      out('topicpeers ' + node.services.pubsub.getSubscribers(rest[0]).length)
    } else if (cmd === 'req') {
      out('reply ok ' + await request(rest[0], rest[1], rest.slice(2).join(' ')))
    } else if (cmd === 'peers') { out('peers ' + node.getPeers().length) }
  } catch (err) {
    out(`${cmd === 'req' ? 'reply' : cmd} err ${err.message.replace(/\n/g, ' ')}`)
  }
})
rl.on('close', async () => { await node.stop(); process.exit(0) })
