/** Runs a MULTI and fails like a single command would: ioredis resolves EXEC with per-command errors inside. */
import type { ChainableCommander } from 'ioredis'

/** Executes `tx`; rejects with the first command's error (or when the transaction was aborted); returns the replies. */
export async function execAll(tx: ChainableCommander): Promise<unknown[]> {
  const replies = await tx.exec()
  if (replies === null) throw new Error('Redis transaction aborted')
  const out: unknown[] = []
  for (const [err, reply] of replies) {
    if (err !== null) throw err
    out.push(reply)
  }
  return out
}
