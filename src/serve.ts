/**
 * Entry point: `npm start`. Runs every part of the service as a child process and restarts any that dies after it
 * has started once. A part that cannot start because a port it needs is taken stops serve (exit 98, one line naming
 * the part and the port): a second `npm start` beside a running one must not loop on restarts. A part whose
 * configuration is refused at its first start (exit 78: Discord refusing the token or the intents) stops serve the
 * same way, with the part's own reason.
 * The list below is the whole system; docs/operations.md's process table mirrors it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { inSandboxMode, loadConfig } from './config.js'
import { createLogger } from './lib/logger.js'
import { PORT_TAKEN_EXIT, portTakenMessage, type TakenPort } from './lib/listen-port.js'
import { restartDelayMs } from './lib/model/restart-backoff.js'
import { CONFIG_REFUSED_EXIT } from './lib/part-started.js'
import { readPartMessage } from './lib/part-started.js'

const config = loadConfig()
const log = createLogger('serve', config.logLevel)

interface Part {
  name: string
  entry: string
  args?: string[]
  /** Run this part under this configuration? */
  when: boolean
  /** A URL that answers 200 once the part is up (and has announced its start); later parts start after it does. */
  readyUrl?: string
  /** The part says over its IPC channel when it has started (src/lib/part-started.ts); "up" waits for it. */
  announces?: boolean
}

// The sandbox (src/sandbox.ts) runs on purpose (SANDBOX=on) or, outside production, when no bot token is set. A
// production deployment that lost its token must not quietly serve a fake Discord, so it stops and says why.
const sandboxMode = inSandboxMode(config)
if (!sandboxMode && config.discordToken === '') {
  const why = config.production ? 'NODE_ENV is production' : 'SANDBOX is off'
  process.stderr.write(
    `presence-link serve: DISCORD_TOKEN is not set and ${why}, so serve will not start against the local Discord sandbox.\n` +
      '  Set DISCORD_TOKEN to the bot token, or set SANDBOX=on to run against the sandbox on purpose.\n',
  )
  process.exit(78)
}
const sandboxUrl = `http://127.0.0.1:${config.sandboxPort}`

/** Every running part, in start order. */
const PARTS: Part[] = [
  // The sandbox is always on loopback (src/sandbox.ts); its own announcement tells it from another serve's sandbox.
  { name: 'sandbox', entry: './sandbox.js', args: ['--port', String(config.sandboxPort), '--shards', String(config.shardCount)], when: sandboxMode, readyUrl: `${sandboxUrl}/control/state`, announces: true },
  { name: 'worker', entry: '../workers/worker.js', when: true, announces: true },
  { name: 'front', entry: './front.js', when: true },
  { name: 'gateway', entry: './gateway.js', when: true, announces: true },
]

/** Environment the parts get on top of ours (the sandbox's addresses in sandbox mode). */
const partEnv: Record<string, string> = {}

const children = new Map<string, ChildProcess>()
/** Parts that announced they have started, since their last (re)start. */
const announced = new Set<string>()
/** Parts that have started at least once (announced, or the front listening) since serve started. */
const startedOnce = new Set<string>()
/** Why each part waits (its dependencies' reasons, from its "waiting" messages); '' or absent when it does not. */
const waitingFor = new Map<string, string>()
let stopping = false

/** `part: reason` for each of `parts` that said why it waits, on one line ('' when none did). */
function reasonsOf(parts: readonly string[]): string {
  return parts
    .filter((p) => (waitingFor.get(p) ?? '') !== '')
    .map((p) => `${p}: ${waitingFor.get(p)}`)
    .join('; ')
}

