/**
 * Every Redis key the service uses is built here, under one prefix (`REDIS_PREFIX`, default `pl`).
 *
 * | key | type | holds | written by | read by |
 * |---|---|---|---|---|
 * | `{p}:codes` | hash | field = CODE, value = code record `state|paused|chatUserId|platformUsername|version` (codes/model/code-record.ts; `version` = the MySQL row version; four-field values from before versions read as version 0). Written compare-and-set on the version (scripts/code-put.lua): an older version never overwrites a newer one. A revoked code stays as a tombstone (state `revoked`, shown as unknown), since codes are never reissued | workers, gateway and CLI after each MySQL commit, and again on a command's no-op branch (code-cache.ts); every code written at start when `{p}:codes:built` is missing; the reconciler (copies/reconciler.ts: code-put.lua, code-remove.lua for entries MySQL lacks) | front (code-lookup.ts), holder-repair.lua |
 * | `{p}:codes:built` | string | ISO time of the last time every code was written from MySQL into `{p}:codes` and `{p}:holders` | cache rebuild | every process at start |
 * | `{p}:holders` | hash | field = chat user id, value = that user's live CODE (no version of its own: it is written only by the script that wrote that code's record, or by scripts/holder-repair.lua while that code's copy is live) | code-put.lua with each live record (a revoked code drops the entry while it still points at it); the reconciler (holder-repair.lua) | gateway (presence-store.ts: which presences to keep) |
 * | `{p}:presence` | hash | field = the holder's live CODE, value = `shard|status|rendered activity lines` (see presence/model/presence-entry.ts); keyed by code so the front reads it beside `{p}:codes` in one round trip | gateway (presence-store.ts, including the resync sweep); a revoked code's entry is removed with it (code-cache.ts) | front (code-lookup.ts), gateway sweep |
 * | `{p}:share` | hash | field = a live CODE whose holder chose a share setting other than `everything` (`/share`), value = `games`, `media` or `nothing` (presence/model/share.ts); absent = `everything`. Written with the code's record, compare-and-set on its version (scripts/code-put.lua, which also drops the code's presence when the setting changes); a revoked code's entry goes with it | code-cache.ts (code-put.lua), the reconciler (code-put.lua, code-remove.lua); rebuilt from MySQL (`codes.share`) with `{p}:codes` | gateway (presence-store.ts: which activities it writes; scripts/presence-put.lua writes an entry only under the setting it was filtered for) |
 * | `{p}:presence:shards` | hash | field = shard id, value = epoch ms **by Redis's clock** (`TIME`) until which that shard's presences count as live | gateway heartbeat and resync (presence-store.ts, scripts/shard-mark.lua: renewed only while still valid, set after a resync) | front (shard-marks.ts reads it with Redis `TIME`; code-lookup.ts: a stale shard's presences are ignored) |
 * | `{p}:feed` | pub/sub channel | the change feed: `MS|CODE[,CODE...]`, `MS|*` or `MS|keys` (redis/model/feed-message.ts), published in the same MULTI or script as every write that changes a block or an API key | code-cache.ts (code-put.lua, rebuilds), the reconciler (code-put.lua, code-remove.lua, api-key-put.lua), presence-store.ts (presence set/clear/sweep, shard marked dead), api-key-copy.ts (api-key-put.lua) | fronts (change-feed.ts: near cache, streams, API key memory), the push publisher |
 * | `{p}:apikeys` | hash | field = key id, value = `sha256hex|name|version`, a revoked key's tombstone `|name|version` (empty hash: refused); `sha256hex|name` from before versions reads as version 0. Written compare-and-set on the MySQL row version (scripts/api-key-put.lua) | `keys create/revoke` (also re-written when revoke finds no active key); every key written at start (api-key-copy.ts); the reconciler (api-key-put.lua, hash-delete-if.lua for entries MySQL lacks) | front (bearer check, api-key-copy.ts) |
 * | `{p}:roblox:user:{lowercase name}` | string, 24 h TTL | `id|name` from the Roblox users API | bind worker (roblox-user-cache.ts) | bind worker |
 * | `{p}:guilds` | set | ids of guilds whitelisted through `presence-link guilds add` (GUILD_WHITELIST adds to it in memory) | guilds CLI; rebuilt from MySQL at gateway start (guild-set.ts) | gateway (audit events, guild-set.ts) |
 * | `{p}:guilds:env` | string | JSON `{guilds, shards, shardCount, at}`: the GUILD_WHITELIST (held in memory) of the last gateway to start, its SHARD_IDS and start time (gateway-whitelist.ts) | gateway at start | `guilds list` CLI |
 * | `{p}:msg:{message id}` | string, TTL = MESSAGE_RETENTION_DAYS | JSON `{c: content, a: author id, n: author name, ch: channel id}` of a recent message in a whitelisted guild | gateway on MESSAGE_CREATE/UPDATE (message-cache.ts) | gateway on MESSAGE_UPDATE/DELETE (what was said) |
 * | `{p}:rl:{route}:{client}` | string (integer), PX = rest of the window | requests counted in the client's current fixed window of that route (the window starts with its first request; the layout rate-limiter-flexible used, so both count together during an upgrade); refused requests a front answers from memory are not counted, which changes nothing a client sees; `{client}` is an IPv4 address or an IPv6 /64 (http/model/client-key.ts); `{route}` `log_events` counts the events of log batches (N per batch, all or none: scripts/rate-limit-spend-units.lua) | front (rate-limits.ts: scripts/rate-limit-spend.lua, many clients per call; createUnitBudget) | front; lost on purpose when Redis restarts empty (every client starts a fresh window) |
 * | `{p}:unknown:{client}` | set, PX = rest of a 1 h window started by the client's first unknown code | the distinct unknown codes (not found, or issued but not linked) one client asked for in callbacks/rpc; `{client}` is an IPv4 address or an IPv6 /64 (http/model/client-key.ts); at most UNKNOWN_CODE_BUDGET members | front (unknown-code-budget.ts: scripts/unknown-code-budget.lua) | front |
 * | `{p}:unknown:{client}:hit` | string `1`, PX = rest of that window | set by the window's first refusal, so the metric counts each client once per window | front (same script) | front |
 * | `{p}:delivery:lease:{category}` | string, PX 15 s, renewed every 5 s | token `host:pid:random` of the one delivery process that posts this category's entries (keeps them in order) | delivery consumer (delivery-lease.ts: scripts/lease-*.lua compare-and-set) | delivery consumers |
 * | `{p}:delivery:rate` | sorted set, PX 1 s | one member per Discord request of the last second, score = Redis time in ms (sliding window shared by every delivery process) | delivery consumer (delivery-rate-gate.ts: scripts/rate-gate-take.lua) | delivery consumer |
 * | `{p}:idem:{job id}` | string, EX IDEMPOTENCY_WINDOW_SECONDS (1 h) | fingerprint (sha256, base64url) of the log event first sent with an Idempotency-Key; the job id is `idem-` + sha256 of (API key id, key) (queue/log-idempotency.ts) | front (idempotency-keys.ts, SET NX GET) | front (a reuse with another event is refused) |
 * | `{p}:replica:mark` | string `1`, EX 1 h | nothing: written just before a WAIT so that the WAIT covers every write the primary took until then, including other clients' (a bind's writes are the worker's; issue 22) | front after a bind (replica-wait.ts) | nobody; lost on purpose |
 * | `{p}:push:subs:{universe}` | hash, PX = its longest subscription's life | one field per game server subscribed to pushes for that Roblox universe: field `KEYID|SERVERID` (our API key's id, the server's JobId), value `EXPIRESMS|CODE,CODE,...` (push/model/subscription.ts; expiry by Redis's clock, PUSH_SUBSCRIPTION_SECONDS after the last call); lapsed fields are removed by whoever reads them | front (push-subscriptions.ts: scripts/push-subscribe.lua) | push publisher (scripts/push-subscriptions-read.lua) |
 * | `{p}:push:universes` | sorted set | member = universe id, score = the latest expiry (Redis ms) of its subscriptions: which universes have live servers | front (push-subscribe.lua, ZADD GT) | push publisher (scripts/push-universes.lua, which drops lapsed members) |
 * | `{p}:push:lease:{universe}` | string, PX 15 s, renewed every 5 s | token `host:pid:random` of the one publisher that publishes this universe's changes (so two workers never send a change twice) | push publisher (delivery-lease.ts: scripts/lease-*.lua) | push publishers |
 * | `{p}:push:sent:{universe}` | hash, PX = 2 × PUSH_SUBSCRIPTION_SECONDS after the last write | field = CODE, value = digest (sha1, base64url, 12 characters) of the callbacks block servers were last told of, or saw when they subscribed: only a block that differs from it is published, and a publisher taking the lease over carries on from it | push publisher (push-sent-blocks.ts) | push publisher |
 * | `{p}:push:rate:{universe}` | sorted set, PX 60 s | one member per message published to that universe in the last minute, score = Redis time in ms (the universe's budget, push/model/publish-budget.ts) | push publisher (scripts/rate-gate-take.lua) | push publisher |
 * | `{p}:push:rate` | sorted set, PX 60 s | one member per Open Cloud publish of the last minute, every universe together (PUSH_PUBLISHES_PER_MINUTE) | push publisher (scripts/rate-gate-take.lua) | push publisher |
 * | `{p}:usage:{minute}` | hash, EX 25 h | requests of one minute (epoch minute, the front's clock) per API key: field `KEYNAME|ROUTE|STATUS`, value = count | front (key-usage.ts, batched each second) | `keys usage` CLI |
 * | `{p}:retention:lease` | string, PX 30 s, renewed every 10 s | token `host:pid:random` of the one worker pruning `log_entries` now (so two workers never prune at once) | log pruner (delivery-lease.ts: scripts/lease-*.lua) | log pruners |
 * | `{p}:retention:done` | string, PX = LOG_PRUNE_INTERVAL_SECONDS | ISO time of the last complete prune: while it lives no worker starts another; lost on purpose when Redis restarts empty (a prune then runs at once) | log pruner (log-prune-turn.ts) | log pruners |
 * | `{p}:bull:{queue}:*` | BullMQ | queues (BullMQ's own layout, prefix `{p}:bull`) | front, gateway, workers (queue/) | workers, gateway (queue/) |
 */

