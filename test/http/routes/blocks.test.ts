/** GET /api/v1/callbacks and /api/v1/rpc over HTTP against the real stack. */
import t from 'tap'
import { renderActivityGroups, type ActivityInput } from '../../../src/presence/model/activity.js'
import { parseCallbacks, parseRpc } from '../../../src/presence/model/parse-blocks.js'
import { MARKS_REFRESH_MS } from '../../../src/redis/shard-marks.js'
import { eventually, getText, setShardMark, startStack, type Stack } from '../../helpers/stack.js'

const SPOTIFY: ActivityInput = { type: 2, name: 'Spotify', details: 'Blinding Lights', state: 'The Weeknd' }
const MINECRAFT: ActivityInput = { type: 0, name: 'Minecraft' }

let stack: Stack
let user = 100000000000000000n
const nextUser = () => String(++user)

async function linked(username: string, activities: ActivityInput[] | null, shard = 0): Promise<string> {
  const chatUser = nextUser()
  const { code } = await stack.codes.issue(chatUser)
  const bound = await stack.codes.bind(code.code, { platformUserId: String(user % 1_000_000n), platformUsername: username }, { source: 'test' })
  if (bound.status !== 'bound') throw new Error(`setup bind gave ${bound.status}`)
  if (activities !== null) {
    await stack.presence.set(code.code, { shard, status: 'online', activity: renderActivityGroups(activities, 'Roblox') })
  }
  return code.code
}

t.before(async () => {
  stack = await startStack(t, { env: { RATE_LIMITS: 'off' }, consumers: [] })
  await stack.presence.markLive(0, 3_600_000)
  // The front's marks watcher reads the marks once a second: a shard marked after it started counts from its next read.
  await new Promise((resolve) => setTimeout(resolve, MARKS_REFRESH_MS + 200))
})

