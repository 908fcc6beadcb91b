/**
 * What `presence_link_build_info{version, commit, node}` reports. The version and commit come from
 * `build-info.json`, written next to the compiled `src/` by the build (scripts/write-build-info.mjs); running from
 * the TypeScript source (tests), the version is read from package.json and the commit is `unknown`. Read once per
 * process, at registry creation; git never runs in a running process.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The labels of the build info gauge. */
export interface BuildInfo {
  version: string
  commit: string
  node: string
}

const UNKNOWN = 'unknown'

/** A label value from the build file: short printable text only, else `unknown`. */
function clean(value: unknown): string {
  return typeof value === 'string' && /^[0-9A-Za-z.+-]{1,64}$/.test(value) ? value : UNKNOWN
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
  } catch {
    return undefined
  }
}

/** The package.json version, from the nearest ancestor directory holding one. */
function packageVersion(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json')
    if (existsSync(file)) return clean(readJson(file)?.version)
    if (dirname(dir) === dir) return UNKNOWN
  }
}

/** The build recorded in `file` (a build-info.json), else the package.json version above `from` and commit `unknown`. */
export function readBuildInfo(file: string, from: string): BuildInfo {
  const built = readJson(file)
  return {
    version: built === undefined ? packageVersion(from) : clean(built.version),
    commit: clean(built?.commit),
    node: process.version,
  }
}

let cached: BuildInfo | undefined

/** This process's build: version, commit (`unknown` when not recorded) and Node version; read once. */
export function buildInfo(): BuildInfo {
  const here = dirname(fileURLToPath(import.meta.url))
  cached ??= readBuildInfo(join(here, '..', 'build-info.json'), here)
  return cached
}
