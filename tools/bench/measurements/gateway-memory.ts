/** Gateway memory: the RSS of a real `presence-link gateway` process after its resync, with N members online who all hold codes. */
import { performance } from 'node:perf_hooks'
import { CODE_ALPHABET } from '../../../src/codes/model/codes.js'
import { startProcess, type BenchProcess } from '../../harness/processes.js'
import { rssBytes } from '../../harness/proc-sampler.js'
import { sleep } from '../../harness/readiness.js'
import { createGatewayWorld, post } from './gateway-world.js'

/** Gateway memory at one member count. */
export interface GatewayMemoryResult {
  members: number
  rssBytes: number
  resyncSeconds: number
}

const GAMES = ['Minecraft', 'Fortnite', 'Valorant', 'Terraria', 'Celeste', 'Hades', 'Stardew Valley', 'Among Us']

/** The `i`-th code in base 36 over the code alphabet, so 100,000 members get distinct codes without the code service. */
function codeOf(i: number): string {
  let n = i
  let out = ''
  for (let k = 0; k < 4; k++) {
    out = CODE_ALPHABET[n % 36] + out
    n = Math.floor(n / 36)
  }
  return out
}

/** Measures the gateway's RSS after resync with `members` online members who all hold codes, on a world of its own. */
export async function measureGatewayMemory(members: number): Promise<GatewayMemoryResult> {
  const world = await createGatewayWorld()
  let gateway: BenchProcess | undefined
  try {
    const ids = Array.from({ length: members }, (_, i) => String(910000000000000000n + BigInt(i)))
    for (let i = 0; i < members; i += 5000) {
      const rows = ids.slice(i, i + 5000).map((id, j) => ({ code: codeOf(i + j), chat_user_id: id, state: 'active' as const, paused: false, updated_at: new Date() }))
      await world.scratch.db.insertInto('codes').values(rows).execute()
    }
    for (let i = 0; i < members; i += 10_000) {
      const slice = ids.slice(i, i + 10_000)
      await post(world, 'members/bulk', {
        members: slice.map((id, j) => ({ id, username: `member${i + j}` })),
        presences: slice.map((id, j) => ({
          user_id: id,
          status: 'online',
          activities: [
            { type: 0, name: GAMES[(i + j) % GAMES.length] },
            ...((i + j) % 3 === 0 ? [{ type: 2, name: 'Spotify', details: `Song ${i + j}`, state: 'Some Artist; Another Artist' }] : []),
          ],
        })),
      })
    }
    const started = performance.now()
    gateway = startProcess({ name: 'gateway', script: 'src/gateway.js', env: world.scratch.env })
    const done = JSON.parse(await gateway.waitForLine(/presence resync done/, 300_000)) as { written: number }
    const resyncSeconds = (performance.now() - started) / 1000
    if (done.written !== members) throw new Error(`resync wrote ${done.written} presences, expected ${members}`)
    // Let the resync's garbage go before reading the resident size.
    await sleep(3000)
    return { members, rssBytes: await rssBytes(gateway.pid), resyncSeconds }
  } finally {
    await gateway?.stop()
    await world.remove()
  }
}
