/** The one way a job says it can never succeed; the queue room turns it into a failure without retries. */

/** A job failure that retrying cannot fix (an invalid payload, a refused input). */
export class PermanentFailure extends Error {
  override readonly name = 'PermanentFailure'
}
