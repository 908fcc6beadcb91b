/**
 * The stream routes (docs/api.md "Streams"): `GET /api/v1/stream/{codes}` as server-sent events and `GET /api/v1/ws`
 * as a WebSocket. Both are public like callbacks and carry the same blocks; the stream hub (src/streams) tells them
 * when a block changed. Limits: open streams per client (per front worker), codes per stream, subscriptions per
 * front worker, the unknown-code budget, and a cap on bytes waiting to be sent (a client that stops reading gets a
 * last `slow_consumer` message and is cut off, so it cannot grow the front's memory).
 */
import { randomUUID } from 'node:crypto'
import type HyperExpress from 'hyper-express'
import type { Request, Response, Websocket } from 'hyper-express'
import * as v from 'valibot'
import type { Config } from '../config.js'
import { clientKey } from './model/client-key.js'
import { parseCodesPath } from '../codes/model/codes-path.js'
import { ErrorCode } from './model/error-codes.js'
import {
  MAX_BAD_MESSAGES,
  parseStreamView,
  readMessageCodes,
  SSE_HEARTBEAT,
  sseBlock,
  sseError,
  streamOpenRefusal,
  subscriptionRefusal,
  wsAck,
  wsBlock,
  wsError,
  type StreamView,
} from '../streams/model/stream-protocol.js'
import { unknownCodeBudgetMessage, unknownCodes } from '../codes/model/unknown-codes.js'
import type { Logger } from '../lib/logger.js'
import type { CodeLookup } from '../redis/code-lookup.js'
import type { UnknownCodeBudget } from '../redis/unknown-code-budget.js'
import { StreamMessageSchema } from '../streams/model/stream-message.js'
import type { StreamHub, StreamSink } from '../streams/stream-hub.js'
import type { ClientIpResolver } from './client-ip.js'
import { send, targetTooLong, textError, type Reply } from './respond.js'

/** The two kinds of stream (the label `kind` of the stream metrics). */
export type StreamKind = 'sse' | 'ws'

/** Hooks for metrics; every method is optional. */
export interface StreamObserver {
  opened?(kind: StreamKind): void
  closed?(kind: StreamKind): void
  /** Blocks sent on streams. */
  sent?(kind: StreamKind, count: number): void
  slowConsumerCut?(kind: StreamKind): void
  /** A stream or a subscription refused, by error code. */
  refused?(kind: StreamKind, reason: ErrorCode): void
}

/** What the stream routes need; built by the front's runtime. */
export interface StreamDeps {
  config: Config
  log: Logger
  hub: StreamHub
  lookup: CodeLookup
  unknownCodeBudget?: UnknownCodeBudget | null
  clientIp: ClientIpResolver
  observer?: StreamObserver
  /** The callbacks rate limit, applied to each stream opened; null when allowed (from front-app). */
  limited?(client: string): Promise<Reply | null>
  /** Receives the function that closes every open stream (for the shutdown registry). */
  registerClose?(close: () => void): void
}

/** How long a cut-off slow consumer may still read its last message before its connection is closed. */
export const SLOW_CONSUMER_GRACE_MS = 5000

/** Messages a WebSocket client may have waiting to be handled before it is disconnected. */
const MAX_QUEUED_MESSAGES = 64

