/**
 * The Roblox module (clients/roblox/PresenceLink/) run for real under Luau (luau-web), with stand-ins for the engine's
 * services written for these tests (test/clients/roblox/engine.lua, harness.lua; the requests and streams are made by
 * test/helpers/luau-host.mjs), against the real service with the Discord sandbox. Each scenario prints one JSON line;
 * the assertions are here. Its grammar alone, against the shared vectors: PresenceLink/Blocks.test.ts.
 */
import t from 'tap'
import { INVALIDATED_MESSAGE } from '../../../src/codes/model/codes.js'
import { parseCallbacks, parseRpc } from '../../../src/presence/model/parse-blocks.js'
import { startGatewayStack, type GatewayStack } from '../../helpers/gateway-stack.js'
import { runLuauScenario } from '../../helpers/luau-scenario.js'
import { eventually, getText, startStack } from '../../helpers/stack.js'

// Slow on a busy machine (processes that load the TypeScript sources, or many runs): more than tap's 120 s per file.
t.setTimeout(300_000)


const MESSAGES = {
  bound: 'Linked! Your Discord activity now shows in this game.',
  already_bound: 'This code is already linked to your account.',
  invalid_code: "Codes are 4 letters and digits, like K7QX. Type the code the Discord bot's /code command shows you.",
  not_found: "That code does not exist. Check it with the Discord bot's /code command.",
  rate_limited: 'Too many tries. Wait a minute and try again.',
  unavailable: 'Linking is not available right now. Try again in a minute.',
}

/** Runs one Luau scenario and returns its JSON line. */
const lua = (script: string, env: Record<string, string>) => runLuauScenario(script, env)

/**
 * The harness writes an empty table as `{}` and leaves nil fields out: read the Luau side's JSON in the shape of the
 * expected value (empty arrays, null usernames).
 */
function likeExpected(actual: any, expected: any): any {
  if (Array.isArray(expected)) {
    const list = Array.isArray(actual) ? actual : actual !== null && typeof actual === 'object' && Object.keys(actual).length === 0 ? [] : actual
    return Array.isArray(list) ? list.map((item, i) => likeExpected(item, expected[i])) : list
  }
  if (expected !== null && typeof expected === 'object' && actual !== null && typeof actual === 'object') {
    const out: Record<string, unknown> = { ...actual }
    for (const [key, value] of Object.entries(expected)) {
      out[key] = value === null && !(key in actual) ? null : likeExpected(actual[key], value)
    }
    return out
  }
  return actual
}

