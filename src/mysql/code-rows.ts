/** Reads and writes `codes` rows; callers own the transaction. */
import type { Kysely, Selectable, Transaction } from 'kysely'
import type { CodeRecord } from '../domain/codes.js'
import type { CodesTable, Database } from './schema.js'

type Db = Kysely<Database> | Transaction<Database>

/** A stored code with its timestamps. */
export interface StoredCode extends CodeRecord {
  createdAt: Date
  boundAt: Date | null
  updatedAt: Date
}

function toRecord(row: Selectable<CodesTable>): StoredCode {
  return {
    code: row.code,
    state: row.state,
    paused: Boolean(row.paused),
    chatUserId: row.chat_user_id,
    platformUserId: row.platform_user_id === null ? null : String(row.platform_user_id),
    platformUsername: row.platform_username,
    createdAt: row.created_at,
    boundAt: row.bound_at,
    updatedAt: row.updated_at,
  }
}

const COLUMNS = [
  'code',
  'chat_user_id',
  'state',
  'paused',
  'platform_user_id',
  'platform_username',
  'created_at',
  'bound_at',
  'updated_at',
] as const

/** One code by its value; `forUpdate` locks the row for the rest of the transaction. */
export async function findCode(db: Db, code: string, forUpdate = false): Promise<StoredCode | undefined> {
  let q = db.selectFrom('codes').select(COLUMNS).where('code', '=', code)
  if (forUpdate) q = q.forUpdate()
  const row = await q.executeTakeFirst()
  return row === undefined ? undefined : toRecord(row)
}

/** The user's live (not revoked) code, if any. */
export async function findLiveCodeOfUser(db: Db, chatUserId: string, forUpdate = false): Promise<StoredCode | undefined> {
  let q = db.selectFrom('codes').select(COLUMNS).where('live_chat_user_id' as never, '=', chatUserId as never)
  if (forUpdate) q = q.forUpdate()
  const row = await q.executeTakeFirst()
  return row === undefined ? undefined : toRecord(row)
}

/** Every live code, in pages, for rebuilding the Redis cache. */
export async function* listLiveCodes(db: Db, pageSize = 5000): AsyncGenerator<StoredCode[]> {
  let after = ''
  for (;;) {
    const rows = await db
      .selectFrom('codes')
      .select(COLUMNS)
      .where('state', '<>', 'revoked')
      .where('code', '>', after)
      .orderBy('code')
      .limit(pageSize)
      .execute()
    if (rows.length === 0) return
    yield rows.map(toRecord)
    after = rows[rows.length - 1]!.code
  }
}

/** Inserts a new active, unbound code. Throws the driver's duplicate-key error on a collision. */
export async function insertCode(db: Db, code: string, chatUserId: string, now: Date): Promise<void> {
  await db
    .insertInto('codes')
    .values({ code, chat_user_id: chatUserId, state: 'active', paused: false, created_at: now, updated_at: now })
    .execute()
}

/** Writes a record's mutable fields; `bound` sets bound_at. */
export async function updateCode(db: Db, record: CodeRecord, now: Date, bound = false): Promise<void> {
  await db
    .updateTable('codes')
    .set({
      state: record.state,
      paused: record.paused,
      platform_user_id: record.platformUserId,
      platform_username: record.platformUsername,
      updated_at: now,
      ...(bound ? { bound_at: now } : {}),
      ...(record.platformUserId === null ? { bound_at: null } : {}),
    })
    .where('code', '=', record.code)
    .execute()
}
