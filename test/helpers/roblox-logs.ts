/**
 * What the Roblox module's log-queue tests (test/clients/roblox/PresenceLink.log*.test.ts) read: the log requests the
 * Lua harness recorded, and the rows the service stored.
 */
import { randomUUID } from 'node:crypto'
import { eventually, postJson, type Stack } from './stack.js'

/** A request the module made to the log route, as test/clients/roblox/harness.lua (logRequests) records it. */
export interface LogRequest {
  category: string
  events: number
  key: string
  /** When it was sent, in seconds (the harness's clock). */
  at: number
  /** The answer's status; absent when none came (refused). */
  status?: number
  retryAfter?: number
  refused: boolean
  answerLost: boolean
  descriptions: string[]
}

/** A stored log entry's fields the tests compare. */
export interface StoredEntry {
  category: string
  event_type: string
  description: string
  code: string | null
  platform_username: string | null
  platform_user_id: string | null
  issued_by: string | null
}

/**
 * The entries whose description starts with `prefix`, once everything the service accepted before is stored: a
 * barrier event is logged now and waited for (an event answered 200 before another was sent is stored before it), so
 * a batch the module sent twice under two keys would be counted here, not missed because it was stored late.
 */
export async function storedEntries(stack: Stack, prefix: string): Promise<StoredEntry[]> {
  const barrier = `barrier ${randomUUID()}`
  await eventually(async () => {
    const res = await postJson(`${stack.api}/log/server`, { event_type: 'barrier', description: barrier }, `Bearer ${stack.apiKey}`)
    return res.status === 200 ? true : undefined
  }, 30_000, 'the barrier event to be accepted')
  const stored = () => stack.db.selectFrom('log_entries').select('id').where('description', '=', barrier).executeTakeFirst()
  await eventually(stored, 30_000, 'the barrier event to be stored')
  return stack.db
    .selectFrom('log_entries')
    .select(['category', 'event_type', 'description', 'code', 'platform_username', 'platform_user_id', 'issued_by'])
    .where('description', 'like', `${prefix}%`)
    .execute()
}

/** The descriptions stored more than once. */
export function storedTwice(entries: Array<{ description: string }>): string[] {
  const seen = new Set<string>()
  return entries.filter((e) => (seen.has(e.description) ? true : (seen.add(e.description), false))).map((e) => e.description)
}

/** Whether every key's requests carried the same events, ended with a 200, and had one 200 only. */
export function keysHeld(requests: LogRequest[]): { sameEvents: boolean; endedWith200: boolean; nothingAfter200: boolean } {
  const byKey = new Map<string, LogRequest[]>()
  for (const r of requests) byKey.set(r.key, [...(byKey.get(r.key) ?? []), r])
  const groups = [...byKey.values()]
  return {
    sameEvents: groups.every((g) => g.every((r) => JSON.stringify(r.descriptions) === JSON.stringify(g[0]!.descriptions))),
    endedWith200: groups.every((g) => g.at(-1)!.status === 200),
    nothingAfter200: groups.every((g) => g.filter((r) => r.status === 200).length === 1),
  }
}
