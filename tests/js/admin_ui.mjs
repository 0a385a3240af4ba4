// SPDX-License-Identifier: Apache-2.0
// admin_ui.mjs - drives the admin page (/admin-ui/, issue 19) in Debian's chromium through
// puppeteer-core, for tests/e2e/admin_ui.sh. Prints one line per check: "PASS name" or
// "FAIL name: detail"; exits 2 when chromium cannot start (the test then fails, never passes).
//
// usage: node admin_ui.mjs URL TOKEN OUTDIR EXPECT_JSON
//   EXPECT_JSON: {"replicas": [identity hex, ...], "role": "ReadOnlyTee", "ns": namespace shown,
//                 "otherNs": a second namespace (no TEE),
//                 "refusedReason": "text the refusal's reason contains", "refusedRule": "Rule"}
import './polyfill.mjs'
import puppeteer from 'puppeteer-core'

const [url, token, outdir, expectJson] = process.argv.slice(2)
const want = JSON.parse(expectJson)
const chromium = process.env.CHROMIUM || '/usr/bin/chromium'
const WAIT_MS = 30000

let failed = 0
const pass = (name) => console.log('PASS ' + name)
const fail = (name, detail) => { failed++; console.log('FAIL ' + name + ': ' + detail) }
async function check (name, fn) {
  try {
    const r = await fn()
    if (r === true) pass(name); else fail(name, String(r))
  } catch (e) {
    fail(name, e.message.split('\n')[0])
  }
}

let browser
try {
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
    timeout: WAIT_MS
  })
} catch (e) {
  console.log('FAIL chromium starts (' + chromium + '): ' + e.message.split('\n')[0])
  process.exit(2)
}

