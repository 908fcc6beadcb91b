/**
 * Per-client limits hold across both fronts behind the balancer: one game server's callbacks budget (100 per 10 s)
 * and unknown-code budget (1000 distinct codes an hour) are spent on whichever front the balancer picks, a forged
 * X-Forwarded-For buys nothing (through the balancer or straight at a front), and another client is unaffected.
 */
import { call, type Reply } from '../clients.js'
import type { Deployment } from '../deployment.js'
import { linkPlayer } from '../players.js'
import type { ScenarioOutcome } from '../scenario.js'
import { CLIENT_ADDRESSES } from '../topology.js'

const CALLBACKS_LIMIT = 100
const UNKNOWN_BUDGET = 1000
const CODES_PER_REQUEST = 200

/** `count` distinct well-formed codes that no user holds (the issued ones are random over 33^4). */
function unknownCodes(count: number, offset: number): string[] {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTUVWXYZ'
  const out: string[] = []
  for (let i = offset; out.length < count; i++) {
    const n = 7 * 33 ** 3 + i
    out.push([3, 2, 1, 0].map((p) => alphabet[Math.floor(n / 33 ** p) % 33]).join(''))
  }
  return out
}

async function callbacksPerFront(dep: Deployment): Promise<[number, number]> {
  // A front that has not answered callbacks yet has no such series (NaN): that is 0 requests.
  const read = async (front: 'front-a' | 'front-b') => (await dep.metric(front, 'presence_link_http_requests_total', { route: 'callbacks' })) || 0
  return [await read('front-a'), await read('front-b')]
}

