/**
 * What a chat user's erasure (`/forget`, `presence-link users forget`) does to MySQL, in one transaction: every code
 * they ever held becomes an anonymous tombstone (revoked, no chat user, no game account, default share setting), so
 * the code value is never issued again and resolves to nobody; their infractions lose the link to them; the log
 * entries of their codes lose their name where they acted themselves. See docs/privacy.md and docs/decisions.md.
 */
import { sql, type Kysely } from 'kysely'
import { findCodes, findCodesOfUser, type StoredCode } from './code-rows.js'
import { insertLogEntry, type NewLogEntry } from './log-entry-rows.js'
import type { Database } from './schema.js'

/** The chat user id an erased code or infraction keeps: none. */
export const ERASED_CHAT_USER = ''

/** What is stored about a chat user in MySQL, counted (what an erasure would change). */
export interface StoredAboutUser {
  /** Every code they ever held, revoked ones too. */
  codes: StoredCode[]
  /** Their infractions (moderation entries attached to them). */
  infractions: number
  /** Log entries of their codes that name them as the one who acted (their own /pause, /unlink, button...). */
  namedEntries: number
}

/** What an erasure changed. */
export interface ErasedRows {
  /** The codes as they now are (anonymous tombstones at their new versions), for the Redis copy. */
  codes: StoredCode[]
  infractions: number
  namedEntries: number
}

/** The erasure's reads and its transaction. */
export interface PrivacyRows {
  /** What is stored about the user (changes nothing). */
  about(chatUserId: string): Promise<StoredAboutUser>
  /** Log entries naming any of `codes` received since `since`, per API key name (`source` `api:NAME`), most first. */
  keyUses(codes: readonly string[], since: Date): Promise<Array<{ key: string; entries: number }>>
  /** The names of the given API key ids, by id. */
  keyNames(ids: readonly string[]): Promise<Map<string, string>>
  /** Records that the user left every guild of the bot at `at` (kept when already recorded); how many codes. */
  markLeft(chatUserId: string, at: Date): Promise<number>
  /** The user is back in a guild: forgets when they left; true when something was recorded. */
  markBack(chatUserId: string): Promise<boolean>
  /** Chat users recorded as gone since before `cutoff`, at most `limit`. */
  leftBefore(cutoff: Date, limit: number): Promise<string[]>
  /** Erases the user; `entry` is the moderation entry recording that an erasure happened (it names no one). */
  erase(chatUserId: string, at: Date, entry: (codes: number) => NewLogEntry): Promise<ErasedRows>
}

// The user's own actions are recorded as `name (id)` (codes/code-service.ts, gateway/command-handler.ts actorOf).
const namedBy = (chatUserId: string) => `%(${chatUserId})%`

/** Creates the rows over a database. */
export function createPrivacyRows(db: Kysely<Database>): PrivacyRows {
  const countNamed = async (d: Kysely<Database>, codes: readonly string[], chatUserId: string): Promise<number> => {
    if (codes.length === 0) return 0
    const row = await d
      .selectFrom('log_entries')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('code', 'in', codes)
      .where('issued_by', 'like', namedBy(chatUserId))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }
  return {
    async about(chatUserId) {
      const codes = await findCodesOfUser(db, chatUserId)
      const infractions = await db
        .selectFrom('infractions')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('chat_user_id', '=', chatUserId)
        .executeTakeFirstOrThrow()
      return { codes, infractions: Number(infractions.n), namedEntries: await countNamed(db, codes.map((c) => c.code), chatUserId) }
    },

    async keyUses(codes, since) {
      if (codes.length === 0) return []
      const rows = await db
        .selectFrom('log_entries')
        .select(['source', (eb) => eb.fn.countAll<string>().as('n')])
        .where('code', 'in', codes)
        .where('received_at', '>=', since)
        .where('source', 'like', 'api:%')
        .groupBy('source')
        .execute()
      return rows.map((r) => ({ key: r.source.slice(4), entries: Number(r.n) })).sort((a, b) => b.entries - a.entries || (a.key < b.key ? -1 : 1))
    },

    async markLeft(chatUserId, at) {
      const result = await db.updateTable('codes').set({ left_at: at }).where('chat_user_id', '=', chatUserId).where('left_at', 'is', null).executeTakeFirst()
      return Number(result.numUpdatedRows)
    },

    async markBack(chatUserId) {
      const result = await db.updateTable('codes').set({ left_at: null }).where('chat_user_id', '=', chatUserId).where('left_at', 'is not', null).executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },

    async leftBefore(cutoff, limit) {
      const rows = await db
        .selectFrom('codes')
        .select('chat_user_id')
        .distinct()
        .where('left_at', '<', cutoff)
        .where('chat_user_id', '<>', ERASED_CHAT_USER)
        .limit(limit)
        .execute()
      return rows.map((r) => r.chat_user_id)
    },

    async keyNames(ids) {
      if (ids.length === 0) return new Map()
      const rows = await db.selectFrom('api_keys').select(['id', 'name']).where('id', 'in', ids).execute()
      return new Map(rows.map((r) => [r.id, r.name]))
    },

    erase: (chatUserId, at, entry) =>
      db.transaction().execute(async (tx) => {
        const held = await tx.selectFrom('codes').select('code').where('chat_user_id', '=', chatUserId).orderBy('code').forUpdate().execute()
        const codes = held.map((r) => r.code)
        let namedEntries = 0
        if (codes.length > 0) {
          await tx
            .updateTable('codes')
            .set({
              state: 'revoked',
              chat_user_id: ERASED_CHAT_USER,
              paused: false,
              platform_user_id: null,
              platform_username: null,
              bound_at: null,
              share: 'everything',
              left_at: null,
              updated_at: at,
              version: sql<string>`version + 1`,
            })
            .where('code', 'in', codes)
            .execute()
          const named = await tx
            .updateTable('log_entries')
            .set({ issued_by: 'an erased chat user' })
            .where('code', 'in', codes)
            .where('issued_by', 'like', namedBy(chatUserId))
            .executeTakeFirst()
          namedEntries = Number(named.numUpdatedRows)
        }
        const infractions = await tx.updateTable('infractions').set({ chat_user_id: ERASED_CHAT_USER }).where('chat_user_id', '=', chatUserId).executeTakeFirst()
        const count = Number(infractions.numUpdatedRows)
        if (codes.length > 0 || count > 0) await insertLogEntry(tx, entry(codes.length))
        return { codes: await findCodes(tx, codes), infractions: count, namedEntries }
      }),
  }
}
