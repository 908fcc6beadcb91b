/** Unbound codes issued through the real code service, for the benchmarks' bind runs and the fault drills' worlds. */
import type { CodeService } from '../../src/codes/code-service.js'
import { pool } from './pool.js'

/** Issues `count` codes for chat users `base`, `base + 1`, ... and returns them unbound. */
export async function issueFresh(codes: CodeService, count: number, base: bigint): Promise<string[]> {
  return pool([...Array(count).keys()], 8, async (i) => (await codes.issue(String(base + BigInt(i)))).code.code)
}
