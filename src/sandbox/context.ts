/*
 * What every sandbox handler receives: the world, the gateway to dispatch through, the interaction tracker, the
 * counters, the fake Open Cloud's state and the sandbox's own addresses. Built once by createSandbox; handlers stay free of module state.
 */
import type { Gateway } from './discord-gateway/create-gateway.js'
import type { RateLimits } from './discord-rest/rate-limits.js'
import type { Interactions } from './interactions.js'
import type { OpenCloudState } from './roblox/open-cloud.js'
import type { RequestCounter } from './request-counter.js'
import type { Snowflakes } from './snowflakes.js'
import type { World } from './world.js'

/** The sandbox's public addresses (known once the server listens). */
export interface SandboxUrls {
  url: string
  apiBase: string
  robloxBase: string
  gatewayUrl: string
}

/** Everything a route handler may use; built once by createSandbox. */
export interface SandboxContext {
  world: World
  gateway: Gateway
  interactions: Interactions
  counter: RequestCounter
  rateLimits: RateLimits
  snowflakes: Snowflakes
  now: () => number
  /** Random URL-safe token of `bytes` random bytes. */
  randomToken: (bytes: number) => string
  acceptsToken: (token: string) => boolean
  urls: () => SandboxUrls
  log: (msg: string, fields?: object) => void
  /** The fake Open Cloud messaging API's keys, injected failure and published messages. */
  openCloud: OpenCloudState
}
