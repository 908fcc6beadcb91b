/**
 * Keeps the presence hash equal to what Discord says, for users who hold a code; entries are keyed by that code.
 *
 * - PRESENCE_UPDATE: one write (or clear) per update; a user in several guilds has one entry (the latest wins,
 *   Discord sends the same presence to every shared guild).
 * - Share settings (`/share`): each entry is rendered with only the activities its code's setting shows, and written
 *   only while that setting is still the code's (scripts/presence-put.lua); a change of setting drops the entry
 *   (code-put.lua) and the command asks for `refreshUser`, which writes it again under the new one.
 * - Resync when a shard becomes ready or resumes: every guild of the shard is asked for its members with presences
 *   (op 8 REQUEST_GUILD_MEMBERS); holders seen online are written, and entries this shard wrote for users it no
 *   longer sees online are removed. The member chunks are a snapshot: a PRESENCE_UPDATE that arrives while a resync
 *   runs is newer than it, so the resync neither writes nor removes the entry of a user who changed meanwhile.
 * - Staleness: while a shard is ready it renews its live mark for STALE_AFTER_MS every HEARTBEAT_MS (on Redis's
 *   clock, scripts/shard-mark.lua); the read path ignores entries of a shard whose mark has lapsed, so a dead or cut
 *   off gateway never shows old activity as live. A renewal only extends a mark that is still valid: once a mark
 *   has lapsed (the gateway could not reach Redis for STALE_AFTER_MS, or it was stopped or just started), fronts have
 *   stopped trusting the shard's entries, and updates may have been missed meanwhile, so the shard is resynced first
 *   and marked live only when that resync is done. A cut-off gateway that comes back thus never shows the activity
 *   from before its cut again.
 */
import { randomUUID } from 'node:crypto'
import { presenceEntryOf, type RawPresence } from '../presence/model/presence-of.js'
import type { PresenceEntry } from '../presence/model/presence-entry.js'
import { DEFAULT_SHARE, type ShareSetting } from '../presence/model/share.js'
import type { Logger } from '../lib/logger.js'
import type { PresenceStore } from '../redis/presence-store.js'

/** How often a ready shard renews its live mark. */
export const HEARTBEAT_MS = 5_000
/** How long a mark lasts: three missed heartbeats and the shard's presences stop counting. */
export const STALE_AFTER_MS = 15_000
const CHUNK_TIMEOUT_MS = 60_000

/** A GUILD_MEMBERS_CHUNK payload, the fields we use. */
export interface MembersChunk {
  guild_id: string
  members: Array<{ user?: { id: string } }>
  presences?: RawPresence[]
  chunk_index: number
  chunk_count: number
  nonce?: string
  not_found?: string[]
}

/** What the sync needs from the outside world. */
export interface PresenceSyncDeps {
  store: PresenceStore
  gamePlatformName: string
  log: Logger
  /** Sends op 8 on the shard that owns the guild. */
  requestMembers(shardId: number, payload: { guild_id: string; query?: string; limit: number; presences: true; user_ids?: string[]; nonce: string }): void
  /** The guilds this process sees, with their shard. */
  guilds(): Array<{ id: string; shardId: number }>
  /** The shards this process runs whose connection is ready. */
  readyShards(): number[]
}

/** The running sync. */
export interface PresenceSync {
  onPresenceUpdate(d: RawPresence & { guild_id?: string }, shardId: number): Promise<void>
  onMembersChunk(d: MembersChunk): void
  /** Resyncs every guild of a shard, then sweeps that shard's entries no longer backed by Discord. */
  resyncShard(shardId: number): Promise<{ written: number; removed: number }>
  /** Re-reads one user's presence from every guild (after they got a code, or left a guild). */
  refreshUser(userId: string): Promise<PresenceEntry | null>
  /** Whether the user is a member of any guild this process sees (asked of Discord, op 8). */
  memberOfAny(userId: string): Promise<boolean>
  /** Resyncs a shard, then marks it live; calls for a shard whose refresh is under way make it run once more after. */
  refreshShard(shardId: number): Promise<void>
  /** Renews the live marks of ready shards now; a shard whose mark lapsed is refreshed (and awaited) instead. */
  beat(): Promise<void>
  startHeartbeat(): void
  /** Stops the heartbeat and marks the given shards dead (clean shutdown). */
  stop(shards: number[]): Promise<void>
}