try {
  const page = await browser.newPage()
  await page.setViewport({ width: 1400, height: 900 })
  const cspViolations = []
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/.test(m.text())) cspViolations.push(m.text())
  })
  page.on('pageerror', (e) => cspViolations.push('page error: ' + e.message))

  await page.goto(url + '/admin-ui/' + (want.ns ? '#' + want.ns : ''), { waitUntil: 'domcontentloaded', timeout: WAIT_MS })
  await check('the page asks for the token', async () => {
    await page.waitForSelector('#login:not([hidden])', { timeout: WAIT_MS })
    return true
  })

  // a wrong token: an error naming the 401, the login form again, not a blank page
  await page.type('#token', 'f'.repeat(64))
  await page.click('#login-form button[type=submit]')
  await check('a wrong token shows an error', async () => {
    await page.waitForFunction(
      () => !document.getElementById('error').hidden &&
            /401/.test(document.getElementById('error').textContent) &&
            !document.getElementById('login').hidden,
      { timeout: WAIT_MS })
    // only the error and the form are on screen: no empty tables
    const shown = await page.evaluate(() => document.getElementById('app').getClientRects().length)
    return shown === 0 || 'the (empty) fleet tables are on screen'
  })
  await page.screenshot({ path: outdir + '/admin-ui-wrong-token.png' })
  await check('a wrong token is not kept', async () =>
    (await page.evaluate(() => sessionStorage.getItem('mero-admin-token'))) === null ||
    'the refused token stayed in sessionStorage')

  // the right token: namespaces, the fleet table, the attempts
  await page.type('#token', token)
  await page.click('#login-form button[type=submit]')
  await check('the fleet table shows both replicas', async () => {
    await page.waitForFunction(
      (ids) => ids.every((id) => document.querySelector('#members tr[data-identity="' + id + '"]')),
      { timeout: WAIT_MS }, want.replicas)
    return true
  })
  await check('the token is kept in sessionStorage', async () =>
    (await page.evaluate(() => sessionStorage.getItem('mero-admin-token'))) === token ||
    'not stored')
  await check('the namespace is listed', async () => {
    const n = await page.$$eval('#namespaces a[data-ns]', (as) => as.length)
    return n >= 1 || 'no namespace link'
  })
  const rows = await page.$$eval('#members tr.member', (trs) => trs.map((tr) => ({
    id: tr.dataset.identity,
    role: tr.querySelector('.role').textContent,
    tee: tr.querySelector('.tee').textContent,
    evidence: tr.querySelector('.evidence').textContent,
    evClass: tr.querySelector('.evidence span').className,
    measurements: tr.querySelector('.measurements').textContent
  })))
  for (const id of want.replicas) {
    const r = rows.find((x) => x.id === id)
    await check('replica ' + id.slice(0, 8) + ' has role ' + want.role, async () =>
      (r && r.role === want.role && r.tee === 'TEE') || JSON.stringify(r))
    await check('replica ' + id.slice(0, 8) + ' shows an evidence age', async () =>
      (r && /^\d+ (s|min|h|d) \((fresh|lapsing|lapsed)\)$/.test(r.evidence) &&
       /ev-(fresh|lapsing|lapsed)/.test(r.evClass)) || JSON.stringify(r))
    await check('replica ' + id.slice(0, 8) + ' measurements by name', async () =>
      (r && r.measurements === want.matched) || JSON.stringify(r))
  }
  // issue 35 item 6: names people recognise, the full id on hover, this node's row seen now
  for (const n of want.named || []) {
    await check('member ' + n.id.slice(0, 8) + ' is shown by its name ' + JSON.stringify(n.name),
      async () => {
        const c = await page.$eval('#members tr[data-identity="' + n.id + '"] td',
          (td) => ({ name: (td.querySelector('.name') || {}).textContent,
                     short: (td.querySelector('.short') || {}).textContent, title: td.title }))
        return (c.name === n.name && c.short.startsWith(n.id.slice(0, 8)) &&
                c.title.startsWith(n.id)) || JSON.stringify(c)
      })
  }
  if (want.self) {
    await check('this node\'s own row was last seen now', async () => {
      const t = await page.$eval('#members tr[data-identity="' + want.self + '"] .seen',
        (td) => td.textContent)
      return t === 'now (this node)' || t
    })
  }
  await check('the admitter is shown by name', async () => {
    const t = await page.$eval('#members tr[data-identity="' + want.replicas[0] + '"] td:nth-child(7)',
      (td) => ({ name: (td.querySelector('.name') || {}).textContent, title: td.title }))
    return (t.name === 'owner' && t.title.startsWith(want.self || '')) || JSON.stringify(t)
  })
  await check('the owner row is not a TEE', async () =>
    rows.some((x) => x.role === 'Admin' && x.tee === '—') || JSON.stringify(rows))
  await check('the refusal is shown with its rule and reason', async () => {
    await page.waitForFunction(
      (w) => [...document.querySelectorAll('#attempts tr.attempt.refused')].some((tr) =>
        tr.querySelector('.verdict').textContent === 'refused' &&
        tr.querySelector('.rule').textContent === w.refusedRule &&
        tr.querySelector('.reason').textContent.includes(w.refusedReason)),
      { timeout: WAIT_MS }, want)
    return true
  })
  await check('the admissions are in the attempts', async () => {
    const n = await page.$$eval('#attempts tr.attempt.admitted', (trs) => trs.length)
    return n >= want.replicas.length || 'admitted attempts: ' + n
  })
  await check('no error banner with the right token', async () =>
    (await page.$eval('#error', (e) => e.hidden)) || await page.$eval('#error', (e) => e.textContent))
  await page.screenshot({ path: outdir + '/admin-ui.png', fullPage: true })

  // issue 36: the fleet page links to the TEE timelines of the namespace it shows, and only
  // that one's: after switching to another namespace the link (and what it draws) follows
  const shownNs = () => page.$eval('#fleet-title', (e) => e.title)
  const timelineOf = async (ns, ids) => {
    await page.waitForFunction((n) => document.getElementById('fleet-title').title === n &&
      document.getElementById('timeline-link').dataset.ns === n, { timeout: WAIT_MS }, ns)
    await page.click('#timeline-link')
    await page.waitForFunction((n, want) => {
      const t = document.getElementById('timeline')
      return !t.hidden && t.dataset.ns === n && !/checking/.test(
        document.getElementById('timeline-summary').textContent) &&
        want.every((id) => t.querySelector('#timeline-body span[title="' + id + '"]'))
    }, { timeout: WAIT_MS }, ns, ids)
    return page.evaluate(() => ({
      link: document.getElementById('timeline-link').getAttribute('href'),
      heading: document.getElementById('timeline-ns').title,
      tees: [...document.querySelectorAll('#timeline-body h2 span.mono')].map((e) => e.title),
      svgs: document.querySelectorAll('#timeline-body svg').length
    }))
  }
  if (want.ns) {
    await check('the timeline link is for the namespace shown', async () => {
      const r = await timelineOf(want.ns, want.replicas)
      return (r.link === '#' + want.ns && r.heading === want.ns && r.svgs === r.tees.length &&
              want.replicas.every((id) => r.tees.includes(id))) || JSON.stringify(r)
    })
  }
  if (want.ns && want.otherNs) {
    await page.evaluate((n) => { location.hash = n }, want.otherNs)
    await check('another namespace picked: the old timelines are hidden', async () => {
      await page.waitForFunction((n) => document.getElementById('fleet-title').title === n &&
        document.getElementById('timeline').hidden, { timeout: WAIT_MS }, want.otherNs)
      return true
    })
    await check("the link then draws that namespace's timelines (no TEE), not the first's", async () => {
      const r = await timelineOf(want.otherNs, [])
      const text = await page.$eval('#timeline-body', (e) => e.textContent)
      return (r.link === '#' + want.otherNs && r.heading === want.otherNs && r.tees.length === 0 &&
              /No TEE was ever a member/.test(text)) || JSON.stringify(r)
    })
    await page.evaluate((n) => { location.hash = n }, want.ns)
    await page.waitForFunction((n) => document.getElementById('fleet-title').title === n,
      { timeout: WAIT_MS }, want.ns)
    await check('back on the first namespace: the fleet shown again', async () =>
      (await shownNs()) === want.ns || 'shows ' + (await shownNs()))
  }

  // issue 35: readable at 700 px wide: no column cut off, no sideways scrolling
  await page.setViewport({ width: 700, height: 900 })
  await check('at 700 px wide every column and cell of both tables is in view', async () => {
    const r = await page.evaluate(() => {
      const out = []
      for (const id of ['members', 'attempts']) {
        const t = document.getElementById(id)
        const right = t.getBoundingClientRect().right
        if (t.scrollWidth > t.clientWidth + 1 || right > window.innerWidth + 1) {
          out.push(id + ': width ' + t.scrollWidth + ', right edge ' + Math.round(right))
        }
      }
      // no cell cut off: its content fits its box (issue 35 item 6)
      for (const td of document.querySelectorAll('#members td, #members th, #attempts td, #attempts th')) {
        const b = td.getBoundingClientRect()
        if (td.scrollWidth > td.clientWidth + 1 || b.right > window.innerWidth + 1) {
          out.push('cell "' + td.textContent.slice(0, 30) + '": width ' + td.scrollWidth + ' in ' +
                   td.clientWidth + ', right edge ' + Math.round(b.right))
        }
      }
      if (document.documentElement.scrollWidth > window.innerWidth + 1) {
        out.push('page scrolls sideways: ' + document.documentElement.scrollWidth)
      }
      return out
    })
    return r.length === 0 || r.join('; ')
  })
  await page.screenshot({ path: outdir + '/admin-ui-700px.png', fullPage: true })
  await page.setViewport({ width: 1400, height: 900 })

  // it refreshes itself: the "updated" stamp changes without a reload
  await check('the page refreshes itself', async () => {
    const before = await page.$eval('#updated', (e) => e.textContent)
    await page.waitForFunction((b) => document.getElementById('updated').textContent !== b,
      { timeout: WAIT_MS }, before)
    return true
  })

  // evidence ages turn amber (lapsing) and red (lapsed), and text from the node is text: the
  // real document with two states changed and a reason holding markup, served in its place
  let fleetDoc = null
  await page.setRequestInterception(true)
  page.on('request', async (rq) => {
    if (!/\/fleet(\?|$)/.test(rq.url())) { rq.continue(); return }
    if (fleetDoc === null) {
      const r = await fetch(rq.url(), { headers: rq.headers() })
      fleetDoc = await r.json()
      const ms = fleetDoc.data.members.filter((m) => want.replicas.includes(m.identity))
      ms[0].tee.evidenceState = 'lapsing'
      ms[1].tee.evidenceState = 'lapsed'
      fleetDoc.data.attempts.unshift({ ...fleetDoc.data.attempts[0], verdict: 'refused',
        rule: 'Injected', reason: '<img src=x id=injected>' })
    }
    rq.respond({ status: 200, contentType: 'application/json', body: JSON.stringify(fleetDoc) })
  })
  await check('a lapsing evidence age is amber, a lapsed one red', async () => {
    await page.waitForFunction(() => document.querySelector('#members .ev-lapsed'),
      { timeout: WAIT_MS })
    const colors = await page.evaluate(() => ['.ev-lapsing', '.ev-lapsed'].map((c) =>
      getComputedStyle(document.querySelector('#members ' + c)).color))
    return (colors[0] === 'rgb(154, 103, 0)' && colors[1] === 'rgb(180, 35, 24)') ||
      JSON.stringify(colors)
  })
  await check('markup in a reason is shown as text', async () => {
    await page.waitForFunction(() => [...document.querySelectorAll('#attempts .reason')]
      .some((td) => td.textContent === '<img src=x id=injected>'), { timeout: WAIT_MS })
    return (await page.$('#injected')) === null || 'the reason became an element'
  })
  await page.screenshot({ path: outdir + '/admin-ui-lapsing.png', fullPage: true })
  await page.setRequestInterception(false)
  page.removeAllListeners('request')

  // the node unreachable: an error, the last data kept
  await page.setOfflineMode(true)
  await check('an unreachable node shows an error', async () => {
    await page.waitForFunction(
      () => /Cannot reach the node/.test(document.getElementById('error').textContent) &&
            !document.getElementById('error').hidden,
      { timeout: WAIT_MS })
    const kept = await page.$$eval('#members tr.member', (trs) => trs.length)
    return kept >= want.replicas.length || 'the table was emptied'
  })
  await page.screenshot({ path: outdir + '/admin-ui-unreachable.png' })
  await page.setOfflineMode(false)

  await check('no Content-Security-Policy violation or script error', async () =>
    cspViolations.length === 0 || cspViolations.join(' | '))
} catch (e) {
  fail('the page test ran to its end', e.message.split('\n')[0])
} finally {
  await browser.close()
}
process.exit(failed ? 1 : 0)
