/** Kysely table types for the service's MySQL/MariaDB schema (see the migrations for the DDL): each row shape, once. */
import type { ColumnType, Generated, Kysely, RawBuilder, Transaction } from 'kysely'
import type { CodeState } from '../codes/model/codes.js'
import type { ShareSetting } from '../presence/model/share.js'
import type { LogCategoryName } from '../queue/model/log-categories.js'

type CreatedAt = ColumnType<Date, Date | undefined, never>

/** A version is only ever updated as `version + 1` (a raw SQL expression). */
type RawBuilderVersion = RawBuilder<string>

/** `codes`: one row per code ever issued. */
export interface CodesTable {
  code: string
  chat_user_id: string
  state: CodeState
  paused: ColumnType<boolean, boolean | undefined, boolean>
  platform_user_id: string | null
  platform_username: string | null
  created_at: CreatedAt
  bound_at: Date | null
  updated_at: Date
  /** Incremented by every change (0005); the Redis copy is written compare-and-set on it. BIGINT: read as a string. */
  version: ColumnType<string, never, RawBuilderVersion>
  /** The database's time of the last change (ON UPDATE), indexed for the reconciler. */
  changed_at: ColumnType<Date, never, never>
  /** What games see of the holder's activity (0012); `everything` by default. */
  share: ColumnType<ShareSetting, ShareSetting | undefined, ShareSetting>
  /** When the user was seen leaving every guild of the bot (0012); NULL while they are in one. */
  left_at: ColumnType<Date | null, Date | null | undefined, Date | null>
}

/** `api_keys`: bearer keys for game servers, stored as SHA-256 of their secret part. */
export interface ApiKeysTable {
  id: string
  name: string
  secret_hash: string
  created_at: CreatedAt
  revoked_at: Date | null
  /** As `codes.version`. */
  version: ColumnType<string, never, RawBuilderVersion>
  /** As `codes.changed_at`. */
  changed_at: ColumnType<Date, never, never>
}

/** `log_entries`: every accepted log event, from the API, the gateway or the service itself. */
export interface LogEntriesTable {
  id: Generated<string>
  dedupe_key: string
  category: LogCategoryName
  event_type: string
  description: string
  platform_username: string | null
  platform_user_id: string | null
  issued_by: string | null
  code: string | null
  source: string
  source_ip: string | null
  data: string | null
  received_at: Date
  created_at: CreatedAt
  /** Set by the delivery consumer; new rows start `pending` (the column default). */
  delivery_state: ColumnType<DeliveryState, DeliveryState | undefined, DeliveryState>
  delivery_message_id: ColumnType<string | null, string | null | undefined, string | null>
  delivery_error: ColumnType<string | null, string | null | undefined, string | null>
  delivered_at: ColumnType<Date | null, Date | null | undefined, Date | null>
  /** When a replayed entry became pending again; NULL: since it was received. */
  pending_since: ColumnType<Date | null, Date | null | undefined, Date | null>
}

/**
 * Delivery state of a log entry: waiting, posted (with its message id), refused for good, no destination, or
 * summarized in a digest message (with the digest's message id) when its destination fell behind.
 */
export type DeliveryState = 'pending' | 'sent' | 'failed' | 'none' | 'digested'

/** `log_destinations`: where each category's entries are posted (a channel id or a webhook URL). */
export interface LogDestinationsTable {
  category: LogCategoryName
  kind: 'channel' | 'webhook'
  target: string
  set_by: string
  disabled_at: Date | null
  disabled_reason: string | null
  updated_at: ColumnType<Date, Date | undefined, Date>
  /** Seeded by a delivery consumer running against the local sandbox (0011); read as 0 or 1. */
  sandbox: ColumnType<boolean | number, boolean | undefined, boolean>
}

/** `watchlist`: platform user ids staff want reviewed by the safety check. */
export interface WatchlistTable {
  platform_user_id: string
  reason: string | null
  added_by: string
  added_at: CreatedAt
}

/** `infractions`: moderation entries that named an existing code, attached to its chat user. */
export interface InfractionsTable {
  id: Generated<string>
  log_entry_id: string
  code: string
  chat_user_id: string
  platform_user_id: string | null
  platform_username: string | null
  event_type: string
  description: string
  issued_by: string | null
  created_at: CreatedAt
  pardoned_at: Date | null
  pardoned_by: string | null
  pardon_reason: string | null
}

/** `guild_whitelist`: guilds whose events are logged. */
export interface GuildWhitelistTable {
  guild_id: string
  added_by: string
  added_at: CreatedAt
}

/** `push_targets`: a universe attached to one of our API keys, with its Open Cloud key sealed (0006). */
export interface PushTargetsTable {
  api_key_id: string
  /** BIGINT UNSIGNED: read as a string. */
  universe_id: ColumnType<string, number | string, never>
  key_ciphertext: Buffer
  key_nonce: Buffer
  key_tag: Buffer
  key_hint: string
  added_by: string
  created_at: CreatedAt
  updated_at: ColumnType<Date, never, Date | RawBuilder<Date>>
}

/** The whole schema as Kysely sees it. */
export interface Database {
  guild_whitelist: GuildWhitelistTable
  codes: CodesTable
  api_keys: ApiKeysTable
  log_entries: LogEntriesTable
  infractions: InfractionsTable
  log_destinations: LogDestinationsTable
  watchlist: WatchlistTable
  push_targets: PushTargetsTable
}

/** A Kysely instance or an open transaction on it: what the rows functions run their queries on. */
export type Db = Kysely<Database> | Transaction<Database>