/** The key set for one prefix. */
export interface RedisKeys {
  readonly prefix: string
  readonly codes: string
  readonly codesBuilt: string
  readonly holders: string
  readonly presence: string
  readonly presenceShards: string
  readonly share: string
  readonly feed: string
  readonly apiKeys: string
  readonly bullPrefix: string
  readonly guilds: string
  readonly guildsFromEnv: string
  readonly deliveryRate: string
  readonly deliveryLease: (category: string) => string
  readonly message: (id: string) => string
  readonly rateLimitPrefix: (route: string) => string
  readonly robloxUser: (name: string) => string
  readonly unknownCodes: (client: string) => string
  readonly unknownCodesHit: (client: string) => string
  readonly idempotency: (jobId: string) => string
  readonly replicaMark: string
  readonly pushSubscriptions: (universe: number) => string
  readonly pushUniverses: string
  readonly pushLease: (universe: number) => string
  readonly pushSent: (universe: number) => string
  readonly pushUniverseRate: (universe: number) => string
  readonly pushRate: string
  readonly usage: (minute: number) => string
  readonly retentionLease: string
  readonly retentionDone: string
}

/** Builds every key for a prefix. */
export function createRedisKeys(prefix: string): RedisKeys {
  return Object.freeze({
    prefix,
    codes: `${prefix}:codes`,
    codesBuilt: `${prefix}:codes:built`,
    holders: `${prefix}:holders`,
    presence: `${prefix}:presence`,
    presenceShards: `${prefix}:presence:shards`,
    share: `${prefix}:share`,
    feed: `${prefix}:feed`,
    apiKeys: `${prefix}:apikeys`,
    bullPrefix: `${prefix}:bull`,
    guilds: `${prefix}:guilds`,
    guildsFromEnv: `${prefix}:guilds:env`,
    deliveryRate: `${prefix}:delivery:rate`,
    deliveryLease: (category: string) => `${prefix}:delivery:lease:${category}`,
    message: (id: string) => `${prefix}:msg:${id}`,
    rateLimitPrefix: (route: string) => `${prefix}:rl:${route}`,
    robloxUser: (name: string) => `${prefix}:roblox:user:${name.toLowerCase()}`,
    unknownCodes: (client: string) => `${prefix}:unknown:${client}`,
    unknownCodesHit: (client: string) => `${prefix}:unknown:${client}:hit`,
    idempotency: (jobId: string) => `${prefix}:idem:${jobId}`,
    replicaMark: `${prefix}:replica:mark`,
    pushSubscriptions: (universe: number) => `${prefix}:push:subs:${universe}`,
    pushUniverses: `${prefix}:push:universes`,
    pushLease: (universe: number) => `${prefix}:push:lease:${universe}`,
    pushSent: (universe: number) => `${prefix}:push:sent:${universe}`,
    pushUniverseRate: (universe: number) => `${prefix}:push:rate:${universe}`,
    pushRate: `${prefix}:push:rate`,
    usage: (minute: number) => `${prefix}:usage:${minute}`,
    retentionLease: `${prefix}:retention:lease`,
    retentionDone: `${prefix}:retention:done`,
  })
}