/** Registers the routes on `app`; returns a function that closes every open stream. */
export function registerStreamRoutes(app: HyperExpress.Server, deps: StreamDeps): () => void {
  const { config, log, hub, observer } = deps
  const perClient = new Map<string, number>()
  let workerSubscriptions = 0
  const open = new Set<{ heartbeat(): void; end(): void }>()

  const heartbeat = setInterval(() => {
    for (const stream of open) stream.heartbeat()
  }, config.streamHeartbeatMs)
  heartbeat.unref()

  const take = (client: string) => perClient.set(client, (perClient.get(client) ?? 0) + 1)
  const release = (client: string) => {
    const left = (perClient.get(client) ?? 1) - 1
    if (left <= 0) perClient.delete(client)
    else perClient.set(client, left)
  }

  /** Reads the views of `codes` and spends the unknown-code budget; an error (code, message, retry) or null. */
  const admit = async (client: string, codes: readonly string[]): Promise<{ code: ErrorCode; status: number; message: string; retryAfter?: number } | null> => {
    const budget = deps.unknownCodeBudget
    if (budget == null) return null
    const unknown = unknownCodes(codes, await deps.lookup(codes))
    if (unknown.length === 0) return null
    const spent = await budget(client, unknown)
    if (spent.ok) return null
    return {
      code: ErrorCode.UnknownCodeBudget,
      status: 429,
      message: unknownCodeBudgetMessage(spent.budget, spent.windowSeconds, spent.retryAfterSeconds),
      retryAfter: spent.retryAfterSeconds,
    }
  }

  const refuse = (res: Response, kind: StreamKind, requestId: string, reply: Reply) => {
    if (reply.error !== undefined) observer?.refused?.(kind, reply.error)
    send(res, reply, requestId)
  }

  app.get('/api/v1/stream/:codes', async (req: Request, res: Response) => {
    // uWS request data is only valid synchronously: read everything before the first await.
    const ip = deps.clientIp(req.ip, req.headers['x-forwarded-for'])
    const client = clientKey(ip)
    const raw = req.path_parameters.codes ?? ''
    const view = parseStreamView(req.query_parameters.view)
    const requestId = randomUUID()
    const tooLong = targetTooLong(req, true)
    if (tooLong !== null) return refuse(res, 'sse', requestId, tooLong)
    try {
      const limited = (await deps.limited?.(client)) ?? null
      if (limited !== null) return refuse(res, 'sse', requestId, limited)
      if (view === undefined) return refuse(res, 'sse', requestId, textError(400, ErrorCode.InvalidQuery, 'view must be callbacks or rpc'))
      const parsed = parseCodesPath(raw, config.streamMaxCodes)
      if (!parsed.ok) {
        const code = parsed.reason === 'too_many_codes' ? ErrorCode.TooManyCodes : ErrorCode.NoUsableCode
        const message = parsed.reason === 'too_many_codes' ? `too many codes: at most ${config.streamMaxCodes} per stream` : parsed.message
        return refuse(res, 'sse', requestId, textError(400, code, message))
      }
      const opening = streamOpenRefusal(perClient.get(client) ?? 0, config.streamMaxPerClient)
        ?? subscriptionRefusal(0, parsed.codes.length, config.streamMaxCodes, workerSubscriptions, config.streamMaxSubscriptions)
      if (opening !== null) return refuse(res, 'sse', requestId, textError(opening.status, opening.code, opening.message))
      const budget = await admit(client, parsed.codes)
      if (budget !== null) {
        return refuse(res, 'sse', requestId, textError(budget.status, budget.code, budget.message, { 'retry-after': String(budget.retryAfter) }))
      }
      if (res.completed) return
      openSse(res, client, view, parsed.codes, requestId)
    } catch (err) {
      log.error({ err, reqId: requestId, route: 'stream' }, 'stream could not open')
      refuse(res, 'sse', requestId, textError(503, ErrorCode.ServiceUnavailable, 'temporarily unavailable; retry shortly', { 'retry-after': '5' }))
    }
  })

  const openSse = (res: Response, client: string, view: StreamView, codes: string[], requestId: string) => {
    take(client)
    workerSubscriptions += codes.length
    observer?.opened?.('sse')
    let buffered = 0
    let seq = 0
    let cut = false
    let ended = false
    const write = (chunk: string) => {
      const size = Buffer.byteLength(chunk)
      buffered += size
      res.write(chunk, () => {
        buffered -= size
      })
    }
    const sink: StreamSink = {
      view,
      push(_code, block) {
        if (cut || ended) return
        write(sseBlock(++seq, block))
        observer?.sent?.('sse', 1)
        if (buffered > config.streamMaxBufferedBytes) cutOff()
      },
    }
    const stream = {
      heartbeat() {
        if (!cut && !ended && buffered <= config.streamMaxBufferedBytes) write(SSE_HEARTBEAT)
      },
      end() {
        if (!res.completed) res.close()
      },
    }
    const cutOff = () => {
      cut = true
      observer?.slowConsumerCut?.('sse')
      log.info({ reqId: requestId, client, buffered }, 'stream cut off: slow consumer')
      write(sseError(ErrorCode.SlowConsumer, `this stream was closed: more than ${config.streamMaxBufferedBytes} bytes were waiting to be sent (the client stopped reading); reconnect`))
      hub.unsubscribe(sink, codes)
      res.end()
      setTimeout(() => stream.end(), SLOW_CONSUMER_GRACE_MS).unref()
    }
    const cleanup = () => {
      if (ended) return
      ended = true
      open.delete(stream)
      hub.unsubscribe(sink, codes)
      workerSubscriptions -= codes.length
      release(client)
      observer?.closed?.('sse')
    }
    res.status(200)
    res.header('content-type', 'text/event-stream; charset=utf-8')
    res.header('cache-control', 'no-store')
    res.header('x-accel-buffering', 'no')
    res.header('x-request-id', requestId)
    res.once('close', cleanup)
    open.add(stream)
    // Sends the headers at once, so the client knows the stream is open before the first block.
    write(': open\n\n')
    hub.subscribe(sink, codes).catch((err: unknown) => log.error({ err, reqId: requestId }, 'stream subscribe failed'))
  }

  interface WsContext {
    client: string
    view: StreamView
    requestId: string
  }

  app.upgrade('/api/v1/ws', async (req: Request, res: Response) => {
    const ip = deps.clientIp(req.ip, req.headers['x-forwarded-for'])
    const client = clientKey(ip)
    const view = parseStreamView(req.query_parameters.view)
    const requestId = randomUUID()
    const tooLong = targetTooLong(req, true)
    if (tooLong !== null) return refuse(res, 'ws', requestId, tooLong)
    try {
      const limited = (await deps.limited?.(client)) ?? null
      if (limited !== null) return refuse(res, 'ws', requestId, limited)
      if (view === undefined) return refuse(res, 'ws', requestId, textError(400, ErrorCode.InvalidQuery, 'view must be callbacks or rpc'))
      const opening = streamOpenRefusal(perClient.get(client) ?? 0, config.streamMaxPerClient)
      if (opening !== null) return refuse(res, 'ws', requestId, textError(opening.status, opening.code, opening.message))
      if (res.completed) return
      // Counted now, not on open, so a burst of upgrades cannot pass the limit before any of them opened.
      take(client)
      res.upgrade({ client, view, requestId } satisfies WsContext)
    } catch (err) {
      log.error({ err, reqId: requestId, route: 'ws' }, 'stream could not open')
      refuse(res, 'ws', requestId, textError(503, ErrorCode.ServiceUnavailable, 'temporarily unavailable; retry shortly', { 'retry-after': '5' }))
    }
  })

  // uWS closes a connection that sends nothing for idle_timeout seconds; a pong counts, so a client answering the
  // heartbeat pings stays (idle_timeout must be a multiple of 4, at most 960).
  const idleSeconds = Math.min(960, Math.max(8, Math.ceil((3 * config.streamHeartbeatMs) / 4000) * 4))
  app.ws(
    '/api/v1/ws',
    {
      message_type: 'String',
      idle_timeout: idleSeconds,
      max_payload_length: 64 * 1024,
      // uWS drops a message sent past this; our cap is checked after each send, so a stream holds at most the cap
      // plus one message (a block) when it is cut off, and the last `slow_consumer` message must still fit.
      max_backpressure: 2 * config.streamMaxBufferedBytes + 1024 * 1024,
    },
    (ws: Websocket) => {
      const { client, view, requestId } = ws.context as unknown as WsContext
      const codes = new Set<string>()
      let ended = false
      let cut = false
      let bad = 0
      let queued = 0
      let chain = Promise.resolve()
      observer?.opened?.('ws')

      const sendText = (text: string) => {
        if (!ended && !cut) ws.send(text)
      }
      const sink: StreamSink = {
        view,
        push(code, block) {
          if (ended || cut) return
          ws.send(wsBlock(code, block))
          observer?.sent?.('ws', 1)
          if (ws.buffered > config.streamMaxBufferedBytes) cutOff()
        },
      }
      // The close frame waits until what is buffered (the last message included) has been sent, for at most
      // SLOW_CONSUMER_GRACE_MS as an SSE stream does: uWS drops what is still buffered a few seconds after a close, so
      // closing at once would lose the `slow_consumer` message for a client that was only slow.
      const cutOff = () => {
        cut = true
        hub.unsubscribe(sink, [...codes])
        observer?.slowConsumerCut?.('ws')
        log.info({ reqId: requestId, client, buffered: ws.buffered }, 'stream cut off: slow consumer')
        ws.send(wsError(ErrorCode.SlowConsumer, `this stream was closed: more than ${config.streamMaxBufferedBytes} bytes were waiting to be sent (the client stopped reading); reconnect`))
        const closeCut = () => {
          clearTimeout(grace)
          if (!ended) close(1008, ErrorCode.SlowConsumer)
        }
        const grace = setTimeout(closeCut, SLOW_CONSUMER_GRACE_MS)
        grace.unref()
        ws.on('drain', () => {
          if (ws.buffered === 0) closeCut()
        })
      }
      const close = (status: number, reason: string) => {
        cleanup()
        ws.close(status, reason)
      }
      const cleanup = () => {
        if (ended) return
        ended = true
        open.delete(stream)
        hub.unsubscribe(sink, [...codes])
        workerSubscriptions -= codes.size
        codes.clear()
        release(client)
        observer?.closed?.('ws')
      }
      const stream = {
        heartbeat() {
          if (!ended && !cut) ws.ping()
        },
        end() {
          close(1001, 'server closing')
        },
      }
      open.add(stream)

      const fail = (code: ErrorCode, message: string, extra?: readonly string[]) => {
        sendText(wsError(code, message, extra))
      }
      const abuse = (code: ErrorCode, message: string) => {
        fail(code, message)
        if (++bad >= MAX_BAD_MESSAGES) {
          fail(ErrorCode.ValidationFailed, `too many malformed messages (${MAX_BAD_MESSAGES}); closing`)
          close(1008, 'too many malformed messages')
        }
      }

      const handle = async (text: string) => {
        if (ended || cut) return
        let value: unknown
        try {
          value = JSON.parse(text)
        } catch {
          return abuse(ErrorCode.InvalidJson, 'the message is not valid JSON')
        }
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return abuse(ErrorCode.ValidationFailed, 'invalid message: must be a JSON object')
        const parsed = v.safeParse(StreamMessageSchema, value, { abortPipeEarly: true })
        if (!parsed.success) {
          const issue = parsed.issues[0]
          return abuse(ErrorCode.ValidationFailed, `invalid message: ${v.getDotPath(issue) ?? 'message'} ${issue.message}`)
        }
        const read = readMessageCodes(parsed.output.codes)
        if (!read.ok) return abuse(ErrorCode.InvalidCode, 'invalid code: codes are exactly 4 characters, each A-Z or 0-9; nothing was changed')
        if (parsed.output.op === 'unsubscribe') {
          const leaving = read.codes.filter((c) => codes.has(c))
          for (const c of leaving) codes.delete(c)
          workerSubscriptions -= leaving.length
          hub.unsubscribe(sink, leaving)
          return sendText(wsAck('unsubscribed', read.codes))
        }
        const adding = read.codes.filter((c) => !codes.has(c))
        const refusal = subscriptionRefusal(codes.size, adding.length, config.streamMaxCodes, workerSubscriptions, config.streamMaxSubscriptions)
        if (refusal !== null) {
          observer?.refused?.('ws', refusal.code)
          return fail(refusal.code, `${refusal.message}; nothing was subscribed`, adding)
        }
        // Reserved before the awaits, so a later message counts them.
        for (const c of adding) codes.add(c)
        workerSubscriptions += adding.length
        const unreserve = () => {
          for (const c of adding) codes.delete(c)
          workerSubscriptions -= adding.length
        }
        try {
          const budget = adding.length === 0 ? null : await admit(client, adding)
          if (budget !== null) {
            unreserve()
            observer?.refused?.('ws', budget.code)
            return fail(budget.code, `${budget.message}; nothing was subscribed`, adding)
          }
        } catch (err) {
          unreserve()
          log.error({ err, reqId: requestId }, 'stream subscribe failed')
          return fail(ErrorCode.ServiceUnavailable, 'temporarily unavailable; retry shortly; nothing was subscribed', adding)
        }
        if (ended || cut) return unreserve()
        await hub.subscribe(sink, adding)
        sendText(wsAck('subscribed', read.codes))
      }

      ws.on('message', (text: string) => {
        if (ended || cut) return
        if (++queued > MAX_QUEUED_MESSAGES) {
          fail(ErrorCode.RateLimited, `too many messages waiting (${MAX_QUEUED_MESSAGES}); closing`)
          return close(1008, 'too many messages')
        }
        chain = chain
          .then(() => handle(text))
          .catch((err: unknown) => log.error({ err, reqId: requestId }, 'stream message failed'))
          .finally(() => {
            queued--
          })
      })
      ws.on('close', cleanup)
    },
  )

  const closeAll = () => {
    clearInterval(heartbeat)
    for (const stream of [...open]) stream.end()
  }
  deps.registerClose?.(closeAll)
  return closeAll
}
