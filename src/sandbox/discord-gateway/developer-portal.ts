/*
 * The application's settings in Discord's Developer Portal that the fake honours: the bot token (REST answers 401 and
 * IDENTIFY closes with 4004 for any other) and the privileged intents switched on under "Privileged Gateway Intents"
 * (IDENTIFY asking for one that is off closes with 4014). Changed through `POST /control/application`.
 */
import { PRIVILEGED_INTENTS } from './gateway-codes.js'

/** A privileged intent by Discord's name. */
export type PrivilegedIntentName = keyof typeof PRIVILEGED_INTENTS

/** What `POST /control/application` answers: the switched-on privileged intents and whether one token is required. */
export interface PortalView {
  privileged_intents: PrivilegedIntentName[]
  token: 'any' | 'fixed'
}

/** The Developer Portal settings of the sandbox's application. */
export interface DeveloperPortal {
  /** True when `token` is the bot token (any non-empty token while none is fixed). */
  acceptsToken(token: string): boolean
  /** Makes `token` the only accepted bot token, as "Reset Token" does; null accepts any non-empty token again. */
  resetToken(token: string | null): void
  /** The privileged intent bits among `intents` that are not switched on. */
  disallowedIntents(intents: number): number
  /** Switches on exactly these privileged intents. */
  setPrivilegedIntents(names: readonly PrivilegedIntentName[]): void
  view(): PortalView
}

const NAMES = Object.keys(PRIVILEGED_INTENTS) as PrivilegedIntentName[]

/** True when `name` is one of Discord's privileged intents. */
export function isPrivilegedIntentName(name: unknown): name is PrivilegedIntentName {
  return typeof name === 'string' && (NAMES as string[]).includes(name)
}

/** Creates the settings: by default any non-empty token and every privileged intent switched on. */
export function createDeveloperPortal(options: { botToken?: string; privilegedIntents?: readonly PrivilegedIntentName[] } = {}): DeveloperPortal {
  let token: string | null = options.botToken ?? null
  let enabled = new Set<PrivilegedIntentName>(options.privilegedIntents ?? NAMES)
  return {
    acceptsToken: (candidate) => (token === null ? candidate.length > 0 : candidate === token),
    resetToken(next) {
      token = next
    },
    disallowedIntents(intents) {
      return NAMES.filter((name) => !enabled.has(name)).reduce((bits, name) => bits | (intents & PRIVILEGED_INTENTS[name]), 0)
    },
    setPrivilegedIntents(names) {
      enabled = new Set(names)
    },
    view: () => ({ privileged_intents: NAMES.filter((name) => enabled.has(name)), token: token === null ? 'any' : 'fixed' }),
  }
}
