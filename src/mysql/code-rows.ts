/** Every query on `codes`, and the one row shape of a stored code. Callers that need a transaction pass it as `db`. */
import { sql, type Kysely, type Selectable } from 'kysely'
import type { VersionedCode } from '../codes/model/code-record.js'
import type { CodeRecord } from '../codes/model/codes.js'
import type { ShareSetting } from '../presence/model/share.js'
import { hasErrno, MysqlErrno } from './connection.js'
import type { CodesTable, Database, Db } from './schema.js'

/** A stored code with its row version and timestamps. */
export interface StoredCode extends VersionedCode {
  createdAt: Date
  boundAt: Date | null
  updatedAt: Date
}

function toRecord(row: Omit<Selectable<CodesTable>, 'changed_at' | 'left_at'>): StoredCode {
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
    version: Number(row.version),
    share: row.share,
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
  'version',
  'share',
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

/** The codes bound to a game account (revoked ones left out), most recently linked first: the returning-player lookup. */
export async function findCodesOfPlatformUser(db: Db, platformUserId: string): Promise<StoredCode[]> {
  const rows = await db
    .selectFrom('codes')
    .select(COLUMNS)
    .where('platform_user_id', '=', platformUserId)
    .where('state', '<>', 'revoked')
    .orderBy('bound_at', 'desc')
    .orderBy('code')
    .execute()
  return rows.map(toRecord)
}

/** Every code (revoked ones too: the copy keeps them as tombstones), in pages in code order, for rebuilds and sweeps. */
export async function* listAllCodes(db: Db, pageSize = 5000): AsyncGenerator<StoredCode[]> {
  let after = ''
  for (;;) {
    const rows = await db.selectFrom('codes').select(COLUMNS).where('code', '>', after).orderBy('code').limit(pageSize).execute()
    if (rows.length === 0) return
    yield rows.map(toRecord)
    after = rows[rows.length - 1]!.code
  }
}

/** The codes changed at or after `since` (the database's clock, `changed_at`), oldest change first, at most `limit`. */
export async function listCodesChangedSince(db: Db, since: Date, limit: number): Promise<StoredCode[]> {
  const rows = await db.selectFrom('codes').select(COLUMNS).where('changed_at', '>=', since).orderBy('changed_at').limit(limit).execute()
  return rows.map(toRecord)
}

/** The given codes that exist (revoked ones too). */
export async function findCodes(db: Db, codes: readonly string[]): Promise<StoredCode[]> {
  if (codes.length === 0) return []
  return (await db.selectFrom('codes').select(COLUMNS).where('code', 'in', codes).execute()).map(toRecord)
}

/** Every code a chat user ever held (revoked ones too). */
export async function findCodesOfUser(db: Db, chatUserId: string): Promise<StoredCode[]> {
  return (await db.selectFrom('codes').select(COLUMNS).where('chat_user_id', '=', chatUserId).execute()).map(toRecord)
}

/** The live codes of the given chat users, by user id. */
export async function findLiveCodesOfUsers(db: Db, chatUserIds: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  if (chatUserIds.length === 0) return out
  const rows = await db
    .selectFrom('codes')
    .select(['code', 'chat_user_id'])
    .where('live_chat_user_id' as never, 'in', chatUserIds as never)
    .execute()
  for (const r of rows) out.set(r.chat_user_id, r.code)
  return out
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

/**
 * Writes a record's mutable fields and increments its version; `bound` sets bound_at. The caller holds the row lock
 * from reading `record` (at `record.version`), so the stored version is `record.version + 1`: returned.
 */
export async function updateCode(db: Db, record: VersionedCode, now: Date, bound = false): Promise<number> {
  await db
    .updateTable('codes')
    .set({
      state: record.state,
      paused: record.paused,
      platform_user_id: record.platformUserId,
      platform_username: record.platformUsername,
      updated_at: now,
      version: sql<string>`version + 1`,
      ...(bound ? { bound_at: now } : {}),
      ...(record.platformUserId === null ? { bound_at: null } : {}),
    })
    .where('code', '=', record.code)
    .execute()
  return record.version + 1
}

/** Sets a code's share setting and increments its version; the caller holds the row lock from reading `record`. */
export async function updateCodeShare(db: Db, record: VersionedCode, share: ShareSetting, now: Date): Promise<number> {
  await db.updateTable('codes').set({ share, updated_at: now, version: sql<string>`version + 1` }).where('code', '=', record.code).execute()
  return record.version + 1
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
  /** Every code a chat user ever held (revoked ones too). */
  ofUser(chatUserId: string): Promise<StoredCode[]>
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
    ofUser: (chatUserId) => findCodesOfUser(db, chatUserId),
    insert: (code, chatUserId, now) => insertCode(db, code, chatUserId, now),
    bannedCodesOfPlatformUser: (platformUserId) => findBannedCodesOfPlatformUser(db, platformUserId),
  }
}
