/** Polls `check` until it is true, or throws after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000, everyMs = 100): Promise<void> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    if (await check().catch(() => false)) return
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
  throw new Error(`timed out waiting for ${what}`)
}
