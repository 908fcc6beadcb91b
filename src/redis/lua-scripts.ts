/**
 * The Lua scripts of scripts/*.lua (each documents its KEYS and ARGV in its header), read once from next to this
 * module (`npm run build` copies them into dist/) and run as ioredis commands: EVALSHA, with EVAL when Redis lost it.
 */
import { readFileSync } from 'node:fs'
import type { Redis } from 'ioredis'

/** Number of KEYS each script takes; the rest of a call's arguments are its ARGV. */
const KEY_COUNT = {
  'api-key-put': 1,
  'code-put': 3,
  'code-remove': 3,
  'hash-delete-if': 1,
  'holder-repair': 2,
  'lease-acquire': 1,
  'lease-renew': 1,
  'lease-release': 1,
  'rate-gate-take': 1,
  'shard-mark': 1,
  'unknown-code-budget': 2,
} as const

/** The name of a script under scripts/. */
export type LuaScriptName = keyof typeof KEY_COUNT

const sources = new Map<LuaScriptName, string>()

/** The source of a script (for a MULTI, where ioredis cannot fall back from EVALSHA to EVAL). */
export function luaSource(name: LuaScriptName): string {
  let source = sources.get(name)
  if (source === undefined) {
    source = readFileSync(new URL(`./scripts/${name}.lua`, import.meta.url), 'utf8')
    sources.set(name, source)
  }
  return source
}

/** Runs one script with its KEYS and ARGV. */
export type LuaCommand = (keys: readonly string[], args: ReadonlyArray<string | number>) => Promise<unknown>

/** Defines a script on a connection (once per connection) and returns the function that runs it. */
export function luaCommand(redis: Redis, name: LuaScriptName): LuaCommand {
  const command = `presenceLink_${name.replace(/-/g, '_')}`
  const commands = redis as unknown as Record<string, (...args: Array<string | number>) => Promise<unknown>>
  if (typeof commands[command] !== 'function') redis.defineCommand(command, { numberOfKeys: KEY_COUNT[name], lua: luaSource(name) })
  const run = commands[command]!
  return (keys, args) => run.call(redis, ...keys, ...args)
}
