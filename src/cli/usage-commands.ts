/**
 * `presence-link keys usage [--since 1h|24h]`: requests per API key, route and status over the last hour or day, from
 * the front's per-minute counters in Redis (redis/key-usage.ts), so it works without Prometheus. A 429 is counted for
 * the key the refused request presented.
 */
import { minuteOf, readUsage, type UsageCount } from '../redis/key-usage.js'
import type { ProcessContext } from '../runtime/process-context.js'
import { openCliRedis } from './cli-redis.js'
import { usage, type CommandOutput } from './command.js'

/** The windows `--since` takes, in minutes. */
export const USAGE_WINDOWS: Readonly<Record<string, number>> = Object.freeze({ '1h': 60, '24h': 1440 })

/** The table of `keys usage`: one line per key and route, its total and the count of each status; keys alphabetical. */
export function describeUsage(counts: readonly UsageCount[], since: string): string[] {
  if (counts.length === 0) return [`no keyed requests in the last ${since}`]
  const rows = new Map<string, { key: string; route: string; total: number; statuses: Map<string, number> }>()
  for (const c of counts) {
    const id = `${c.key}|${c.route}`
    let row = rows.get(id)
    if (row === undefined) rows.set(id, (row = { key: c.key, route: c.route, total: 0, statuses: new Map() }))
    row.total += c.count
    row.statuses.set(c.status, (row.statuses.get(c.status) ?? 0) + c.count)
  }
  const sorted = [...rows.values()].sort((a, b) => (a.key === b.key ? (a.route < b.route ? -1 : 1) : a.key < b.key ? -1 : 1))
  const lines = [`key\troute\trequests\tby status (last ${since})`]
  for (const row of sorted) {
    const statuses = [...row.statuses].sort(([a], [b]) => (a < b ? -1 : 1)).map(([status, n]) => `${status}: ${n}`)
    lines.push(`${row.key}\t${row.route}\t${row.total}\t${statuses.join(', ')}`)
  }
  return lines
}

/** `presence-link keys usage [--since 1h|24h]`. */
export async function keysUsageCommand(ctx: ProcessContext, since: string | undefined, now = Date.now()): Promise<CommandOutput> {
  const window = since ?? '1h'
  const minutes = USAGE_WINDOWS[window]
  if (minutes === undefined) return usage('keys usage takes --since 1h or --since 24h')
  const redis = await openCliRedis(ctx)
  const to = minuteOf(now)
  return { lines: describeUsage(await readUsage(redis, ctx.keys, to - minutes + 1, to), window), exitCode: 0 }
}
