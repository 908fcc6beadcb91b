/** Seed data for `npm run bench`: linked users made through the real code paths, with realistic rendered presences. */
import { renderActivityGroups, type ActivityInput } from '../../../src/presence/model/activity.js'
import type { PresenceEntry } from '../../../src/presence/model/presence-entry.js'
import { postJson } from '../../harness/http.js'
import type { BenchEnv } from './bench-env.js'

const SONGS: ReadonlyArray<readonly [string, string]> = [
  ['Blinding Lights', 'The Weeknd'],
  ['Levitating', 'Dua Lipa'],
  ['Bohemian Rhapsody', 'Queen'],
  ['Señorita', 'Shawn Mendes; Camila Cabello'],
  ['Anti-Hero', 'Taylor Swift'],
  ['HUMBLE.', 'Kendrick Lamar'],
  ['Stay', 'The Kid LAROI, Justin Bieber'],
  ['Flowers 🌸', 'Miley Cyrus'],
]
const GAMES = ['Minecraft', 'Fortnite', 'Valorant', 'Rocket League', 'Among Us', 'Genshin Impact', 'Terraria', 'Stardew Valley']

/** A realistic mix for user `i`: music and a game, a game alone, video, one naming the game platform (filtered), or offline. */
export function activitiesOf(i: number): ActivityInput[] | null {
  const [title, artist] = SONGS[i % SONGS.length]!
  const spotify: ActivityInput = { type: 2, name: 'Spotify', details: title, state: artist, assets: { large_text: `${title} (Deluxe)` } }
  const game: ActivityInput = { type: 0, name: GAMES[i % GAMES.length]!, details: 'Ranked match', state: 'In a party (3 of 5)' }
  switch (i % 10) {
    case 0:
    case 1:
    case 2:
    case 3:
      return [spotify, game]
    case 4:
    case 5:
    case 6:
      return [game, { type: 4, name: 'Custom Status', state: 'grinding 🎮' }]
    case 7:
      return [{ type: 3, name: 'YouTube', details: 'lofi hip hop radio 📚 beats to relax/study to', state: 'Lofi Girl' }]
    case 8:
      return [{ type: 0, name: 'Roblox', details: 'Adopt Me!' }, spotify]
    default:
      return null
  }
}

/** A presence entry for user `i` on shard 0 with its activities rendered as the gateway would. */
export function presenceOf(i: number, status: PresenceEntry['status'], gamePlatformName: string): PresenceEntry {
  return { shard: 0, status, activity: renderActivityGroups(activitiesOf(i) ?? [], gamePlatformName) }
}

/** Issues codes with the code service, binds them through the API (the worker does the bind), writes presences. */
export async function seedLinkedUsers(env: BenchEnv, count: number): Promise<string[]> {
  const codes: string[] = []
  const entries: Array<[string, PresenceEntry]> = []
  for (let i = 0; i < count; i++) {
    const chatUser = String(200_000_000_000_000_000n + BigInt(i))
    const { code } = await env.codes.issue(chatUser)
    const res = await postJson(`${env.scratch.api}/bind`, { code: code.code, platform_username: `Player_${i}`, platform_user_id: 10_000 + i }, env.bearer)
    if ((res.body as { status?: string }).status !== 'bound') throw new Error(`seed bind of ${code.code} gave ${res.status} ${JSON.stringify(res.body)}`)
    codes.push(code.code)
    if (activitiesOf(i) !== null) entries.push([code.code, presenceOf(i, i % 3 === 0 ? 'idle' : 'online', env.scratch.config.gamePlatformName)])
  }
  await env.presence.setMany(entries)
  await env.presence.markLive(0, 3_600_000)
  return codes
}