/** Runs the scenario. */
export async function limitsScenario(dep: Deployment): Promise<ScenarioOutcome> {
  const title =
    `one client polls callbacks through the balancer until refused, then tries a forged X-Forwarded-For through the balancer and straight at a front; ` +
    `another client asks for ${UNKNOWN_BUDGET + 2 * CODES_PER_REQUEST} distinct unknown codes, ${CODES_PER_REQUEST} per request`
  const problems: string[] = []
  const [x, y, z] = [CLIENT_ADDRESSES[0]!, CLIENT_ADDRESSES[1]!, CLIENT_ADDRESSES[3]!]
  const player = await linkPlayer(dep, 200, 0)
  // A fresh 10 s window for client x (its binds spend another route's budget).
  await new Promise((r) => setTimeout(r, 10_500))

  const before = await callbacksPerFront(dep)
  const answers: Reply[] = []
  for (let i = 0; i < CALLBACKS_LIMIT + 1; i++) answers.push(await call(`${dep.api}/callbacks/${player.code}`, { from: x }))
  const after = await callbacksPerFront(dep)
  const ok = answers.filter((a) => a.status === 200).length
  const firstRefused = answers.findIndex((a) => a.status === 429)
  if (ok !== CALLBACKS_LIMIT) problems.push(`client x got ${ok} answers 200 of its first ${CALLBACKS_LIMIT + 1}, expected ${CALLBACKS_LIMIT}`)
  if (firstRefused !== CALLBACKS_LIMIT) problems.push(`client x was first refused at request ${firstRefused + 1}, expected ${CALLBACKS_LIMIT + 1}`)
  const refusal = answers[CALLBACKS_LIMIT]
  if (refusal !== undefined && !/^rate limit exceeded: 100 requests per 10 seconds per IP; retry in \d+ s\n?$/.test(refusal.text)) {
    problems.push(`the refusal body was ${JSON.stringify(refusal.text)}`)
  }
  const served = [after[0] - before[0], after[1] - before[1]]
  if (served[0]! < 30 || served[1]! < 30) problems.push(`the balancer did not spread client x over both fronts: front-a ${served[0]}, front-b ${served[1]}`)

  const forgedViaLb = await Promise.all([0, 1].map(() => call(`${dep.api}/callbacks/${player.code}`, { from: x, headers: { 'x-forwarded-for': '203.0.113.7' } })))
  const forgedDirect = await Promise.all(
    (['front-a', 'front-b'] as const).map((f) => call(`${dep.frontApi(f)}/callbacks/${player.code}`, { from: x, headers: { 'x-forwarded-for': '203.0.113.8' } })),
  )
  if (forgedViaLb.some((r) => r.status !== 429)) problems.push(`a forged X-Forwarded-For through the balancer was answered ${forgedViaLb.map((r) => r.status).join(', ')}, expected 429`)
  if (forgedDirect.some((r) => r.status !== 429)) problems.push(`a forged X-Forwarded-For straight at the fronts was answered ${forgedDirect.map((r) => r.status).join(', ')}, expected 429`)
  const other = await call(`${dep.api}/callbacks/${player.code}`, { from: y })
  if (other.status !== 200) problems.push(`client y, which sent nothing before, was answered ${other.status}`)

  // The unknown-code budget: 5 requests of 200 new unknown codes fill it, on both fronts; the next ones are refused.
  const budgetBefore = await callbacksPerFront(dep)
  const budgetAnswers: Reply[] = []
  for (let i = 0; i < UNKNOWN_BUDGET / CODES_PER_REQUEST + 2; i++) {
    budgetAnswers.push(await call(`${dep.api}/callbacks/${unknownCodes(CODES_PER_REQUEST, i * CODES_PER_REQUEST).join('&')}`, { from: z }))
  }
  const budgetAfter = await callbacksPerFront(dep)
  const accepted = budgetAnswers.filter((a) => a.status === 200).length
  const refused = budgetAnswers.slice(UNKNOWN_BUDGET / CODES_PER_REQUEST)
  if (accepted !== UNKNOWN_BUDGET / CODES_PER_REQUEST) problems.push(`${accepted} budget requests were answered 200, expected ${UNKNOWN_BUDGET / CODES_PER_REQUEST}`)
  for (const r of refused) {
    if (r.status !== 429 || !r.text.startsWith(`too many unknown codes: this client asked for more than ${UNKNOWN_BUDGET} distinct codes`)) {
      problems.push(`a request past the unknown-code budget was answered ${r.status} ${JSON.stringify(r.text.slice(0, 80))}`)
    }
  }
  // Codes already counted cost nothing again: the first request's codes are still answered.
  const again = await call(`${dep.api}/callbacks/${unknownCodes(CODES_PER_REQUEST, 0).join('&')}`, { from: z })
  if (again.status !== 200) problems.push(`codes already in the budget were refused on a later request (${again.status})`)
  const budgetServed = [budgetAfter[0] - budgetBefore[0], budgetAfter[1] - budgetBefore[1]]
  if (budgetServed[0]! < 2 || budgetServed[1]! < 2) problems.push(`the budget requests did not reach both fronts: front-a ${budgetServed[0]}, front-b ${budgetServed[1]}`)

  return {
    name: 'limits',
    title,
    figures: [
      { label: `client x: callbacks answered 200 before the first 429`, value: `${ok} (limit ${CALLBACKS_LIMIT} per 10 s), refused at request ${firstRefused + 1}` },
      { label: 'client x: requests served by front-a / front-b', value: `${served[0]} / ${served[1]}` },
      { label: 'client x with a forged X-Forwarded-For: through the balancer / straight at each front', value: `${forgedViaLb.map((r) => r.status).join(', ')} / ${forgedDirect.map((r) => r.status).join(', ')}` },
      { label: 'client y meanwhile', value: String(other.status) },
      { label: `client z: distinct unknown codes accepted before the refusal`, value: `${accepted * CODES_PER_REQUEST} (budget ${UNKNOWN_BUDGET}), then ${refused.map((r) => r.status).join(', ')}` },
      { label: 'client z: requests served by front-a / front-b', value: `${budgetServed[0]} / ${budgetServed[1]}` },
    ],
    problems,
  }
}