interface PendingRequest {
  received: number
  expected: number | null
  presences: RawPresence[]
  members: string[]
  resolve: () => void
  reject: (err: Error) => void
  timer: NodeJS.Timeout
}

/** The member requests (op 8) in flight, answered by their GUILD_MEMBERS_CHUNKs. */
interface MemberRequests {
  /** Asks a guild for its members with presences (all of them, or `userIds`); resolves once every chunk arrived. */
  request(shardId: number, guildId: string, userIds?: string[]): Promise<{ presences: RawPresence[]; members: string[] }>
  /** Takes a chunk; one that answers no request of ours is ignored. */
  onChunk(d: MembersChunk): void
  /** Rejects every request in flight (the gateway stops). */
  cancelAll(): void
}

function createMemberRequests(requestMembers: PresenceSyncDeps['requestMembers']): MemberRequests {
  const pending = new Map<string, PendingRequest>()
  return {
    request: (shardId, guildId, userIds) =>
      new Promise((resolve, reject) => {
        const nonce = randomUUID().replace(/-/g, '').slice(0, 32)
        const entry: PendingRequest = {
          received: 0,
          expected: null,
          presences: [],
          members: [],
          resolve: () => resolve({ presences: entry.presences, members: entry.members }),
          reject,
          timer: setTimeout(() => {
            pending.delete(nonce)
            reject(new Error(`member chunks for guild ${guildId} did not all arrive in ${CHUNK_TIMEOUT_MS} ms`))
          }, CHUNK_TIMEOUT_MS),
        }
        pending.set(nonce, entry)
        requestMembers(shardId, {
          guild_id: guildId,
          limit: 0,
          presences: true,
          nonce,
          ...(userIds === undefined ? { query: '' } : { user_ids: userIds }),
        })
      }),

    onChunk(d) {
      if (d.nonce === undefined) return
      const entry = pending.get(d.nonce)
      if (entry === undefined) return
      entry.received++
      entry.expected = d.chunk_count
      for (const m of d.members) if (m.user !== undefined) entry.members.push(m.user.id)
      if (d.presences !== undefined) entry.presences.push(...d.presences)
      if (entry.received >= entry.expected) {
        clearTimeout(entry.timer)
        pending.delete(d.nonce)
        entry.resolve()
      }
    },

    cancelAll() {
      for (const p of pending.values()) {
        clearTimeout(p.timer)
        p.reject(new Error('gateway stopping'))
      }
      pending.clear()
    },
  }
}

/**
 * Writes one guild's member snapshot: each code holder seen live, once per resync (`seen`), unless a presence change
 * of theirs arrived since the resync started (`changed`); returns how many entries were written.
 */
async function writeSnapshot(snapshot: {
  store: PresenceStore
  gamePlatformName: string
  shardId: number
  presences: RawPresence[]
  seen: Set<string>
  changed: Set<string>
}): Promise<number> {
  const { store, gamePlatformName, shardId, seen, changed } = snapshot
  const live = snapshot.presences.filter((p) => presenceEntryOf(p, shardId, gamePlatformName) !== null)
  const holders = await store.codesOf(live.map((p) => p.user.id))
  const shares = await store.sharesOf([...new Set(holders.values())])
  const entries: Array<[string, PresenceEntry, ShareSetting]> = []
  for (const p of live) {
    const code = holders.get(p.user.id)
    if (code === undefined || seen.has(code)) continue
    seen.add(code)
    // A newer PRESENCE_UPDATE of this user already wrote (or cleared) the entry: the snapshot is older.
    if (changed.has(`u:${p.user.id}`)) continue
    const share = shares.get(code) ?? DEFAULT_SHARE
    entries.push([code, presenceEntryOf(p, shardId, gamePlatformName, share)!, share])
  }
  for (let i = 0; i < entries.length; i += 1000) await store.setMany(entries.slice(i, i + 1000))
  return entries.length
}

/** Whether `userId` is a member of one of `guilds` (op 8 per guild until one says yes). */
async function memberOfAnyGuild(guilds: ReturnType<PresenceSyncDeps['guilds']>, request: MemberRequests['request'], userId: string): Promise<boolean> {
  for (const guild of guilds) {
    const { members } = await request(guild.shardId, guild.id, [userId])
    if (members.includes(userId)) return true
  }
  return false
}

