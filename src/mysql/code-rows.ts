/** Every query on `codes`, and the one row shape of a stored code. Callers that need a transaction pass it as `db`. */
import type { Kysely, Selectable } from 'kysely'
import type { CodeRecord } from '../core/codes.js'
import { hasErrno, MysqlErrno } from './connection.js'
import type { CodesTable, Database, Db } from './schema.js'

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

/**
 * Inserts a new active, unbound code. `duplicate` when the code exists or the user already holds a live code
 * (the unique key on the live holder); the caller tells the two apart.
 */
export async function insertCode(db: Db, code: string, chatUserId: string, now: Date): Promise<'inserted' | 'duplicate'> {
  try {
    await db
      .insertInto('codes')
      .values({ code, chat_user_id: chatUserId, state: 'active', paused: false, created_at: now, updated_at: now })
      .execute()
    return 'inserted'
  } catch (err) {
    if (hasErrno(err, MysqlErrno.DuplicateEntry)) return 'duplicate'
    throw err
  }
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

/** The banned codes linked to a platform user id, in code order. */
export async function findBannedCodesOfPlatformUser(db: Db, platformUserId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('codes')
    .select('code')
    .where('platform_user_id', '=', platformUserId)
    .where('state', '=', 'banned')
    .orderBy('code')
    .execute()
  return rows.map((r) => r.code)
}

/** The reads and single-row writes on `codes` (transitions that also write the log are in code-transactions.ts). */
export interface CodeRows {
  /** One code. */
  find(code: string): Promise<StoredCode | undefined>
  /** The user's live code. */
  findLiveOfUser(chatUserId: string): Promise<StoredCode | undefined>
  /** Every live code, in pages. */
  listLive(): AsyncIterable<StoredCode[]>
  /** Inserts a new active, unbound code. */
  insert(code: string, chatUserId: string, now: Date): Promise<'inserted' | 'duplicate'>
  /** The banned codes linked to a platform user id. */
  bannedCodesOfPlatformUser(platformUserId: string): Promise<string[]>
}

/** Creates the rows over a database. */
export function createCodeRows(db: Kysely<Database>): CodeRows {
  return {
    find: (code) => findCode(db, code),
    findLiveOfUser: (chatUserId) => findLiveCodeOfUser(db, chatUserId),
    listLive: () => listLiveCodes(db),
    insert: (code, chatUserId, now) => insertCode(db, code, chatUserId, now),
    bannedCodesOfPlatformUser: (platformUserId) => findBannedCodesOfPlatformUser(db, platformUserId),
  }
}
