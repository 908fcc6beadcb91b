/**
 * `GET /api/v1/ws` (docs/api.md "Streams"): a WebSocket on which a client subscribes to codes and unsubscribes, and
 * gets the same blocks as callbacks (or rpc, with `?view=rpc`) as they change. Its opening shares the checks and counts
 * of the SSE route (stream-opening.ts); each subscription passes the same subscription limits and admission of codes.
 * A plain GET without Upgrade gets 426. A client that stops reading is cut off with a last `slow_consumer` message.
 */
import * as v from 'valibot'
import { MAX_BAD_MESSAGES, readMessageCodes, wsAck, wsBlock, wsError, type StreamView } from '../../streams/model/stream-protocol.js'
import { StreamMessageSchema } from '../../streams/model/stream-message.js'
import type { StreamSink } from '../../streams/stream-hub.js'
import { ErrorCode } from '../model/error-codes.js'
import { jsonError } from '../respond.js'
import type { HttpApp, RouteKit, WebSocketConnection } from '../route-kit.js'
import { slowConsumerGrace, type StreamOpening } from '../stream-opening.js'

/** Messages a WebSocket client may have waiting to be handled before it is disconnected. */
const MAX_QUEUED_MESSAGES = 64

interface WsContext {
  client: string
  view: StreamView
  requestId: string
}

/** Registers the 426 answer to a plain GET, and with streams (`opening`) the WebSocket route itself. */
export function register(app: HttpApp, kit: RouteKit, deps: { opening?: StreamOpening }): void {
  const { opening } = deps
  if (opening !== undefined) {
    const { config } = opening
    // uWS closes a connection that sends nothing for idle_timeout seconds; a pong counts, so a client answering the
    // heartbeat pings stays (idle_timeout must be a multiple of 4, at most 960).
    const idleSeconds = Math.min(960, Math.max(8, Math.ceil((3 * config.streamHeartbeatMs) / 4000) * 4))
    app.webSocket<WsContext>(
      '/api/v1/ws',
      {
        route: 'ws',
        refused: (reply) => opening.refused('ws', reply),
        idleSeconds,
        maxPayloadBytes: 64 * 1024,
        // uWS drops a message sent past this; our cap is checked after each send, so a stream holds at most the cap
        // plus one message (a block) when it is cut off, and the last `slow_consumer` message must still fit.
        maxBackpressureBytes: 2 * config.streamMaxBufferedBytes + 1024 * 1024,
      },
      async (req, ctx) => {
        const checked = await opening.check(req, ctx)
        if ('status' in checked) return checked
        const { client, requestId } = ctx
        return {
          accept() {
            // Counted now, not on open, so a burst of upgrades cannot pass the limit before any of them opened.
            opening.take(client)
            return { client, view: checked.view, requestId }
          },
        }
      },
      (ws, context) => follow(opening, kit, ws, context),
    )
  }

  // A plain GET of the WebSocket route (no Upgrade) would otherwise fall through to 404.
  app.get('/api/v1/ws', 'ws', async () =>
    jsonError(426, ErrorCode.UpgradeRequired, 'this is a WebSocket endpoint: connect with Upgrade: websocket (or use GET /api/v1/stream/{codes} for server-sent events)', {}, {
      upgrade: 'websocket',
      connection: 'Upgrade',
    }),
  )
}