/** Creates the sync. */
export function createPresenceSync(deps: PresenceSyncDeps): PresenceSync {
  const { store, gamePlatformName, log } = deps
  const members = createMemberRequests(deps.requestMembers)
  const request = members.request
  let timer: NodeJS.Timeout | undefined
  // One set per running resync: `u:<user id>` and `c:<code>` of every presence change seen since it started.
  const running = new Set<Set<string>>()
  const changedDuringResyncs = (key: string) => {
    for (const changed of running) changed.add(key)
  }
  const refreshing = new Map<number, { again: boolean; done: Promise<void> }>()

  const sync: PresenceSync = {
    async onPresenceUpdate(d, shardId) {
      const userId = d.user?.id
      if (userId === undefined) return
      // Before any await: a resync whose member chunks came before this update must not write this user.
      changedDuringResyncs(`u:${userId}`)
      const code = await store.codeOf(userId)
      if (code === null) return
      changedDuringResyncs(`c:${code}`)
      const share = (await store.sharesOf([code])).get(code) ?? DEFAULT_SHARE
      const entry = presenceEntryOf(d, shardId, gamePlatformName, share)
      if (entry === null) await store.clear(code)
      else await store.set(code, entry, share)
    },

    onMembersChunk(d) {
      members.onChunk(d)
    },

    async resyncShard(shardId) {
      const changed = new Set<string>()
      running.add(changed)
      try {
        const seen = new Set<string>()
        let written = 0
        for (const guild of deps.guilds().filter((g) => g.shardId === shardId)) {
          const { presences } = await request(shardId, guild.id)
          written += await writeSnapshot({ store, gamePlatformName, shardId, presences, seen, changed })
        }
        const removed = await store.sweepShard(shardId, (code) => seen.has(code) || changed.has(`c:${code}`))
        log.info({ shard: shardId, written, removed }, 'presence resync done')
        return { written, removed }
      } finally {
        running.delete(changed)
      }
    },

    async refreshUser(userId) {
      const code = await store.codeOf(userId)
      if (code === null) return null
      const share = (await store.sharesOf([code])).get(code) ?? DEFAULT_SHARE
      for (const guild of deps.guilds()) {
        const { presences, members } = await request(guild.shardId, guild.id, [userId])
        if (!members.includes(userId)) continue
        const raw = presences.find((p) => p.user.id === userId)
        const entry = raw === undefined ? null : presenceEntryOf(raw, guild.shardId, gamePlatformName, share)
        if (entry !== null) {
          // Not written when the setting changed meanwhile: that change asked for a refresh of its own.
          await store.set(code, entry, share)
          return entry
        }
      }
      await store.clear(code)
      return null
    },

    memberOfAny: (userId) => memberOfAnyGuild(deps.guilds(), request, userId),

    refreshShard(shardId) {
      const current = refreshing.get(shardId)
      if (current !== undefined) {
        current.again = true
        return current.done
      }
      const state = { again: false, done: Promise.resolve() }
      state.done = (async () => {
        try {
          do {
            state.again = false
            await sync.resyncShard(shardId)
            if (deps.readyShards().includes(shardId)) await store.markLive(shardId, STALE_AFTER_MS)
          } while (state.again)
        } finally {
          refreshing.delete(shardId)
        }
      })()
      refreshing.set(shardId, state)
      return state.done
    },

    async beat() {
      await Promise.all(
        deps.readyShards().map(async (shard) => {
          if (await store.renewMark(shard, STALE_AFTER_MS)) return
          // A refresh under way marks the shard when it is done.
          if (refreshing.has(shard)) return
          log.info({ shard }, 'shard not marked live (lapsed, or just started): resyncing before its presences count again')
          await sync.refreshShard(shard)
        }),
      )
    },

    startHeartbeat() {
      timer ??= setInterval(() => {
        sync.beat().catch((err: Error) => log.warn({ err: err.message }, 'presence heartbeat failed'))
      }, HEARTBEAT_MS)
    },

    async stop(shards) {
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
      members.cancelAll()
      await Promise.all(shards.map((s) => store.markDead(s)))
    },
  }
  return sync
}
