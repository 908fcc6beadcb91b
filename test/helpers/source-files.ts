/**
 * The repository's TypeScript sources, for the checks that read every one of them (test/system/boundary.test.ts,
 * test/system/function-length.test.ts).
 */
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** Every `.ts` file under the repository folder `dir`, repository-relative with forward slashes (`src/x/y.ts`). */
export function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}
