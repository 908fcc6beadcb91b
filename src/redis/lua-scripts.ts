/**
 * The Lua scripts of scripts/*.lua (each documents its KEYS and ARGV in its header), read once from next to this
 * module (`npm run build` copies them, scripts/includes/ too, into dist/) and run as ioredis commands: EVALSHA, with
 * EVAL when Redis lost it. Code shared between scripts lives in scripts/includes/ and is pulled in by a line
 * `--- @include "includes/name"` (BullMQ's form), so the text Redis receives is one complete script.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Redis } from 'ioredis'

/** Number of KEYS each script takes (null: as many as the call passes); the rest of a call's arguments are its ARGV. */
const KEY_COUNT = {
  'api-key-put': 2,
  'code-put': 4,
  'code-remove': 4,
  'hash-delete-if': 1,
  'holder-repair': 2,
  'lease-acquire': 1,
  'lease-renew': 1,
  'lease-release': 1,
  'presence-put': 3,
  'push-forget': 2,
  'push-subscribe': 2,
  'push-subscriptions-read': 1,
  'push-universes': 1,
  'rate-gate-take': 1,
  'rate-limit-spend': null,
  'rate-limit-spend-units': 1,
  'shard-mark': 1,
  'unknown-code-budget': 2,
} satisfies Record<string, number | null>

/** The name of a script under scripts/. */
export type LuaScriptName = keyof typeof KEY_COUNT

const SCRIPTS_DIR = new URL('./scripts/', import.meta.url)

// A whole line, as BullMQ writes it: the path is relative to the including file, without `.lua`.
const INCLUDE_LINE = /^---[ \t]*@include[ \t]+"([^"]+)"[ \t]*$/gm

/**
 * Reads `dir`/`name`.lua with each include line replaced by the included file (itself expanded; a file included
 * twice is emitted once). A missing or circular include throws, naming the script, the line and the file.
 */
export function readLuaScript(dir: URL, name: string): string {
  const file = new URL(`${name}.lua`, dir)
  return expandIncludes(file, readFileSync(file, 'utf8'), new Set(), [file.href])
}

function expandIncludes(file: URL, source: string, emitted: Set<string>, stack: readonly string[]): string {
  return source.replace(INCLUDE_LINE, (_line, reference: string, offset: number) => {
    const included = new URL(`${reference}.lua`, file)
    const where = `${fileURLToPath(file)}:${source.slice(0, offset).split('\n').length}`
    if (stack.includes(included.href)) throw new Error(`${where}: circular Lua include "${reference}"`)
    if (emitted.has(included.href)) return ''
    emitted.add(included.href)
    let text: string
    try {
      text = readFileSync(included, 'utf8')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      throw new Error(`${where}: Lua include "${reference}" not found (${fileURLToPath(included)})`)
    }
    return expandIncludes(included, text, emitted, [...stack, included.href]).replace(/\n$/, '')
  })
}

const sources = new Map<LuaScriptName, string>()

/** The source of a script, includes expanded (also for a MULTI, where ioredis cannot fall back from EVALSHA to EVAL). */
export function luaSource(name: LuaScriptName): string {
  let source = sources.get(name)
  if (source === undefined) {
    source = readLuaScript(SCRIPTS_DIR, name)
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
  const keyCount: number | null = KEY_COUNT[name]
  // Without numberOfKeys, ioredis takes the key count as the call's first argument.
  if (typeof commands[command] !== 'function') redis.defineCommand(command, keyCount === null ? { lua: luaSource(name) } : { numberOfKeys: keyCount, lua: luaSource(name) })
  const run = commands[command]!
  return keyCount === null ? (keys, args) => run.call(redis, keys.length, ...keys, ...args) : (keys, args) => run.call(redis, ...keys, ...args)
}
