/**
 * Posts one message to a destination through @discordjs/rest and says what came of it. Rate limits are not waited
 * out inside the library (`rejectOnRateLimit`) and it never retries by itself (`retries: 0`): the delivery loop
 * decides, so a 429 costs no retry attempt and every request first passes the shared rate gate.
 */
import { DiscordAPIError, HTTPError, makeURLSearchParams, RateLimitError, REST, Routes } from 'discord.js'
import type { DestinationTarget } from './model/destination.js'
import type { MessagePayload } from './model/embeds.js'
import { outcomeOfStatus, type SendOutcome } from './model/send-outcome.js'
import type { RateGate } from '../redis/delivery-rate-gate.js'

/** Discord's API base when DISCORD_API is empty. */
export const DEFAULT_DISCORD_API = 'https://discord.com/api'

/** Posts messages for one category (calls must not overlap: it tracks the last response of its clients). */
export interface Poster {
  /** Posts `payload` to `target`. */
  post(target: DestinationTarget, payload: MessagePayload): Promise<SendOutcome>
  /** Drops the cached client of `target` (after a 401 the library forgets its token). */
  forget(target: DestinationTarget): void
}

interface Client {
  rest: REST
  lastStatus: number | null
}

/** Creates a poster; `token` is the bot token for channel destinations ('' when there is none). */
export function createDiscordPoster(opts: { discordApi: string; token: string; gate: RateGate; timeoutMs?: number; signal?: AbortSignal }): Poster {
  const clients = new Map<string, Client>()
  const keyOf = (target: DestinationTarget) =>
    target.kind === 'channel' ? `channel|${opts.discordApi}` : `webhook|${target.apiBase}|${target.webhookId}`

  const clientFor = (target: DestinationTarget): Client => {
    const key = keyOf(target)
    let client = clients.get(key)
    if (client !== undefined) return client
    const created: Client = {
      lastStatus: null,
      rest: new REST({
        api: target.kind === 'webhook' ? target.apiBase : opts.discordApi || DEFAULT_DISCORD_API,
        version: '10',
        retries: 0,
        timeout: opts.timeoutMs ?? 10_000,
        rejectOnRateLimit: () => true,
        hashSweepInterval: 0,
        handlerSweepInterval: 0,
        makeRequest: async (url, init) => {
          await opts.gate(opts.signal)
          const res = await fetch(url, init as RequestInit)
          created.lastStatus = res.status
          return res as never
        },
      }),
    }
    if (target.kind === 'channel') created.rest.setToken(opts.token)
    clients.set(key, created)
    return created
  }

  return {
    async post(target, payload) {
      if (target.kind === 'channel' && opts.token === '') throw new Error('channel destinations need DISCORD_TOKEN')
      const client = clientFor(target)
      client.lastStatus = null
      try {
        const message =
          target.kind === 'channel'
            ? await client.rest.post(Routes.channelMessages(target.channelId), { body: payload })
            : await client.rest.post(Routes.webhook(target.webhookId, target.token), {
                body: payload,
                query: makeURLSearchParams({ wait: true }),
                auth: false,
              })
        const id = (message as { id?: unknown } | null)?.id
        return typeof id === 'string' ? { kind: 'sent', messageId: id } : { kind: 'transient', reason: 'Discord answered without a message id' }
      } catch (err) {
        if (err instanceof RateLimitError) {
          // Also thrown before any request when the library already knows the bucket is empty.
          return { kind: 'rate_limited', retryAfterMs: Math.max(50, Math.ceil(err.retryAfter)), requestMade: client.lastStatus === 429 }
        }
        if (err instanceof DiscordAPIError) return outcomeOfStatus(err.status, `${err.status} ${String(err.code)}: ${err.message}`.slice(0, 300))
        if (err instanceof HTTPError) return outcomeOfStatus(err.status, `${err.status} ${err.message}`.slice(0, 300))
        return { kind: 'transient', reason: ((err as Error).message ?? String(err)).slice(0, 300) }
      }
    },
    forget(target) {
      clients.delete(keyOf(target))
    },
  }
}