t.test('against the real service and the Discord sandbox', async (t) => {
  // One stream per client: the watch test holds it, so the module's own stream is refused (the stream itself is
  // tested in PresenceLink.streams.test.ts).
  const g: GatewayStack = await startGatewayStack(t, { env: { STREAM_MAX_PER_CLIENT: '1' } })
  const api = g.stack.api
  const player = { USERNAME: 'Lua_Player', USER_ID: '4242' }
  const env = { BASE_URL: api, API_KEY: g.stack.apiKey, CONTROL_URL: `${g.sandbox.url}/control` }
  const aliceId = '870000000000000001'
  const code = await g.codeFor(aliceId, 'alice')

  const freeCode = async (): Promise<string> => {
    for (;;) {
      const candidate = Array.from({ length: 4 }, () => 'QWXYZ'[Math.floor(Math.random() * 5)]).join('')
      if ((await g.stack.codes.show(candidate)) === undefined) return candidate
    }
  }

  t.test('bind: typed text normalized, every outcome with a sentence for the player', async (t) => {
    // A code issued before the look-alike rule: it keeps working when typed as it is.
    await g.stack.db.insertInto('codes').values({ code: 'OL1O', chat_user_id: '870000000000000002', state: 'active', paused: false, updated_at: new Date() }).execute()
    const bannedCode = await g.codeFor('870000000000000003', 'banned')
    t.ok((await g.stack.codes.act(bannedCode, 'ban', { source: 'test' })).ok)
    const contested = await g.codeFor('870000000000000005', 'contested')
    const unknown = await freeCode()
    const out = await lua('bind.lua', { ...env, ...player, CODE: code, UNKNOWN_CODE: unknown, OLD_CODE_TYPED: 'o l 1 o', BANNED_CODE: bannedCode, CONTESTED_CODE: contested })

    t.match(out.typedLower, { ok: true, httpStatus: 200, status: 'bound', code, username: 'Lua_Player', message: MESSAGES.bound })
    t.equal((await g.stack.codes.show(code))?.platformUserId, '4242', 'linked to the player id sent by the module')
    t.match(out.again, { ok: true, status: 'already_bound', message: MESSAGES.already_bound })
    t.match(out.notACode, { ok: false, status: 'invalid_code', message: MESSAGES.invalid_code })
    t.equal(out.notACodeSent, 0, 'nothing is sent for text that is no code')
    t.match(out.unknown, { ok: false, httpStatus: 404, status: 'not_found', code: unknown, message: MESSAGES.not_found })
    t.match(out.oldCode, { ok: true, status: 'bound', code: 'OL1O' })
    t.same(out.oldCodeTried, [`${api}/bind`, `${api}/bind`], 'first the mapped 0110 (unknown), then OL1O as typed')
    t.match(out.banned, { ok: false, httpStatus: 403, status: 'banned', message: 'this code is banned; contact support' })
    t.match(out.banned.detail, /^the code is banned \(403\)/)
    t.match(out.contestedFirst, { ok: true, status: 'bound' })
    t.match(out.conflict, { ok: false, httpStatus: 409, status: 'invalidated', message: INVALIDATED_MESSAGE })
    t.match(out.conflict.detail, /^the code is invalidated \(409\): its owner gets a new one in Discord with \/unlink, then \/code: /)
    t.match(out.afterConflict, { ok: false, httpStatus: 409, status: 'invalidated' })
    t.match(out.stringKey, { ok: true, status: 'already_bound', code: 'OL1O' }, 'a plain string key works too')
    t.match(out.badKey, { ok: false, httpStatus: 401, status: 'error', errorCode: 'unauthorized', message: MESSAGES.unavailable })
    t.match(out.badKey.detail, /^the service refused the API key \(401\): check the Secret given to PresenceLink\.new\(\{ apiKey \}\): invalid API key$/)
    t.equal(out.authorizationSeen, `Bearer ${g.stack.apiKey}`, 'the Secret went out only inside the Authorization header')
  })

  t.test('log: queued, sent in batches, stored with the player (the queue itself: PresenceLink.logs.test.ts)', async (t) => {
    const out = await lua('log.lua', { ...env, ...player, CODE: 'OL1O' })
    t.same(out.moderation, { ok: true, queued: true, category: 'moderation' })
    t.same(out.join, { ok: true, queued: true, category: 'ingame' })
    t.match(out.badCategory, { ok: false, queued: false, errorCode: 'unknown_category' })
    t.equal(out.flushed, true)
    t.match(out.stats, { received: 2, sent: 2, batches: 2, queuedTotal: 0, droppedTotal: 0 })
    const entry = await eventually(
      () => g.stack.db.selectFrom('log_entries').selectAll().where('event_type', '=', 'kick').where('code', '=', 'OL1O').executeTakeFirst(),
      10_000,
      'the stored kick',
    )
    t.match(entry, { category: 'moderation', description: 'Exploiting; {speed} "hacks"', platform_username: 'Lua_Player', issued_by: 'ModBob' })
    t.equal(String(entry.platform_user_id), '4242')
  })

  t.test('poll and pollRpc: hostile activity text parses exactly as the TypeScript reference reads it', async (t) => {
    await g.control('POST', 'presence', {
      user_id: aliceId,
      status: 'online',
      activities: [
        { type: 0, name: 'Mine;craft {x} "q"\nnext\u2028line\u0000' },
        { type: 2, name: 'Spotify', details: 'x'.repeat(4000), state: '🎵 The; Weeknd, }' },
        { type: 0, name: 'R o b l o x' },
      ],
    })
    const text = await g.callbacksUntil(code, (body) => body.includes('Listening to Spotify'), 'the hostile presence')
    const unknown = await freeCode()
    const out = await lua('poll.lua', { ...env, PLAYERS: 'Lua_Player:4242', CODES: `${code},${unknown},bad!,${code.toLowerCase()},${code}` })
    const reference = parseCallbacks((await getText(`${api}/callbacks/${code}&${unknown}`)).text)
    t.ok(reference.ok, text)
    if (!reference.ok) return
    t.same(likeExpected(out.callbacks.blocks, reference.blocks), reference.blocks)
    t.same(reference.blocks[0], {
      code,
      marker: ';',
      username: 'Lua_Player',
      activities: [
        { lines: ['Playing', "Mine,craft (x) 'q' next line"] },
        { lines: ['Listening to Spotify', `${'x'.repeat(99)}…`, "🎵 The, Weeknd, )"] },
      ],
    })
    t.same(reference.blocks[1], { code: unknown, marker: ':', username: null, message: 'Code not found' })
    const rpc = parseRpc((await getText(`${api}/rpc/${code}&${unknown}`)).text)
    t.ok(rpc.ok)
    if (rpc.ok) t.same(likeExpected(out.rpc.blocks, rpc.blocks), rpc.blocks)
    t.same(out.many, { count: 250, requests: 2 }, '250 codes go out as two requests of at most 200')
    t.same(out.none, { count: 0, requests: 0 })
  })

  t.test('watch: the service refuses the stream, so it falls back to polling and still delivers a presence change', async (t) => {
    const bobId = '870000000000000004'
    const second = await g.codeFor(bobId, 'bob')
    t.equal((await g.bind(second, 'Bob_R', 4343)).status, 200)
    // This client's one stream is taken: the module's is refused with 429 too_many_streams.
    const holder = new AbortController()
    const held = await fetch(`${api}/stream/${code}`, { signal: holder.signal })
    t.equal(held.status, 200)
    t.teardown(() => holder.abort())
    const out = await lua('watch.lua', { ...env, PLAYERS: 'Lua_Player:4242,Bob_R:4343', CODE: code, SECOND_CODE: second, USER_ID_DISCORD: aliceId })
    holder.abort()
    t.equal(out.first.code, code)
    t.same(likeExpected(out.changed, { activities: [] }).activities, [{ lines: ['Playing', 'Terraria'] }])
    t.equal(out.repeats, 0, 'an unchanged block is not delivered again')
    t.match(out.second, { code: second, marker: ';', username: 'Bob_R' })
    t.equal(out.mode, 'poll')
    t.same(out.streams, [`${api}/stream/${code}`], 'the SSE stream was tried first, once')
    t.match(out.errors[0], { kind: 'stream' })
    t.match(out.errors[0].detail, /^stream error 429/)
    t.equal(out.lastPollUrl, `${api}/callbacks/${second}`, 'after remove, only the remaining code is polled')
  })

  t.test('filtered text: a hostile title never reaches game code unfiltered; cached, bounded, hidden on failure', async (t) => {
    const frickId = '870000000000000006'
    const second = await g.codeFor(frickId, 'frick')
    t.equal((await g.bind(second, 'Frick_Fan', 4545)).status, 200)
    await g.control('POST', 'presence', {
      user_id: aliceId,
      status: 'online',
      activities: [
        { type: 0, name: 'Badword Simulator' },
        { type: 2, name: 'Spotify', details: 'Frick this song', state: 'The Badword Band' },
      ],
    })
    await g.control('POST', 'presence', { user_id: frickId, status: 'online', activities: [{ type: 0, name: 'Factorio' }] })
    await g.callbacksUntil(code, (body) => body.includes('Badword Simulator'), 'the hostile presence')
    await g.callbacksUntil(second, (body) => body.includes('Factorio'), "Frick_Fan's presence")
    const out = await lua('filter.lua', { ...env, PLAYERS: 'Lua_Player:4242,Frick_Fan:4545', CODE: code, SECOND_CODE: second, PLAYER_ID: '4242', SECOND_PLAYER_ID: '4545' })
    const filtered = {
      code,
      marker: ';',
      username: 'Lua_Player',
      activities: [{ lines: ['Playing', '####### Simulator'] }, { lines: ['Listening to Spotify', '##### this song', 'The ####### Band'] }],
    }
    const filteredSecond = { code: second, marker: ';', username: '#####_Fan', activities: [{ lines: ['Playing', 'Factorio'] }] }
    t.notMatch(JSON.stringify(out.watch.seen), /badword|frick/i, 'no censored word reached the display callback')
    t.same(out.watch.seen.find((b: { code: string }) => b.code === code), filtered, 'every activity line filtered')
    t.same(out.watch.seen.find((b: { code: string }) => b.code === second), filteredSecond, 'the username line filtered too')
    t.ok(out.watch.asked.includes('4242:Badword Simulator') && out.watch.asked.includes('4242:Frick this song'), "alice's text filtered from her Roblox user id")
    t.ok(out.watch.asked.includes('4545:Frick_Fan'), "the second player's name filtered from theirs")
    t.same(out.watch.asked.filter((a: string) => !a.startsWith('4242:') && !a.startsWith('4545:')), [], 'from no other user')
    t.equal(out.counts.askedFromPlayer + out.counts.askedFromSecond, out.watch.asked.length)
    t.equal(out.watch.maxInFlight, 2, 'at most filterConcurrency (2) filter calls at once, and both used')
    t.same(out.watch.errors, [])
    t.same(out.poll.blocks, [filtered, filteredSecond], 'poll gives the same filtered blocks')
    t.same(out.poll.rpc, [{ code, activities: filtered.activities }], 'pollRpc too, from the player learnt by code')
    t.equal(out.poll.calls, 0, 'every text was cached: nothing asked again')
    t.equal(out.smallCache.first, 6, 'six texts in the block (the username and five lines)')
    t.ok(out.smallCache.second > 0, 'a cache of two texts asks again')
    for (const mode of ['filter', 'result']) {
      const fails = out[`${mode}Fails`]
      const hidden = { code, marker: ';', username: '(hidden)', hidden: true, activities: [{ lines: ['(hidden)', '(hidden)'] }, { lines: ['(hidden)', '(hidden)', '(hidden)'] }] }
      t.same(fails.hidden, [hidden], `${mode} failing: every text hidden, never raw`)
      t.equal(fails.callsAfterFailure, 1, `${mode} failing: one call failed, the others did not ask`)
      t.same(fails.paused, [hidden], `${mode} failing: still hidden during the pause`)
      t.equal(fails.callsWhilePaused, 0, `${mode} failing: nothing asked during the pause`)
      t.same(fails.recovered, [filtered], `${mode} failing: filtered text again after the pause`)
    }
    t.same(out.notInServer.block, { code: second, marker: ';', username: '(hidden)', hidden: true, activities: [{ lines: ['(hidden)', '(hidden)'] }] })
    t.equal(out.notInServer.asked, 0, 'a player not in the server: nothing asked (FilterStringAsync would throw)')
    t.equal(out.notInServer.deliveries, 1)
    t.equal(out.notInServer.errors.length, 1, 'said once')
    t.match(out.notInServer.errors[0], { kind: 'filter', code: second, reason: 'not_in_server' })
    t.match(out.raw.blocks[0].activities, [{ lines: ['Playing', 'Badword Simulator'] }], 'rawText: the text as the service sent it')
    t.equal(out.raw.calls, 0)
  })

  t.test('live server without push: watch never opens a stream, and polls', async (t) => {
    const out = await lua('live.lua', { ...env, PLAYERS: 'Lua_Player:4242', STREAM: 'sse', CODE: code, USER_ID_DISCORD: aliceId })
    t.same(out.streams, [], 'no stream tried in a live server, although one is configured and the engine offers it')
    t.equal(out.mode, 'poll')
    t.same(out.last.activities, [{ lines: ['Playing', 'Stardew Valley'] }], 'the change arrived by polling')
    t.match(out.errors[0], { kind: 'push' }, 'why push is not used is said')
    const ws = await lua('live.lua', { ...env, PLAYERS: 'Lua_Player:4242', STREAM: 'websocket', CODE: code, USER_ID_DISCORD: aliceId })
    t.same(ws.streams, [], 'nor a WebSocket')
  })
})

