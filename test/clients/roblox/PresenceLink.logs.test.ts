/**
 * The Roblox module's log queue (clients/roblox/PresenceLink.lua, its Logs section) run by lua5.1 against the real
 * service, whose log limits run with their minute shortened to WINDOW seconds (RATE_LIMITS log=30/4,log_events=3000/4,
 * and the module's windowSeconds = 4), so that minutes of pacing take seconds. Each scenario logs from a game server
 * address of its own (127.0.0.x), so each has rate limits of its own. What counts is what reached MySQL: every event
 * the module says it sent is stored exactly once, every other one is counted as dropped, for a reason.
 *   a burst of 5,000 events: the default queue keeps 2,000 and drops the rest; a queue of 5,000 sends them all,
 *     paced inside both limits (no 429);
 *   a full queue drops ingame first, server next, moderation never for another;
 *   game:BindToClose sends what is queued, moderation first; an unreachable service at close: dropped (shutdown);
 *   invalid events: refused at once when the module can tell, else dropped and reported after the service's 422
 *     while the rest of the batch is stored; a refused key (401) keeps the events.
 * Failures (a 429 storm, no answer, a lost answer, Redis down) are in PresenceLink.log-faults.test.ts.
 */
import t, { type Test } from 'tap'
import { runLuaScenario } from '../../helpers/lua-scenario.js'
import { storedEntries, storedTwice, type LogRequest } from '../../helpers/roblox-logs.js'
import { startStack } from '../../helpers/stack.js'

const WINDOW = 4

/** The most requests and events in any stretch of `seconds`. */
function busiest(requests: LogRequest[], seconds: number): { requests: number; events: number } {
  let most = { requests: 0, events: 0 }
  for (const first of requests) {
    const inside = requests.filter((r) => r.at >= first.at && r.at < first.at + seconds)
    most = { requests: Math.max(most.requests, inside.length), events: Math.max(most.events, inside.reduce((n, r) => n + r.events, 0)) }
  }
  return most
}

/** The categories in the order they were sent, each run of the same category once. */
function runs(requests: LogRequest[]): string[] {
  return requests.map((r) => r.category).filter((c, i, all) => i === 0 || all[i - 1] !== c)
}

/** received = sent + dropped + queued, and the dropped by reason and by category add up. */
function checkArithmetic(t: Test, stats: any, what: string): void {
  const byReason = Object.values(stats.dropped as Record<string, number>).reduce((a, b) => a + b, 0)
  const byCategory = Object.values(stats.droppedByCategory as Record<string, number>).reduce((a, b) => a + b, 0)
  const queued = Object.values(stats.queued as Record<string, number>).reduce((a, b) => a + b, 0)
  t.equal(stats.droppedTotal, byReason, `${what}: dropped by reason add up`)
  t.equal(byCategory, byReason, `${what}: dropped by category add up`)
  t.equal(stats.queuedTotal, queued, `${what}: queued by category add up`)
  t.equal(stats.received, stats.sent + stats.droppedTotal + stats.queuedTotal, `${what}: received = sent + dropped + queued`)
}

// The pacing under test waits by design (windows of WINDOW seconds): room for a machine at half speed.
t.setTimeout(240_000)