function start(part: Part, attempt = 0): void {
  if (stopping) return
  const file = fileURLToPath(new URL(part.entry, import.meta.url))
  const child = spawn(process.execPath, [...process.execArgv, file, ...(part.args ?? [])], {
    env: { ...process.env, ...partEnv },
    // The IPC channel carries one message, the part's start announcement (src/lib/part-started.ts). It closes
    // when serve dies, however it dies (even SIGKILL), and each part then drains and exits by itself
    // (src/runtime/process-context.ts) instead of running on as an orphan.
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  })
  children.set(part.name, child)
  let failed: string | undefined
  let portTaken: TakenPort | undefined
  child.on('message', (message) => {
    const m = readPartMessage(message)
    if (m?.kind === 'started') {
      announced.add(part.name)
      startedOnce.add(part.name)
    } else if (m?.kind === 'waiting') waitingFor.set(part.name, m.reason)
    else if (m?.kind === 'failed') failed = m.reason
    else if (m?.kind === 'port-taken') portTaken = m.taken
  })
  const startedAt = Date.now()
  child.on('exit', (code, signal) => {
    children.delete(part.name)
    announced.delete(part.name)
    if (stopping) return
    // A port taken at the first start will be taken at every restart (another serve, say): stop and say which.
    if (code === PORT_TAKEN_EXIT && !startedOnce.has(part.name)) {
      const why = portTaken === undefined ? 'a port it needs is already in use' : portTakenMessage(portTaken)
      log.fatal({ part: part.name, ...portTaken }, `${part.name} cannot start: ${why}`)
      stop('port taken', PORT_TAKEN_EXIT)
      return
    }
    // A configuration the outside world refuses (a Discord token that was reset) is refused again at every restart.
    if (code === CONFIG_REFUSED_EXIT && !startedOnce.has(part.name)) {
      log.fatal({ part: part.name }, `${part.name} cannot start: ${failed ?? 'its configuration was refused (see its last line)'}`)
      stop('configuration refused', CONFIG_REFUSED_EXIT)
      return
    }
    // A part that ran a minute is healthy again: restart after 0.5 s; one that keeps dying backs off up to 30 s
    // (0.5 s, 1 s, 2 s, ... as the front primary does for its workers).
    const next = Date.now() - startedAt > 60_000 ? 0 : attempt + 1
    const delay = restartDelayMs(next - 1)
    const reason = failed ?? (portTaken === undefined ? undefined : portTakenMessage(portTaken))
    log.error({ part: part.name, code, signal, restartInMs: delay, ...(reason === undefined ? {} : { reason }) }, 'part exited; restarting')
    setTimeout(() => start(part, next), delay).unref()
  })
}

async function waitHttp(url: string, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until && !stopping) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) })
      if (res.ok) return true
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250))
  }
  return false
}

/** Every part drains within its own 10 s deadline; serve waits a little longer before killing what is left. */
const STOP_DEADLINE_MS = 15_000

/** Stops every part; serve then exits with `exitCode` (1 when it was 0 and a part had to be killed). */
function stop(signal: NodeJS.Signals | 'port taken' | 'configuration refused', exitCode = 0): void {
  if (stopping) return
  stopping = true
  log.info({ signal }, 'stopping every part')
  for (const child of children.values()) child.kill('SIGTERM')
  const deadline = setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL')
    // The reason serve stopped (a taken port: 98) still names the failure; a clean stop that had to kill says 1.
    process.exit(exitCode === 0 ? 1 : exitCode)
  }, STOP_DEADLINE_MS)
  const check = setInterval(() => {
    if (children.size === 0) {
      clearInterval(check)
      clearTimeout(deadline)
      process.exit(exitCode)
    }
  }, 100)
}

process.once('SIGINT', () => stop('SIGINT'))
process.once('SIGTERM', () => stop('SIGTERM'))
process.once('SIGHUP', () => stop('SIGHUP'))

// A serve whose parent died (npm, a shell, a supervisor: killed without passing the signal on) is re-parented; it
// stops its parts rather than keep serving with nobody to stop it. Under an init (parent pid 1) there is no parent
// to lose.
const parentPid = process.ppid
if (parentPid > 1) {
  const watchParent = setInterval(() => {
    if (process.ppid !== parentPid) {
      clearInterval(watchParent)
      log.warn({ parentPid }, 'parent process is gone; stopping every part')
      stop('SIGTERM')
    }
  }, 1000)
  watchParent.unref()
}