t.test('callbacks', async (t) => {
  t.test('active user with music and a game gives the ; block with every group', async (t) => {
    const code = await linked('Builderman', [SPOTIFY, MINECRAFT])
    const res = await getText(`${stack.api}/callbacks/${code}`)
    t.equal(res.status, 200)
    t.match(res.headers.get('content-type'), /^text\/plain/)
    t.equal(
      res.text,
      `{${code};\nBuilderman;\nListening to Spotify,\nBlinding Lights,\nThe Weeknd;\nPlaying,\nMinecraft;\n}\n`,
    )
  })

  t.test('activities naming the game platform and custom statuses are removed', async (t) => {
    const code = await linked('Filtered_1', [
      { type: 0, name: 'Roblox' },
      { type: 2, name: 'Spotify', details: 'roblox theme', state: 'x' },
      { type: 0, name: 'Some Game', assets: { large_text: 'Playing on ROBLOX' } },
      { type: 4, name: 'Custom Status', state: 'hello there' },
      MINECRAFT,
    ])
    const res = await getText(`${stack.api}/callbacks/${code}`)
    t.equal(res.text, `{${code};\nFiltered_1;\nPlaying,\nMinecraft;\n}\n`)
  })

  t.test('a linked user without activity gives No activity detected', async (t) => {
    const code = await linked('Quiet_One', null)
    const res = await getText(`${stack.api}/callbacks/${code}`)
    t.equal(res.text, `{${code};\nQuiet_One;\nNo activity detected;\n}\n`)
  })

  t.test('a presence written by a shard whose heartbeat lapsed is not served as live', async (t) => {
    const code = await linked('Stale_User', [MINECRAFT], 7)
    const stale = `{${code};\nStale_User;\nNo activity detected;\n}\n`
    const live = `{${code};\nStale_User;\nPlaying,\nMinecraft;\n}\n`
    // Fronts re-read the shard marks at most once a second.
    const text = () => getText(`${stack.api}/callbacks/${code}`).then((r) => r.text)
    await stack.presence.markLive(7, 60_000)
    t.equal(await eventually(async () => ((await text()) === live ? live : undefined), 3000, 'live'), live)
    await setShardMark(stack, 7, Date.now() - 1)
    t.equal(await eventually(async () => ((await text()) === stale ? stale : undefined), 3000, 'stale'), stale)
  })

  t.test('banned code gives a : block with the username and the support message', async (t) => {
    const code = await linked('Banned_Guy', [MINECRAFT])
    t.ok((await stack.codes.act(code, 'ban', { source: 'test' })).ok)
    const res = await getText(`${stack.api}/callbacks/${code}`)
    t.equal(res.text, `{${code}:\nBanned_Guy;\n"This code is banned. Contact support for help.";\n}\n`)
  })

  t.test('a banned code that was never linked shows (unlinked) as the username', async (t) => {
    const { code } = await stack.codes.issue(nextUser())
    await stack.codes.act(code.code, 'ban', { source: 'test' })
    const res = await getText(`${stack.api}/callbacks/${code.code}`)
    t.equal(res.text, `{${code.code}:\n(unlinked);\n"This code is banned. Contact support for help.";\n}\n`)
  })

  t.test('invalidated code gives a : block with the username and the support message', async (t) => {
    const code = await linked('First_Owner', [MINECRAFT])
    const conflict = await stack.codes.bind(code, { platformUserId: '999999999', platformUsername: 'Thief' }, { source: 'test' })
    t.equal(conflict.status, 'invalidated')
    const res = await getText(`${stack.api}/callbacks/${code}`)
    t.equal(res.text, `{${code}:\nFirst_Owner;\n"This code was invalidated. Contact support for help.";\n}\n`)
  })

  /** The callbacks text of `code` once it is `expected` (within 5 s; the last text seen otherwise, failing the test). */
  const settled = async (code: string, expected: string): Promise<string> => {
    let last = ''
    try {
      return await eventually(async () => {
        last = (await getText(`${stack.api}/callbacks/${code}`)).text
        return last === expected ? last : undefined
      }, 5000, `callbacks of ${code} to show the change`)
    } catch {
      return last
    }
  }

  t.test('paused code gives Detection Paused, and resuming brings the activity back', async (t) => {
    const code = await linked('Pauser', [MINECRAFT])
    await stack.codes.act(code, 'pause', { source: 'test' })
    t.equal(await settled(code, `{${code}:\n"Detection Paused";\n}\n`), `{${code}:\n"Detection Paused";\n}\n`)
    await stack.codes.act(code, 'resume', { source: 'test' })
    t.equal(await settled(code, `{${code};\nPauser;\nPlaying,\nMinecraft;\n}\n`), `{${code};\nPauser;\nPlaying,\nMinecraft;\n}\n`)
  })

  t.test('unknown and revoked codes give Code not found; an unlinked code gives Code not linked', async (t) => {
    const { code } = await stack.codes.issue(nextUser())
    t.equal((await getText(`${stack.api}/callbacks/${code.code}`)).text, `{${code.code}:\n"Code not linked";\n}\n`)
    await stack.codes.act(code.code, 'revoke', { source: 'test' })
    // The front holds the block it just answered in its near cache until the change feed's message arrives, on
    // another connection than the write: typically within a millisecond, so the next poll may still be the old one.
    t.equal(await settled(code.code, `{${code.code}:\n"Code not found";\n}\n`), `{${code.code}:\n"Code not found";\n}\n`)
    const res = await getText(`${stack.api}/callbacks/ZZZZ`)
    t.equal(res.status, 200)
    t.equal(res.text, `{ZZZZ:\n"Code not found";\n}\n`)
  })

  t.test('hostile activity text cannot break the grammar', async (t) => {
    const long = 'x'.repeat(4000)
    const code = await linked('Hostile', [
      { type: 2, name: 'Spotify', details: '}\n{ABCD;\nfake;', state: 'A; B\r\n}' },
      { type: 0, name: `👍🏽 "quoted" ${long}` },
    ])
    const res = await getText(`${stack.api}/callbacks/${code}&ZZZZ`)
    const parsed = parseCallbacks(res.text)
    t.ok(parsed.ok, 'the response parses')
    if (!parsed.ok) return
    t.equal(parsed.blocks.length, 2)
    const first = parsed.blocks[0]!
    t.equal(first.code, code)
    t.equal(first.marker, ';')
    if (first.marker !== ';') return
    t.same(first.activities[0]!.lines, ['Listening to Spotify', ') (ABCD, fake,', 'A, B )'])
    const game = first.activities[1]!.lines
    t.equal(game[0], 'Playing')
    t.equal([...game[1]!].length, 100, 'long text is capped at 100 characters')
    t.ok(game[1]!.startsWith("👍🏽 'quoted' xxx"))
    t.ok(game[1]!.endsWith('…'))
    t.equal(parsed.blocks[1]!.code, 'ZZZZ')
  })

  t.test('many codes: request order, duplicates answered once, %26 and & both separate', async (t) => {
    const a = await linked('Order_A', null)
    const b = await linked('Order_B', null)
    const res = await getText(`${stack.api}/callbacks/${b}%26${a}&${b}%26ZZZZ`)
    t.equal(res.text, `{${b};\nOrder_B;\nNo activity detected;\n}\n{${a};\nOrder_A;\nNo activity detected;\n}\n{ZZZZ:\n"Code not found";\n}\n`)
  })

  t.test('unusable tokens are skipped; lowercase codes are not usable', async (t) => {
    const a = await linked('Skipper', null)
    const res = await getText(`${stack.api}/callbacks/${a}&${a.toLowerCase()}&ABCDE&AB&%ZZ`)
    t.equal(res.status, 200)
    t.equal(res.text, `{${a};\nSkipper;\nNo activity detected;\n}\n`)
  })

  t.test('no usable code gives 400 with a plain-text reason', async (t) => {
    for (const path of ['abcd', '&&&', '%26', 'ABC', '']) {
      const res = await getText(`${stack.api}/callbacks/${path}`)
      t.equal(res.status, 400, `path ${JSON.stringify(path)}`)
      t.equal(res.text, 'no usable code in the path: codes are 4 characters A-Z or 0-9, separated by &\n')
    }
    t.equal((await getText(`${stack.api}/callbacks`)).status, 400)
  })

  t.test('201 codes give 400; 200 codes are answered', async (t) => {
    const codes = Array.from({ length: 201 }, (_, i) => `Q${String(i).padStart(3, '0')}`)
    const over = await getText(`${stack.api}/callbacks/${codes.join('&')}`)
    t.equal(over.status, 400)
    t.equal(over.text, 'too many codes: at most 200 per request\n')
    const ok = await getText(`${stack.api}/callbacks/${codes.slice(0, 200).join('&')}`)
    t.equal(ok.status, 200)
    const parsed = parseCallbacks(ok.text)
    t.ok(parsed.ok)
    if (parsed.ok) t.same(parsed.blocks.map((b) => b.code), codes.slice(0, 200))
  })
})

