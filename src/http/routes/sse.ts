/**
 * `GET /api/v1/stream/{codes}` (docs/api.md "Streams"): server-sent events carrying the blocks callbacks (or, with
 * `?view=rpc`, rpc) would answer, each code's current block at once and then each change the stream hub announces.
 * Public like callbacks; its opening shares the checks and counts of the WebSocket route (stream-opening.ts). A client
 * that stops reading is cut off with a last `slow_consumer` event, so it cannot grow the front's memory.
 */
import { SSE_HEARTBEAT, sseBlock, sseError, type StreamView } from '../../streams/model/stream-protocol.js'
import type { StreamSink } from '../../streams/stream-hub.js'
import { ErrorCode } from '../model/error-codes.js'
import type { EventStream, HttpApp, RequestCtx, RouteKit } from '../route-kit.js'
import { slowConsumerGrace, type StreamOpening } from '../stream-opening.js'

const HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' }

/** Registers the SSE route. */
export function register(app: HttpApp, _kit: RouteKit, deps: { opening: StreamOpening }): void {
  const { opening } = deps
  app.eventStream('/api/v1/stream/:codes', { route: 'stream', refused: (reply) => opening.refused('sse', reply) }, async (req, ctx) => {
    const checked = await opening.check(req, ctx, req.params.codes ?? '')
    if ('status' in checked) return checked
    return { headers: HEADERS, open: (stream) => follow(opening, stream, ctx, checked.view, checked.codes) }
  })
}

/** Follows `codes` on an open event stream until the client goes or is cut off. */
function follow(opening: StreamOpening, stream: EventStream, ctx: RequestCtx, view: StreamView, codes: string[]): void {
  const { config, hub, log, observer } = opening
  const { client, requestId } = ctx
  opening.take(client)
  opening.reserve(codes.length)
  let buffered = 0
  let seq = 0
  let cut = false
  let ended = false
  let grace: { progress(): void } | undefined
  const write = (chunk: string) => {
    const size = Buffer.byteLength(chunk)
    buffered += size
    stream.write(chunk, () => {
      buffered -= size
      grace?.progress()
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
  const open = {
    heartbeat() {
      if (!cut && !ended && buffered <= config.streamMaxBufferedBytes) write(SSE_HEARTBEAT)
    },
    end: () => stream.close(),
  }
  const cutOff = () => {
    cut = true
    observer?.slowConsumerCut?.('sse')
    log.info({ reqId: requestId, client, buffered }, 'stream cut off: slow consumer')
    write(sseError(ErrorCode.SlowConsumer, opening.slowConsumerMessage()))
    hub.unsubscribe(sink, codes)
    stream.end()
    grace = slowConsumerGrace(() => open.end())
  }
  stream.onClose(() => {
    if (ended) return
    ended = true
    hub.unsubscribe(sink, codes)
    opening.closed('sse', client, open, codes.length)
  })
  opening.opened('sse', open)
  // Sends the headers at once, so the client knows the stream is open before the first block.
  write(': open\n\n')
  hub.subscribe(sink, codes).catch((err: unknown) => log.error({ err, reqId: requestId }, 'stream subscribe failed'))
}