if (sandboxMode) {
  log.warn(
    { sandbox: sandboxUrl },
    `${config.sandbox === 'on' ? 'SANDBOX=on' : 'DISCORD_TOKEN is not set'}: running against the LOCAL DISCORD SANDBOX, not Discord. Try it through its control API (see README).`,
  )
}
/** Waits until `part` has announced its start and `url` answers, or `timeoutMs` passes, or serve is stopping. */
async function waitStarted(part: Part, url: string, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs
  while (!announced.has(part.name) && !stopping && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
  return announced.has(part.name) && !stopping && (await waitHttp(url, Math.max(1, until - Date.now())))
}

for (const part of PARTS.filter((p) => p.when)) {
  start(part)
  if (part.readyUrl === undefined) continue
  if (!(await waitStarted(part, part.readyUrl, 30_000))) {
    if (stopping) break
    log.fatal({ part: part.name, url: part.readyUrl }, 'part did not come up')
    stop('SIGTERM', 1)
    break
  }
  if (part.name === 'sandbox') {
    const state = (await (await fetch(`${sandboxUrl}/control/state`)).json()) as {
      defaultGuildId: string
      staffRoleId: string
      guilds: Array<{ id: string; channels: Array<{ id: string; name: string }> }>
    }
    const channels = state.guilds.find((g) => g.id === state.defaultGuildId)?.channels ?? []
    const channel = (name: string) => channels.find((c) => c.name === name)?.id ?? ''
    Object.assign(partEnv, {
      // Each log category goes to its own sandbox channel unless configured otherwise.
      LOG_DESTINATION_SERVER: config.logDestinations.server || channel('server-log'),
      LOG_DESTINATION_INGAME: config.logDestinations.ingame || channel('ingame-log'),
      LOG_DESTINATION_MODERATION: config.logDestinations.moderation || channel('moderation-log'),
      // The parts run against the sandbox: what the worker seeds from the lines above is marked as the sandbox's.
      SANDBOX: 'on',
      DISCORD_TOKEN: 'sandbox-token',
      DISCORD_API: `${sandboxUrl}/api`,
      ROBLOX_USERS_API: `${sandboxUrl}/roblox`,
      OPEN_CLOUD_API: `${sandboxUrl}/open-cloud`,
      GUILD_WHITELIST: [...config.guildWhitelist, state.defaultGuildId].join(','),
      STAFF_ROLE_ID: config.staffRoleId === '' ? state.staffRoleId : config.staffRoleId,
      // The sandbox guild is where its staff act; staff guilds configured besides it keep working.
      STAFF_GUILD_IDS: [...config.staffGuildIds, state.defaultGuildId].join(','),
    })
  }
}

/** Parts that announce their start and have not yet, once `deadline` passes or all have (empty). */
async function waitAnnounced(deadline: number): Promise<string[]> {
  for (;;) {
    const missing = PARTS.filter((p) => p.when && p.announces === true && !announced.has(p.name)).map((p) => p.name)
    if (missing.length === 0 || stopping || Date.now() > deadline) return missing
    await new Promise((r) => setTimeout(r, 100))
  }
}

// "Up" means every part is: the front answers /readyz, and the worker (binds and logs) and the gateway (presences)
// have started with their dependencies answering. Saying it when only the front was ready let a bind sent at once
// wait on a worker still starting. The line shows the address the front is bound to (HOST as configured); serve
// itself reaches a wildcard address through loopback.
const bracketed = (host: string) => (host.includes(':') ? `[${host}]` : host)
const base = `http://${bracketed(config.host)}:${config.port}`
const reach = `http://${bracketed(config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host)}:${config.port}`
const UP_WITHIN_MS = config.partStartTimeoutMs
const upBy = Date.now() + UP_WITHIN_MS
const running = () => PARTS.filter((p) => p.when).map((p) => p.name)
if (!stopping) {
  // One deadline for the whole start: whatever is late then (the front's /readyz included) is named once, with what
  // each part said it waits for, and serve keeps waiting: the "up" line still follows once everything has started.
  const frontReady = await waitHttp(`${reach}/readyz`, Math.max(0, upBy - Date.now()))
  const lateParts = await waitAnnounced(upBy)
  if (!stopping && (!frontReady || lateParts.length > 0)) {
    const late = frontReady ? lateParts : ['front', ...lateParts]
    const reasons = reasonsOf(frontReady ? lateParts : running())
    const why = reasons === '' ? (frontReady ? ' (their logs say what they wait for)' : '') : ` (${reasons})`
    const what = frontReady
      ? `the front answers, but ${lateParts.join(' and ')} did not start within ${UP_WITHIN_MS / 1000} s`
      : `the front did not become ready within ${UP_WITHIN_MS / 1000} s${lateParts.length > 0 ? `, and ${lateParts.join(' and ')} did not start either` : ''}`
    log.error({ parts: late, api: `${base}/api/v1`, ...(reasons === '' ? {} : { reasons }) }, `${what}${why}`)
  }
  // A late part still gets the line once it has started, so the log says when the service became whole.
  const whole = (frontReady || (await waitHttp(`${reach}/readyz`, Infinity))) && (await waitAnnounced(Infinity)).length === 0
  if (whole && !stopping) {
    log.info(
      { api: `${base}/api/v1`, health: `${base}/healthz`, parts: PARTS.filter((p) => children.has(p.name)).map((p) => p.name), ...(sandboxMode ? { sandbox: `${sandboxUrl}/control` } : {}) },
      `presence-link is up at ${base}/api/v1${sandboxMode ? ` (Discord sandbox control API at ${sandboxUrl}/control)` : ''}`,
    )
  }
}
