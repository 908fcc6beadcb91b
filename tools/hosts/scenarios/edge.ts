/**
 * Requests the fronts' HTTP parser (uWebSockets.js 20.30) drops without an answer, leaving the client waiting on its
 * idle timer, are answered at once by the balancer with haproxy/haproxy.cfg: HTTP/1.0 gets 505, a control byte in a
 * header, a raw space in the path, a header line without a colon and more than 44 header lines get 400; a request
 * target over 3072 bytes gets 414 and a head over 4 KiB 431 (the fronts drop such a head when it arrives in pieces).
 * Each is also sent straight at front-a, to show what the balancer spares the clients.
 */
import { rawExchange } from '../clients.js'
import type { Deployment } from '../deployment.js'
import { PORTS } from '../deployment.js'
import { millis, type ScenarioOutcome } from '../scenario.js'
import { CLIENT_ADDRESSES, hostOf } from '../topology.js'

const CASES: ReadonlyArray<{ label: string; request: string; status: string }> = [
  { label: 'HTTP/1.0', request: 'GET /api/v1/callbacks/ZZZZ HTTP/1.0\r\n\r\n', status: '505' },
  { label: 'control byte in a header', request: 'GET /api/v1/callbacks/ZZZZ HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n', status: '400' },
  { label: 'raw space in the path', request: 'GET /api/v1/callbacks/ZZ ZZ HTTP/1.1\r\nHost: x\r\n\r\n', status: '400' },
  { label: 'header line without a colon', request: 'GET /api/v1/callbacks/ZZZZ HTTP/1.1\r\nHost: x\r\nBroken header\r\n\r\n', status: '400' },
  {
    label: '50 header lines',
    request: `GET /api/v1/callbacks/ZZZZ HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 49 }, (_, i) => `X-H${i}: v\r\n`).join('')}\r\n`,
    status: '400',
  },
  { label: 'a request target over 3072 bytes', request: `GET /api/v1/callbacks/${'ZZZZ&'.repeat(700)}ZZZZ HTTP/1.1\r\nHost: x\r\n\r\n`, status: '414' },
  { label: 'a request head over 4 KiB', request: `GET /api/v1/callbacks/ZZZZ HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(4000)}\r\n\r\n`, status: '431' },
  { label: 'a valid request (for comparison)', request: 'GET /api/v1/callbacks/ZZZZ HTTP/1.1\r\nHost: x\r\n\r\n', status: '200' },
]

/** Runs the scenario. */
export async function edgeScenario(_dep: Deployment): Promise<ScenarioOutcome> {
  const problems: string[] = []
  const figures: ScenarioOutcome['figures'] = []
  const from = CLIENT_ADDRESSES[1]!
  for (const c of CASES) {
    const viaLb = await rawExchange(hostOf('lb').address, PORTS.api, from, c.request, 3000)
    const direct = await rawExchange(hostOf('front-a').address, PORTS.api, from, c.request, 3000)
    const status = viaLb.statusLine?.split(' ')[1] ?? null
    if (status !== c.status) problems.push(`${c.label} through the balancer: ${viaLb.statusLine ?? 'no answer in 3 s'}, expected ${c.status}`)
    figures.push({
      label: c.label,
      value: `balancer: ${viaLb.statusLine ?? 'no answer in 3 s'} in ${millis(viaLb.ms)}; front-a directly: ${direct.statusLine ?? 'no answer in 3 s'}`,
    })
  }
  return {
    name: 'edge',
    title: 'requests the fronts cannot parse, sent through the balancer and straight at front-a',
    figures,
    problems,
  }
}
