/**
 * Every query on `log_destinations`: the destination of each category, with its disabled state. LOG_DESTINATION_*
 * seed it when a delivery consumer starts (the environment wins over what `destinations set` stored); a
 * destination is disabled after a 401/403/404 and enabled again by `destinations retry` or a new target. A
 * destination seeded against the local sandbox is marked `sandbox` (0011): real deliveries refuse it, and
 * `sandbox reset` removes it with the entries that waited for it.
 */
import { sql, type Kysely, type Selectable } from 'kysely'
import { parseDestinationTarget, targetText, type DestinationTarget, type TargetParse } from '../delivery/model/destination.js'
import type { LogCategoryName } from '../queue/model/log-categories.js'
import type { Database, Db, LogDestinationsTable } from './schema.js'

/** A stored destination. */
export interface StoredDestination {
  category: LogCategoryName
  /** The target as stored, re-read with the current DISCORD_API (a stored host may no longer be trusted). */
  target: TargetParse
  targetText: string
  setBy: string
  disabledAt: Date | null
  disabledReason: string | null
  updatedAt: Date
  /** Seeded while serve ran against the local sandbox: only a consumer that runs against the sandbox posts to it. */
  sandbox: boolean
}

/** What the entries still pending for a sandbox destination become once it is gone: stored, never delivered. */
export const SANDBOX_BACKLOG_ERROR = 'waited for the sandbox destination; set aside when it was removed or replaced (logs replay sends it again)'

function toStored(row: Selectable<LogDestinationsTable>, discordApi: string): StoredDestination {
  return {
    category: row.category,
    target: parseDestinationTarget(row.target, discordApi),
    targetText: row.target,
    setBy: row.set_by,
    disabledAt: row.disabled_at,
    disabledReason: row.disabled_reason,
    updatedAt: row.updated_at,
    sandbox: Boolean(row.sandbox),
  }
}

/** One category's destination, if set. */
export async function getDestination(db: Kysely<Database>, category: LogCategoryName, discordApi = ''): Promise<StoredDestination | undefined> {
  const row = await db.selectFrom('log_destinations').selectAll().where('category', '=', category).executeTakeFirst()
  return row === undefined ? undefined : toStored(row, discordApi)
}

/**
 * The categories that have a destination (set, whether enabled or not), read under a shared lock: inside the caller's
 * transaction no destination can be set or unset until it ends, so what it decides from them holds at its commit.
 */
export async function lockDestinationCategories(db: Db): Promise<Set<LogCategoryName>> {
  const rows = await db.selectFrom('log_destinations').select('category').modifyEnd(sql`LOCK IN SHARE MODE`).execute()
  return new Set(rows.map((r) => r.category))
}

/** Every set destination, by category. */
export async function listDestinations(db: Kysely<Database>, discordApi = ''): Promise<StoredDestination[]> {
  const rows = await db.selectFrom('log_destinations').selectAll().orderBy('category').execute()
  return rows.map((r) => toStored(r, discordApi))
}

/** Sets the entries of `category` still pending aside (state `none`, with {@link SANDBOX_BACKLOG_ERROR}); how many. */
async function setSandboxBacklogAside(db: Db, category: LogCategoryName): Promise<number> {
  const result = await db
    .updateTable('log_entries')
    .set({ delivery_state: 'none', delivery_error: SANDBOX_BACKLOG_ERROR })
    .where('category', '=', category)
    .where('delivery_state', '=', 'pending')
    .executeTakeFirst()
  return Number(result.numUpdatedRows)
}

/**
 * Sets a category's destination. A new target always starts enabled; the same target again keeps its disabled
 * state unless `enable` (an operator's explicit `set` re-enables, a restart seeding the same value does not).
 * `sandbox` marks a destination seeded against the local sandbox. A real destination replacing a sandbox one sets
 * the entries still pending aside in the same transaction: they waited for the sandbox and must not reach a real
 * channel. Returns whether anything changed.
 */