t.test('the log queue against the real service', async (t) => {
  const stack = await startStack(t, { env: { RATE_LIMITS: `log=30/${WINDOW},log_events=3000/${WINDOW}` } })
  const env = { BASE_URL: stack.api, API_KEY: stack.apiKey, WINDOW: String(WINDOW) }

  t.test('a burst of 5,000 events from one server', async (t) => {
    const out = await runLuaScenario('logs-burst.lua', { ...env, TAG: 'burst' }, 200_000)

    const small = out.small
    t.same(small.calls, { queued: 2000, dropped: 3000, firstDropped: 2001, dropCodes: { queue_full: 3000 } }, 'the default queue took 2,000, then refused each new event, counted')
    t.match(small.stats, { received: 5000, sent: 2000, batches: 20, queuedTotal: 0, retries: 0, rateLimited: 0, droppedTotal: 3000 })
    t.same(small.stats.dropped, { queue_full: 3000, invalid: 0, refused: 0, shutdown: 0 })
    t.same(small.stats.droppedByCategory, { ingame: 3000, server: 0, moderation: 0 })
    checkArithmetic(t, small.stats, 'small')
    const smallRequests: LogRequest[] = small.requests
    t.same(smallRequests.map((r) => [r.events, r.status]), Array.from({ length: 20 }, () => [100, 200]), '20 batches of 100, each answered 200')
    const smallRows = await storedEntries(stack, 'burst small ')
    t.equal(smallRows.length, 2000)
    t.same(storedTwice(smallRows), [], 'none stored twice')
    t.same(new Set(smallRows.map((r) => r.description)), new Set(Array.from({ length: 2000 }, (_, i) => `burst small ${i + 1}`)), 'the first 2,000, in full')

    const big = out.big
    t.same(big.calls, { queued: 5000, dropped: 0, dropCodes: {} }, 'a queue of 5,000 took them all')
    t.match(big.stats, { received: 5000, sent: 5000, queuedTotal: 0, droppedTotal: 0, retries: 0, rateLimited: 0 }, 'no 429: the pacing stayed inside both limits')
    checkArithmetic(t, big.stats, 'big')
    const bigRequests: LogRequest[] = big.requests
    t.ok(bigRequests.every((r) => r.status === 200 && r.events >= 1 && r.events <= 100), 'each batch 1-100 events, answered 200')
    t.equal(bigRequests.reduce((n, r) => n + r.events, 0), 5000)
    t.equal(new Set(bigRequests.map((r) => r.key)).size, bigRequests.length, 'each batch its own Idempotency-Key')
    const most = busiest(bigRequests, WINDOW)
    t.ok(most.requests <= 28, `at most 28 requests in any ${WINDOW} s (the service allows 30): ${most.requests}`)
    t.ok(most.events <= 2800, `at most 2,800 events in any ${WINDOW} s (the service allows 3,000): ${most.events}`)
    t.ok(bigRequests.at(-1)!.at - bigRequests[0]!.at >= WINDOW, '50 batches did not go at once: they were spread over more than a window')
    const bigRows = await storedEntries(stack, 'burst big ')
    t.equal(bigRows.length, 5000)
    t.same(storedTwice(bigRows), [], 'each of the 5,000 stored exactly once')
    const categories = ['ingame', 'server', 'moderation']
    t.ok(bigRows.every((r) => r.category === categories[Number(r.description.split(' ')[2]) % 3]), 'each in its category')
  })

  t.test('a full queue drops ingame first, then server, moderation never for another', async (t) => {
    const out = await runLuaScenario('logs-drops.lua', { ...env, TAG: 'drops' })
    const refused = out.calls.filter((c: { queued: boolean }) => !c.queued)
    t.same(refused, [
      { category: 'server', n: 6, queued: false, errorCode: 'queue_full', status: 'dropped' },
      { category: 'server', n: 7, queued: false, errorCode: 'queue_full', status: 'dropped' },
      { category: 'ingame', n: 7, queued: false, errorCode: 'queue_full', status: 'dropped' },
    ], 'an event that found only its own category or higher ones was refused; every other call said queued')
    t.match(out.before, { received: 21, sent: 0, queuedTotal: 10, queued: { ingame: 0, server: 3, moderation: 7 }, droppedTotal: 11 })
    t.same(out.before.droppedByCategory, { ingame: 7, server: 4, moderation: 0 })
    t.same(out.before.dropped, { queue_full: 11, invalid: 0, refused: 0, shutdown: 0 })
    checkArithmetic(t, out.before, 'before the flush')
    t.equal(out.flushed, true)
    t.match(out.after, { received: 21, sent: 10, queuedTotal: 0, droppedTotal: 11 })
    checkArithmetic(t, out.after, 'after the flush')
    const rows = await storedEntries(stack, 'drops ')
    t.same(rows.map((r) => r.description).sort(), ['drops moderation 1', 'drops moderation 2', 'drops moderation 3', 'drops moderation 4', 'drops moderation 5', 'drops moderation 6', 'drops moderation 7', 'drops server 1', 'drops server 2', 'drops server 3'], 'the oldest server events and every moderation event were kept; no ingame one')
  })

  t.test('game:BindToClose sends what is queued, moderation first', async (t) => {
    const out = await runLuaScenario('logs-close.lua', { ...env, TAG: 'close' })
    t.equal(out.bound, 1, 'PresenceLink.new bound one function to close')
    t.equal(out.sentBefore, 0, 'nothing had been sent before the close')
    t.match(out.close, { finished: true })
    const requests: LogRequest[] = out.requests
    t.same(runs(requests), ['moderation', 'server', 'ingame'], 'moderation first, then server, then ingame')
    t.ok(requests.every((r) => r.status === 200), 'each batch answered 200')
    t.equal(requests.reduce((n, r) => n + r.events, 0), 185, 'the 180 queued and the 5 logged while closing')
    t.match(out.stats, { received: 185, sent: 185, queuedTotal: 0, droppedTotal: 0, closed: true })
    checkArithmetic(t, out.stats, 'close')
    t.match(out.afterClose, { ok: false, queued: false, errorCode: 'closed' }, 'after the close, log() queues nothing')
    const rows = await storedEntries(stack, 'close open ')
    t.equal(rows.length, 185)
    t.same(storedTwice(rows), [])
    t.equal(rows.filter((r) => r.description.startsWith('close open leaving ')).length, 5, 'the events logged while closing were sent too')

    const down = out.down
    t.match(down.close, { finished: true }, 'with the service unreachable the close still ended (logCloseSeconds = 2), within the 30 s Roblox gives')
    t.match(down.stats, { received: 6, sent: 0, queuedTotal: 0, droppedTotal: 6, closed: true })
    t.same(down.stats.dropped, { queue_full: 0, invalid: 0, refused: 0, shutdown: 6 }, 'what could not be sent is counted as dropped at shutdown')
    t.same(down.stats.droppedByCategory, { ingame: 3, server: 2, moderation: 1 })
    checkArithmetic(t, down.stats, 'unreachable at close')
    const tries: LogRequest[] = down.requests
    t.ok(tries.length >= 2 && tries.every((r) => r.refused), 'it kept trying until the time was up')
    t.equal(tries[0]!.category, 'moderation', 'moderation first')
    t.same(new Set(tries.filter((r) => r.category === 'moderation').map((r) => r.key)).size, 1, 'each try of the batch under the same key')
  })

  t.test('invalid events: refused at once, or dropped and reported while the rest is stored', async (t) => {
    const { code } = await stack.codes.issue('330000000000000001')
    t.equal((await stack.codes.bind(code.code, { platformUserId: '4242', platformUsername: 'Lua_Player' }, { source: 'test' })).status, 'bound')
    const out = await runLuaScenario('logs-invalid.lua', { ...env, TAG: 'invalid', CODE: code.code })

    t.match(out.refusedAtOnce.unknownCategory, { ok: false, queued: false, errorCode: 'unknown_category' })
    t.match(out.refusedAtOnce.unknownCategory.detail, /^unknown log category "chat": use server, ingame or moderation/)
    t.match(out.refusedAtOnce.notATable, { ok: false, queued: false, errorCode: 'invalid_event' })
    t.match(out.refusedAtOnce.notJson, { ok: false, queued: false, errorCode: 'invalid_event' })
    t.match(out.refusedAtOnce.notFinite, { ok: false, queued: false, errorCode: 'invalid_event' }, 'an infinite number would make the whole batch unreadable')
    t.match(out.refusedAtOnce.tooLarge, { ok: false, queued: false, errorCode: 'event_too_large' })
    t.match(out.statsAtOnce, { received: 0, queuedTotal: 0, droppedTotal: 0 }, 'nothing queued, nothing counted')
    t.same(out.queued, [true, true, true, true, true, true, true, true], 'the module queues what it cannot judge')
    t.equal(out.flushed, true)

    const requests: LogRequest[] = out.requests
    t.equal(requests.length, 2)
    t.match(requests[0], { category: 'moderation', events: 8, status: 422 })
    t.match(requests[1], { category: 'moderation', events: 4, status: 200 })
    t.same(requests[1]!.descriptions, ['invalid valid 1', 'invalid valid 2', 'invalid valid 3', 'invalid valid 4'], 'the rest of the batch went again')
    t.not(requests[1]!.key, requests[0]!.key, 'under a new key: the batch changed')

    const reports = out.reports as Array<{ reason: string; category: string; event: any; issues: Array<{ field: string }>; error: any }>
    t.ok(reports.every((r) => r.reason === 'invalid' && r.category === 'moderation' && r.issues.length > 0), 'each reported with the service\'s issues')
    t.ok(reports.every((r) => r.error.httpStatus === 422 && r.error.errorCode === 'invalid_events'))
    t.same(reports.map((r) => r.event.description ?? null).sort(), [null, null, 'invalid bad code', 'invalid valid? no: event_type'].sort(), 'the four invalid events, as they were sent')
    t.ok(reports.some((r) => r.issues.some((i) => i.field === 'description')), 'the missing description named')
    t.match(out.stats, { received: 8, sent: 4, queuedTotal: 0, droppedTotal: 4, lastError: { httpStatus: 422, errorCode: 'invalid_events', kind: 'log', category: 'moderation' } })
    t.same(out.stats.dropped, { queue_full: 0, invalid: 4, refused: 0, shutdown: 0 })
    checkArithmetic(t, out.stats, 'invalid')

    const rows = await storedEntries(stack, 'invalid ')
    t.same(rows.map((r) => r.description).sort(), ['invalid valid 1', 'invalid valid 2', 'invalid valid 3', 'invalid valid 4'], 'the valid events stored, the invalid ones not')
    t.match(rows.find((r) => r.description === 'invalid valid 1'), { category: 'moderation', event_type: 'kick', code: code.code, platform_username: 'Lua_Player', issued_by: 'ModBob' })
    t.equal(String(rows.find((r) => r.description === 'invalid valid 1')!.platform_user_id), '4242', 'the player gave both platform fields')

    t.equal(out.badKey.flushed, false, 'a refused key: nothing sent')
    t.match(out.badKey.stats, { received: 1, sent: 0, queuedTotal: 1, droppedTotal: 0, lastError: { httpStatus: 401, errorCode: 'unauthorized' } }, 'the event is kept (the key may be fixed), not dropped')
    t.equal(out.badKey.closed, false)
    t.match(out.badKey.afterClose, { received: 1, sent: 0, queuedTotal: 0, droppedTotal: 1, dropped: { shutdown: 1 }, closed: true }, 'at close it is counted as dropped')
  })
})
