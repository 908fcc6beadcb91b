/**
 * `presence-link push add|list|remove|test`: attach a Roblox universe and its Open Cloud key to one of our API keys,
 * list the attachments (the key masked), detach one, and publish a test message with its key. The key is read from a
 * file (never the command line, where `ps` and shell history would keep it), stored sealed with PUSH_SECRET, and never
 * printed.
 */
import { readFile } from 'node:fs/promises'
import { readKeyText } from '../push/model/open-cloud-key-text.js'
import { UnreadableKeyError } from '../push/open-cloud-key.js'
import { describeOutcome } from '../push/open-cloud.js'
import type { TargetRefusal } from '../push/push-targets.js'
import type { ProcessContext } from '../runtime/process-context.js'
import { buildPushTargets } from '../runtime/services.js'
import { openDatabase } from '../runtime/storage.js'
import { operatorName } from './admin-commands.js'
import { usage, type CommandOutput } from './command.js'

const KEY_NAME = /^[A-Za-z0-9_.-]{1,64}$/

function fail(message: string): CommandOutput {
  return { lines: [`error: ${message}`], exitCode: 1 }
}

/** A universe id as typed; undefined when it is not a positive whole number. */
export function readUniverseArgument(typed: string | undefined): number | undefined {
  if (typed === undefined || !/^[1-9][0-9]{0,15}$/.test(typed)) return undefined
  const id = Number(typed)
  return Number.isSafeInteger(id) ? id : undefined
}

const NO_SECRET = 'PUSH_SECRET is not set: Open Cloud keys are stored encrypted with it. Set PUSH_SECRET (at least 32 characters; `openssl rand -hex 32` makes one) in the environment of this command and of every worker'

function refusal(reason: TargetRefusal, keyName: string, universe: number): CommandOutput {
  switch (reason) {
    case 'no_secret':
      return fail(NO_SECRET)
    case 'no_such_key':
      return fail(`no active API key named ${keyName} (presence-link keys list)`)
    case 'no_such_target':
      return fail(`API key ${keyName} has no push target for universe ${universe} (presence-link push list)`)
  }
}

function readTarget(sub: string, keyName: string | undefined, universeText: string | undefined): { keyName: string; universe: number } | CommandOutput {
  if (keyName === undefined || !KEY_NAME.test(keyName)) return usage(`push ${sub} needs --key with the name of an API key`)
  const universe = readUniverseArgument(universeText)
  if (universe === undefined) return usage(`push ${sub} needs --universe with a Roblox universe id (a positive whole number)`)
  return { keyName, universe }
}

const isOutput = (value: object): value is CommandOutput => 'exitCode' in value

/** `presence-link push add --key NAME --universe ID --open-cloud-key-file PATH`. */
export async function pushAddCommand(ctx: ProcessContext, flags: { key?: string; universe?: string; 'open-cloud-key-file'?: string }): Promise<CommandOutput> {
  const target = readTarget('add', flags.key, flags.universe)
  if (isOutput(target)) return target
  const file = flags['open-cloud-key-file']
  if (file === undefined || file === '') return usage('push add needs --open-cloud-key-file with the path of a file holding the Open Cloud API key')
  if (ctx.config.pushSecret === '') return fail(NO_SECRET)
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    return fail(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
  const key = readKeyText(text)
  if (!key.ok) return fail(`${file}: ${key.message}`)
  const db = await openDatabase(ctx, 2)
  const added = await buildPushTargets(db, ctx.config.pushSecret, ctx.config.openCloudApi).add(target.keyName, target.universe, key.key, operatorName())
  if (!added.ok) return refusal(added.reason, target.keyName, target.universe)
  const what = added.outcome === 'added' ? 'attached universe' : 'replaced the Open Cloud key of universe'
  return {
    lines: [
      `${what} ${target.universe} to API key ${target.keyName} (Open Cloud key ${added.maskedKey}, stored encrypted)`,
      `check it with: presence-link push test --key ${target.keyName} --universe ${target.universe}`,
    ],
    exitCode: 0,
  }
}

/** `presence-link push list`. */
export async function pushListCommand(ctx: ProcessContext): Promise<CommandOutput> {
  const db = await openDatabase(ctx, 2)
  const targets = await buildPushTargets(db, ctx.config.pushSecret, ctx.config.openCloudApi).list()
  if (targets.length === 0) return { lines: ['no push targets'], exitCode: 0 }
  return {
    lines: targets.map(
      (t) =>
        `${t.keyName}\tuniverse ${t.universeId}\tOpen Cloud key ${t.maskedKey}\tset by ${t.addedBy} at ${t.updatedAt.toISOString()}${t.keyRevoked ? '\tAPI key revoked: not used' : ''}`,
    ),
    exitCode: 0,
  }
}

/** `presence-link push remove --key NAME --universe ID`. */
export async function pushRemoveCommand(ctx: ProcessContext, flags: { key?: string; universe?: string }): Promise<CommandOutput> {
  const target = readTarget('remove', flags.key, flags.universe)
  if (isOutput(target)) return target
  const db = await openDatabase(ctx, 2)
  const removed = await buildPushTargets(db, ctx.config.pushSecret, ctx.config.openCloudApi).remove(target.keyName, target.universe)
  if (!removed.ok) return refusal(removed.reason, target.keyName, target.universe)
  return { lines: [`removed the push target of universe ${target.universe} from API key ${target.keyName}; its servers get 404 push_target_not_found`], exitCode: 0 }
}

/** What an Open Cloud refusal most likely means, for `push test`. */
function hintFor(status: number, universe: number): string | null {
  if (status === 401) return 'the Open Cloud key is not valid (expired, deleted, or mistyped): make a new one and run push add again'
  if (status === 403) return `the Open Cloud key lacks universe-messaging-service:publish for universe ${universe} (Creator Dashboard, API key, Access Permissions: messaging-service), or its IP allow list refuses this host`
  if (status === 404) return `Open Cloud knows no universe ${universe}: check the universe id (Creator Dashboard, Copy Universe ID)`
  if (status === 429) return 'Open Cloud is rate limiting this key\'s owner: try again in a minute'
  return null
}

/** `presence-link push test --key NAME --universe ID`: publishes `{"v":1,"codes":[]}` and says what Roblox answered. */
export async function pushTestCommand(ctx: ProcessContext, flags: { key?: string; universe?: string }): Promise<CommandOutput> {
  const target = readTarget('test', flags.key, flags.universe)
  if (isOutput(target)) return target
  const db = await openDatabase(ctx, 2)
  let tested
  try {
    tested = await buildPushTargets(db, ctx.config.pushSecret, ctx.config.openCloudApi).test(target.keyName, target.universe)
  } catch (err) {
    if (err instanceof UnreadableKeyError) return fail(err.message)
    throw err
  }
  if (!tested.ok) return refusal(tested.reason, target.keyName, target.universe)
  const answered = `Open Cloud answered ${describeOutcome(tested.outcome)}`
  if (tested.outcome.ok) return { lines: [`published a test message to universe ${target.universe} (topic presence-link): ${answered}`], exitCode: 0 }
  const hint = hintFor(tested.outcome.status, target.universe)
  return { lines: [`error: the test message to universe ${target.universe} was not published: ${answered}`, ...(hint === null ? [] : [`hint: ${hint}`])], exitCode: 1 }
}