export async function setDestination(
  db: Kysely<Database>,
  category: LogCategoryName,
  target: DestinationTarget,
  setBy: string,
  opts: { enable: boolean; sandbox?: boolean },
): Promise<boolean> {
  const text = targetText(target)
  const sandbox = opts.sandbox === true
  return db.transaction().execute(async (tx) => {
    const current = await tx.selectFrom('log_destinations').selectAll().where('category', '=', category).forUpdate().executeTakeFirst()
    const now = new Date()
    if (current === undefined) {
      await tx.insertInto('log_destinations').values({ category, kind: target.kind, target: text, set_by: setBy, disabled_at: null, disabled_reason: null, updated_at: now, sandbox }).execute()
      return true
    }
    const sameTarget = current.target === text && Boolean(current.sandbox) === sandbox
    const enable = !sameTarget || opts.enable
    if (sameTarget && (!enable || current.disabled_at === null)) return false
    if (Boolean(current.sandbox) && !sandbox) await setSandboxBacklogAside(tx, category)
    await tx
      .updateTable('log_destinations')
      .set({ kind: target.kind, target: text, set_by: setBy, updated_at: now, sandbox, ...(enable ? { disabled_at: null, disabled_reason: null } : {}) })
      .where('category', '=', category)
      .execute()
    return true
  })
}

/** What {@link removeSandboxDestinations} removed: the categories, and the entries that waited for them, set aside. */
export interface SandboxDestinationsRemoved {
  categories: LogCategoryName[]
  setAside: number
}

/**
 * Removes every sandbox destination and sets the entries pending for them aside, in one transaction (a consumer
 * seeding at the same moment waits on the rows' locks).
 */
export async function removeSandboxDestinations(db: Kysely<Database>): Promise<SandboxDestinationsRemoved> {
  return db.transaction().execute(async (tx) => {
    const rows = await tx.selectFrom('log_destinations').select('category').where('sandbox', '=', true).orderBy('category').forUpdate().execute()
    let setAside = 0
    for (const { category } of rows) {
      setAside += await setSandboxBacklogAside(tx, category)
      await tx.deleteFrom('log_destinations').where('category', '=', category).execute()
    }
    return { categories: rows.map((r) => r.category), setAside }
  })
}

/** Removes a category's destination; false when none was set. */
export async function unsetDestination(db: Kysely<Database>, category: LogCategoryName): Promise<boolean> {
  const result = await db.deleteFrom('log_destinations').where('category', '=', category).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** Disables a destination after Discord refused it, only if it still points at `targetText` (not changed meanwhile). */
export async function disableDestination(db: Kysely<Database>, category: LogCategoryName, expectedTarget: string, reason: string): Promise<boolean> {
  const result = await db
    .updateTable('log_destinations')
    .set({ disabled_at: new Date(), disabled_reason: reason.slice(0, 300) })
    .where('category', '=', category)
    .where('target', '=', expectedTarget)
    .where('disabled_at', 'is', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Enables a disabled destination again; false when it was not disabled (or not set). */
export async function enableDestination(db: Kysely<Database>, category: LogCategoryName): Promise<boolean> {
  const result = await db
    .updateTable('log_destinations')
    .set({ disabled_at: null, disabled_reason: null, updated_at: new Date() })
    .where('category', '=', category)
    .where('disabled_at', 'is not', null)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** The destinations' reads and writes; stored targets are re-read with the DISCORD_API given at creation. */
export interface DestinationRows {
  /** One category's destination, if set. */
  get(category: LogCategoryName): Promise<StoredDestination | undefined>
  /** Every set destination. */
  list(): Promise<StoredDestination[]>
  /** Sets a category's destination (`sandbox`: seeded against the local sandbox); whether anything changed. */
  set(category: LogCategoryName, target: DestinationTarget, setBy: string, opts: { enable: boolean; sandbox?: boolean }): Promise<boolean>
  /** Removes a category's destination. */
  unset(category: LogCategoryName): Promise<boolean>
  /** Disables a destination Discord refused, if it still points at `expectedTarget`. */
  disable(category: LogCategoryName, expectedTarget: string, reason: string): Promise<boolean>
  /** Enables a disabled destination again. */
  enable(category: LogCategoryName): Promise<boolean>
  /** Removes every sandbox destination and sets the entries pending for them aside. */
  removeSandbox(): Promise<SandboxDestinationsRemoved>
}

/** Creates the rows over a database; `discordApi` (DISCORD_API, may be '') is trusted when re-reading targets. */
export function createDestinationRows(db: Kysely<Database>, discordApi = ''): DestinationRows {
  return {
    get: (category) => getDestination(db, category, discordApi),
    list: () => listDestinations(db, discordApi),
    set: (category, target, setBy, opts) => setDestination(db, category, target, setBy, opts),
    unset: (category) => unsetDestination(db, category),
    disable: (category, expectedTarget, reason) => disableDestination(db, category, expectedTarget, reason),
    enable: (category) => enableDestination(db, category),
    removeSandbox: () => removeSandboxDestinations(db),
  }
}
