/**
 * The one admission of codes, for callbacks, rpc, SSE and WebSocket subscriptions: a codes path read with the route's
 * maximum, the codes looked up, and the client's unknown-code budget spent on the unknown ones. Only requests naming
 * unknown codes pay the budget's round trip: polling linked codes costs what it always did.
 */
import { parseCodesPath } from '../codes/model/codes-path.js'
import { unknownCodeBudgetMessage, unknownCodes } from '../codes/model/unknown-codes.js'
import type { CodeView } from '../presence/model/blocks.js'
import type { CodeLookup } from '../redis/code-lookup.js'
import type { UnknownCodeBudget } from '../redis/unknown-code-budget.js'
import { ErrorCode } from './model/error-codes.js'
import { textError } from './respond.js'
import type { BudgetRefusal, CodesAdmission } from './route-kit.js'

/** What the admission reads and spends. */
export interface AdmissionDeps {
  lookup: CodeLookup
  /** Absent or null when UNKNOWN_CODE_BUDGET is 0. */
  unknownCodeBudget?: UnknownCodeBudget | null
}

/** Creates the admission over the front's lookup and budget. */
export function createAdmission(deps: AdmissionDeps): CodesAdmission {
  const { lookup } = deps
  const budget = deps.unknownCodeBudget ?? null

  const spend = async (client: string, codes: readonly string[], views: readonly CodeView[]): Promise<BudgetRefusal | null> => {
    if (budget === null) return null
    const unknown = unknownCodes(codes, views)
    if (unknown.length === 0) return null
    const spent = await budget(client, unknown)
    if (spent.ok) return null
    const message = unknownCodeBudgetMessage(spent.budget, spent.windowSeconds, spent.retryAfterSeconds)
    return {
      code: ErrorCode.UnknownCodeBudget,
      status: 429,
      message,
      retryAfterSeconds: spent.retryAfterSeconds,
      firstRefusal: spent.firstRefusal,
      reply: textError(429, ErrorCode.UnknownCodeBudget, message, { 'retry-after': String(spent.retryAfterSeconds) }),
    }
  }

  return {
    parse(raw, maxCodes, perWhat = 'request') {
      const parsed = parseCodesPath(raw, maxCodes)
      if (parsed.ok) return { ok: true, codes: parsed.codes }
      if (parsed.reason === 'no_usable_code') return { ok: false, reply: textError(400, ErrorCode.NoUsableCode, parsed.message) }
      const message = perWhat === 'request' ? parsed.message : `too many codes: at most ${maxCodes} per ${perWhat}`
      return { ok: false, reply: textError(400, ErrorCode.TooManyCodes, message) }
    },
    async admitViews(client, codes) {
      const views = await lookup(codes)
      const refusal = await spend(client, codes, views)
      return refusal === null ? { ok: true, views } : { ok: false, refusal }
    },
    async admit(client, codes) {
      if (budget === null) return null
      return spend(client, codes, await lookup(codes))
    },
  }
}