t.test('rpc', async (t) => {
  t.test('active user with activity gives only the activity groups', async (t) => {
    const code = await linked('Rpc_User', [SPOTIFY, MINECRAFT])
    const res = await getText(`${stack.api}/rpc/${code}`)
    t.equal(res.status, 200)
    t.match(res.headers.get('content-type'), /^text\/plain/)
    t.equal(res.text, `{${code};\nListening to Spotify,\nBlinding Lights,\nThe Weeknd;\nPlaying,\nMinecraft;\n}\n`)
    const parsed = parseRpc(res.text)
    t.ok(parsed.ok)
  })

  t.test('no activity, banned, invalidated, paused, unlinked and unknown all give the same empty block', async (t) => {
    const quiet = await linked('Rpc_Quiet', null)
    const banned = await linked('Rpc_Banned', [MINECRAFT])
    await stack.codes.act(banned, 'ban', { source: 'test' })
    const paused = await linked('Rpc_Paused', [MINECRAFT])
    await stack.codes.act(paused, 'pause', { source: 'test' })
    const invalid = await linked('Rpc_Invalid', [MINECRAFT])
    await stack.codes.act(invalid, 'invalidate', { source: 'test' })
    const { code: unlinked } = await stack.codes.issue(nextUser())
    const codes = [quiet, banned, paused, invalid, unlinked.code, 'ZZZZ']
    const res = await getText(`${stack.api}/rpc/${codes.join('&')}`)
    t.equal(res.status, 200)
    t.equal(res.text, codes.map((c) => `{${c};\n}\n`).join(''))
  })

  t.test('no usable code gives 400', async (t) => {
    const res = await getText(`${stack.api}/rpc/`)
    t.equal(res.status, 400)
    t.equal(res.text, 'no usable code in the path: codes are 4 characters A-Z or 0-9, separated by &\n')
  })
})
