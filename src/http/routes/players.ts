/**
 * `GET /api/v1/players/{platform_user_id}` (bearer): the codes bound to a returning player's Roblox account, each with
 * its status (`bound`, `paused`, `banned`, `invalidated`; codes/model/player-codes.ts), most recently linked first; an
 * unknown id gets `"codes": []`. It reads MySQL (the codes table's platform_user_id index) through the front's small
 * pool, as info does: the Redis copy of codes is keyed by code and holds no account id. Its own rate limit
 * (RATE_LIMITS `players=`, 60/60).
 */
import { playerCodes, readPlatformUserId, type PlayerCode } from '../../codes/model/player-codes.js'
import type { CodeRecord } from '../../codes/model/codes.js'
import { ErrorCode } from '../model/error-codes.js'
import { jsonError, jsonOk, type Reply } from '../respond.js'
import type { HttpApp, HttpRequest, RequestCtx, RouteKit } from '../route-kit.js'

/** What the players route reads, built by the front runtime. */
export interface PlayersDeps {
  /** The stored codes bound to a game account, most recently linked first. */
  codesOfPlayer(platformUserId: string): Promise<Array<Pick<CodeRecord, 'code' | 'state' | 'paused' | 'platformUsername'>>>
}

/** The players answer. */
export function playersBody(platformUserId: number, codes: PlayerCode[]): { platform_user_id: number; codes: PlayerCode[] } {
  return { platform_user_id: platformUserId, codes }
}

function invalidId(): Reply {
  return jsonError(400, ErrorCode.InvalidPlatformUserId, 'invalid platform_user_id: a Roblox user id, a positive whole number of at most 16 digits')
}

/** Registers the players route (with and without an id). */
export function register(app: HttpApp, kit: RouteKit, deps: PlayersDeps): void {
  app.get('/api/v1/players/:id', 'players', async (req, ctx) => {
    const raw = req.params.id ?? ''
    const auth = await kit.keyed('players', req, ctx)
    if (!auth.ok) return auth.reply
    const id = readPlatformUserId(raw)
    if (id === null) return invalidId()
    return jsonOk(playersBody(id, playerCodes(await deps.codesOfPlayer(String(id)))))
  })
  const noId = async (req: HttpRequest, ctx: RequestCtx): Promise<Reply> => {
    const auth = await kit.keyed('players', req, ctx)
    return auth.ok ? invalidId() : auth.reply
  }
  app.get('/api/v1/players', 'players', noId)
  app.get('/api/v1/players/', 'players', noId)
}
