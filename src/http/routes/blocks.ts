/**
 * `GET /api/v1/callbacks/{codes}` and `GET /api/v1/rpc/{codes}` (public, plain text): one block per code, in request
 * order, with an ETag for conditional polling. The codes pass the shared admission (admission.ts). The last answer per
 * path is remembered, so a poll whose views did not change (the view contract, presence/model/near-cache.ts) skips
 * parsing, rendering, hashing and encoding: the answer is kept as UTF-8 bytes, which uWS sends without converting.
 */
import { hash } from 'node:crypto'
import type { Config } from '../../config.js'
import { NO_USABLE_CODE_MESSAGE } from '../../codes/model/codes-path.js'
import { renderCallbackBlock, renderRpcBlock, type CodeView } from '../../presence/model/blocks.js'
import { sameViews } from '../../presence/model/near-cache.js'
import type { FrontObserver } from '../front-observer.js'
import { ErrorCode } from '../model/error-codes.js'
import { etagOf, ifNoneMatchHits } from '../model/etag.js'
import { textError, type Reply } from '../respond.js'
import type { HttpApp, HttpRequest, RequestCtx, RouteKit } from '../route-kit.js'

/** Callbacks/rpc answers remembered per route (by raw path), to skip parsing, rendering, hashing and encoding when unchanged. */
export const REMEMBERED_ANSWERS = 256

/** What the blocks routes need besides the kit. */
export interface BlocksDeps {
  config: Config
  observer?: FrontObserver
}

type BlocksRoute = 'callbacks' | 'rpc'

/** Registers callbacks and rpc, with and without codes. */
export function register(app: HttpApp, kit: RouteKit, deps: BlocksDeps): void {
  app.get('/api/v1/callbacks/:codes', 'callbacks', answerBlocks('callbacks', renderCallbackBlock, kit, deps), { text: true })
  app.get('/api/v1/rpc/:codes', 'rpc', answerBlocks('rpc', renderRpcBlock, kit, deps), { text: true })
  for (const route of ['callbacks', 'rpc'] as const) {
    const noCodes = async (_req: HttpRequest, ctx: RequestCtx): Promise<Reply> =>
      (await kit.limited(route, ctx)) ?? textError(400, ErrorCode.NoUsableCode, NO_USABLE_CODE_MESSAGE)
    app.get(`/api/v1/${route}`, route, noCodes, { text: true })
    app.get(`/api/v1/${route}/`, route, noCodes, { text: true })
  }
}

interface Answer {
  codes: readonly string[]
  views: readonly CodeView[]
  /** The blocks as UTF-8: encoded once, however many times they are sent (uWS copies a string's bytes every time). */
  body: Buffer
  etag: string
}

function answerBlocks(route: BlocksRoute, render: (code: string, view: CodeView) => string, kit: RouteKit, deps: BlocksDeps) {
  const { config, observer } = deps
  // The last answer per raw path, its codes array passed to the lookup again (the view contract, point 3).
  const remembered = new Map<string, Answer>()
  return async (req: HttpRequest, ctx: RequestCtx): Promise<Reply> => {
    const raw = req.params.codes ?? ''
    const ifNoneMatch = req.headers['if-none-match']
    const rejected = await kit.limited(route, ctx)
    if (rejected !== null) return rejected
    const last = remembered.get(raw)
    let codes: readonly string[]
    if (last !== undefined) codes = last.codes
    else {
      const parsed = kit.admission.parse(raw, config.maxCodesPerRequest)
      if (!parsed.ok) return parsed.reply
      codes = parsed.codes
    }
    observer?.codesPerRequest?.(route, codes.length)
    const admitted = await kit.admission.admitViews(ctx.client, codes)
    if (!admitted.ok) {
      if (admitted.refusal.firstRefusal) observer?.unknownCodeBudgetExhausted?.(route)
      return admitted.refusal.reply
    }
    const { views } = admitted
    let body: Buffer
    let etag: string
    if (last !== undefined && sameViews(last.views, views)) ({ body, etag } = last)
    else {
      let text = ''
      for (let i = 0; i < codes.length; i++) text += render(codes[i]!, views[i]!)
      // Its own memory, not a slice of Node's shared pool: a small remembered answer would keep a whole pool slab alive.
      body = Buffer.allocUnsafeSlow(Buffer.byteLength(text))
      body.write(text)
      // SHA-1 is used as a fast digest of our own output here, not for security: a collision would only cost a 304.
      etag = etagOf(hash('sha1', body, 'base64url'))
      remembered.delete(raw)
      remembered.set(raw, { codes, views, body, etag })
      if (remembered.size > REMEMBERED_ANSWERS) remembered.delete(remembered.keys().next().value as string)
    }
    const headers = { etag, 'cache-control': 'no-cache' }
    if (ifNoneMatchHits(ifNoneMatch, etag)) {
      // hyper-express 6.17 on uWS 20.30 ends a 304 without a declared length with `Content-Length: 9223372036854775808`,
      // and with the 200's length it leaves the connection unfinished (it never closes). A 304 has no body whatever
      // its Content-Length says (RFC 9112 6.3), so 0 is what we declare.
      return { status: 304, type: 'text', body: '', headers: { ...headers, 'content-length': '0' } }
    }
    return { status: 200, type: 'text', body, headers }
  }
}
