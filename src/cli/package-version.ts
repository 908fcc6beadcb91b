/**
 * The version in presence-link's package.json, read at run time. The file sits two folders up from the built CLI
 * (dist/src/cli/ in a checkout, /app/dist/src/cli/ in the Docker image) and one up from the source (src/cli/),
 * so the nearest package.json named presence-link above this module is the one.
 */
import { readFileSync } from 'node:fs'

/** The `version` of the nearest package.json named `presence-link` above `from` (this module by default). */
export function readPackageVersion(from: URL = new URL('.', import.meta.url)): string {
  for (let dir = new URL('.', from); ; dir = new URL('..', dir)) {
    const manifest = readManifest(new URL('package.json', dir))
    if (manifest?.name === 'presence-link' && typeof manifest.version === 'string') return manifest.version
    if (dir.pathname === '/') throw new Error(`no presence-link package.json above ${from.pathname}`)
  }
}

function readManifest(file: URL): { name?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown }
  } catch {
    return undefined
  }
}