/** Serves one connection: its subscriptions, its messages in order, and its end. */
function follow(opening: StreamOpening, kit: RouteKit, ws: WebSocketConnection, context: WsContext): void {
  const { config, hub, log, observer } = opening
  const { client, view, requestId } = context
  const codes = new Set<string>()
  let ended = false
  let cut = false
  let bad = 0
  let queued = 0
  let chain = Promise.resolve()

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
  // The close frame waits until what is buffered (the last message included) has been sent, while the client reads
  // (slowConsumerGrace), as an SSE stream does: uWS drops what is still buffered a few seconds after a close, so
  // closing at once would lose the `slow_consumer` message for a client that was only slow.
  const cutOff = () => {
    cut = true
    hub.unsubscribe(sink, [...codes])
    observer?.slowConsumerCut?.('ws')
    log.info({ reqId: requestId, client, buffered: ws.buffered }, 'stream cut off: slow consumer')
    ws.send(wsError(ErrorCode.SlowConsumer, opening.slowConsumerMessage()))
    const closeCut = () => {
      grace.stop()
      if (!ended) close(1008, ErrorCode.SlowConsumer)
    }
    const grace = slowConsumerGrace(closeCut)
    ws.on('drain', () => {
      if (ws.buffered === 0) closeCut()
      else grace.progress()
    })
  }
  const close = (status: number, reason: string) => {
    cleanup()
    ws.close(status, reason)
  }
  const cleanup = () => {
    if (ended) return
    ended = true
    hub.unsubscribe(sink, [...codes])
    opening.closed('ws', client, stream, codes.size)
    codes.clear()
  }
  const stream = {
    heartbeat() {
      if (!ended && !cut) ws.ping()
    },
    end() {
      close(1001, 'server closing')
    },
  }
  opening.opened('ws', stream)

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
  const handle = messageHandler(opening, kit, { client, requestId, sink, codes, fail, abuse, sendText, gone: () => ended || cut })

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
}

/** What one connection's message handler works on. */
interface Connection {
  client: string
  requestId: string
  sink: StreamSink
  /** The codes subscribed (and those being subscribed). */
  codes: Set<string>
  fail(code: ErrorCode, message: string, extra?: readonly string[]): void
  /** A malformed message: an error, and the connection closed after MAX_BAD_MESSAGES. */
  abuse(code: ErrorCode, message: string): void
  sendText(text: string): void
  /** True once the connection ended or was cut off. */
  gone(): boolean
}

/** Handles one subscribe or unsubscribe message (messages of one connection are handled one at a time). */
function messageHandler(opening: StreamOpening, kit: RouteKit, c: Connection): (text: string) => Promise<void> {
  const { hub, log, observer } = opening
  const { codes, sink } = c
  return async (text) => {
    if (c.gone()) return
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return c.abuse(ErrorCode.InvalidJson, 'the message is not valid JSON')
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return c.abuse(ErrorCode.ValidationFailed, 'invalid message: must be a JSON object')
    const parsed = v.safeParse(StreamMessageSchema, value, { abortPipeEarly: true })
    if (!parsed.success) {
      const issue = parsed.issues[0]
      return c.abuse(ErrorCode.ValidationFailed, `invalid message: ${v.getDotPath(issue) ?? 'message'} ${issue.message}`)
    }
    const read = readMessageCodes(parsed.output.codes)
    if (!read.ok) return c.abuse(ErrorCode.InvalidCode, 'invalid code: codes are exactly 4 characters, each A-Z or 0-9; nothing was changed')
    if (parsed.output.op === 'unsubscribe') {
      const leaving = read.codes.filter((code) => codes.has(code))
      for (const code of leaving) codes.delete(code)
      opening.reserve(-leaving.length)
      hub.unsubscribe(sink, leaving)
      return c.sendText(wsAck('unsubscribed', read.codes))
    }
    const adding = read.codes.filter((code) => !codes.has(code))
    const refusal = opening.subscriptionRefusal(codes.size, adding.length)
    if (refusal !== null) {
      observer?.refused?.('ws', refusal.code)
      return c.fail(refusal.code, `${refusal.message}; nothing was subscribed`, adding)
    }
    // Reserved before the awaits, so a later message counts them.
    for (const code of adding) codes.add(code)
    opening.reserve(adding.length)
    const unreserve = () => {
      for (const code of adding) codes.delete(code)
      opening.reserve(-adding.length)
    }
    try {
      const budget = adding.length === 0 ? null : await kit.admission.admit(c.client, adding)
      if (budget !== null) {
        unreserve()
        observer?.refused?.('ws', budget.code)
        return c.fail(budget.code, `${budget.message}; nothing was subscribed`, adding)
      }
    } catch (err) {
      unreserve()
      log.error({ err, reqId: c.requestId }, 'stream subscribe failed')
      return c.fail(ErrorCode.ServiceUnavailable, 'temporarily unavailable; retry shortly; nothing was subscribed', adding)
    }
    if (c.gone()) return unreserve()
    await hub.subscribe(sink, adding)
    c.sendText(wsAck('subscribed', read.codes))
  }
}