t.test('pacing and unavailability against a service with tight limits and no worker', async (t) => {
  const stack = await startStack(t, { consumers: [], env: { RATE_LIMITS: 'callbacks=3/10', BIND_TIMEOUT_MS: '300' } })
  const env = { BASE_URL: stack.api, API_KEY: stack.apiKey }

  t.test('RateLimit-Remaining and Retry-After hold a route; the per-minute budget waits; nothing is sent past maxWait', async (t) => {
    const out = await lua('pacing.lua', env)
    t.same(out.a.slice(0, 3).map((r: { ok: boolean }) => r.ok), [true, true, true])
    t.match(out.a[3], { ok: false, err: { httpStatus: 429, status: 'rate_limited', errorCode: 'rate_limited', message: MESSAGES.rate_limited } })
    t.match(out.a[3].err.detail, /^held back by PresenceLink's governor for \d+ s/)
    t.equal(out.aSent, 3, 'RateLimit-Remaining: 0 kept the fourth poll from being sent')
    t.match(out.b.first, { httpStatus: 429, errorCode: 'rate_limited' })
    t.match(out.b.first.detail, /^rate limited \(429\): nothing was lost; retry after retryAfter seconds: rate limit exceeded: 3 requests per 10 seconds per IP/)
    t.ok(out.b.first.retryAfter >= 1 && out.b.first.retryAfter <= 10, 'Retry-After read')
    t.match(out.b.second.detail, /^held back by PresenceLink's governor/)
    t.equal(out.b.sent, 1, 'after a 429 the next poll waits for Retry-After instead of being sent')
    t.equal(out.c.sent, 2)
    t.same(out.c.slept.length, 1)
    t.ok(out.c.slept[0] >= 1 && out.c.slept[0] <= 10, 'with time to wait, it waited Retry-After seconds, then sent')
    t.same(out.d, { slept: [60], sent: 3 }, 'at 2 requests per minute the third waits for the window')
    t.match(out.e, { sent: 2, refused: { status: 'rate_limited', retryAfter: 60 } })
  })

  t.test('503: a bind the service cannot finish says to retry later', async (t) => {
    const out = await lua('unavailable.lua', { ...env, CODE: 'K7QX' })
    t.match(out.bind, { ok: false, httpStatus: 503, status: 'error', errorCode: 'bind_timeout', retryAfter: 2, message: MESSAGES.unavailable })
    t.match(out.bind.detail, /^the service is busy or restarting \(503\): retry after retryAfter seconds: /)
  })
})
