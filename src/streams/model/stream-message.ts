/**
 * What a WebSocket stream client may send (docs/api.md "Streams"): `{"op":"subscribe","codes":[...]}` or
 * `{"op":"unsubscribe","codes":[...]}`. The codes' format is checked apart (an `invalid_code` error, as in bind and log).
 */
import * as v from 'valibot'

/** Most entries one message's `codes` may hold, valid or not (the per-stream maximum is checked after de-duplication). */
export const MAX_CODES_PER_MESSAGE = 10000

/** `{op: 'subscribe' | 'unsubscribe', codes: string[]}`; unknown fields are ignored. */
export const StreamMessageSchema = v.object(
  {
    op: v.picklist(['subscribe', 'unsubscribe'], 'must be "subscribe" or "unsubscribe"'),
    codes: v.pipe(
      v.array(v.string('must be a list of codes (strings)'), 'must be a list of codes'),
      v.maxLength(MAX_CODES_PER_MESSAGE, `must hold at most ${MAX_CODES_PER_MESSAGE} entries`),
    ),
  },
  'must be a JSON object',
)

/** A stream message that passed validation (its codes still unchecked). */
export type StreamMessage = v.InferOutput<typeof StreamMessageSchema>
