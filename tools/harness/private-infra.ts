/**
 * A private Redis (append-only file on) and MariaDB for the fault drills, each on a free port with its data in a
 * temporary directory, so a drill can SIGKILL, stop and restart them without touching the shared servers on 6379
 * and 3306. `npm run hosts` places them instead: on a test host's address and the standard ports, launched inside
 * its network namespace, Redis with a password. Every server started here is killed by `killServersSync`
 * (tools/drills/drills.ts and tools/hosts/hosts.ts call it on exit).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { freePort } from './free-port.js'
import { sleep } from './readiness.js'

/** A server the drills can break: start it, kill it, stop it cleanly, start it again on the same port and data. */
export interface PrivateServer {
  name: string
  port: number
  /** `redis://...` or `mysql://...` pointing at it. */
  url: string
  /** The running process's pid; 0 while it is down. */
  pid(): number
  /** Starts the server (on the same port and data as before) and resolves once it answers. */
  start(): Promise<void>
  /** Sends `signal` to the server and resolves once it has exited. */
  kill(signal: NodeJS.Signals): Promise<void>
  /** The server's last output lines (its log file for MariaDB), for error messages. */
  lines(): string[]
}

const running = new Set<ChildProcess>()

/** SIGKILLs every server started here that still runs; synchronous, so it works from an 'exit' handler. */
export function killServersSync(): void {
  for (const proc of running) {
    try {
      proc.kill('SIGKILL')
    } catch {
      // already gone
    }
  }
  running.clear()
}

/** Where a server listens and how it is launched; without one, loopback on a free port, launched directly. */
export interface Placement {
  /** The address it binds to (and is reached at). */
  host: string
  port: number
  /** Rewrites the command, e.g. to run it inside a network namespace. */
  launch?: (file: string, args: readonly string[]) => { file: string; args: readonly string[] }
  /** Redis only: `requirepass`. */
  password?: string
  /** More server options, after the harness's own (a Galera node's wsrep settings, a Redis replica's `--replicaof`). */
  serverArgs?: readonly string[]
}

function spawnServer(command: string, args: readonly string[], lines: string[], placement?: Placement): { proc: ChildProcess; exit: Promise<void> } {
  const launched = placement?.launch?.(command, args) ?? { file: command, args }
  const proc = spawn(launched.file, [...launched.args], { stdio: ['ignore', 'pipe', 'pipe'] })
  running.add(proc)
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''))
    lines.splice(0, Math.max(0, lines.length - 100))
  }
  proc.stdout?.on('data', keep)
  proc.stderr?.on('data', keep)
  const exit = new Promise<void>((resolve) => proc.once('exit', () => resolve()))
  void exit.then(() => running.delete(proc))
  return { proc, exit }
}

function createServer(name: string, port: number, url: string, launch: (lines: string[]) => { proc: ChildProcess; exit: Promise<void> }, ready: () => boolean): PrivateServer {
  let current: { proc: ChildProcess; exit: Promise<void> } | undefined
  const lines: string[] = []
  return {
    name,
    port,
    url,
    pid: () => (current !== undefined && current.proc.exitCode === null && current.proc.signalCode === null ? (current.proc.pid ?? 0) : 0),
    async start() {
      current = launch(lines)
      const started = current
      let gone = false
      void started.exit.then(() => (gone = true))
      const until = Date.now() + 60_000
      while (Date.now() < until) {
        if (gone) throw new Error(`${name} exited while starting:\n${lines.slice(-15).join('\n')}`)
        if (ready()) return
        await sleep(100)
      }
      throw new Error(`${name} did not answer within 60 s:\n${lines.slice(-15).join('\n')}`)
    },
    async kill(signal) {
      if (current === undefined) return
      current.proc.kill(signal)
      await current.exit
    },
    lines: () => [...lines],
  }
}

/** A Redis with AOF on (`appendfsync everysec`) in `dir`, on a free loopback port or at `placement`; not started yet. */
export async function privateRedis(dir: string, placement?: Placement): Promise<PrivateServer> {
  const host = placement?.host ?? '127.0.0.1'
  const port = placement?.port ?? (await freePort())
  const password = placement?.password
  await mkdir(dir, { recursive: true })
  const args = [
    '--port', String(port), '--bind', host, '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec',
    '--maxmemory-policy', 'noeviction', '--daemonize', 'no', ...(password === undefined ? [] : ['--requirepass', password]),
    ...(placement?.serverArgs ?? []),
  ]
  const auth = password === undefined ? [] : ['--no-auth-warning', '-a', password]
  const ping = () => spawnSync('redis-cli', ['-h', host, '-p', String(port), ...auth, 'ping'], { encoding: 'utf8', timeout: 2000 }).stdout?.trim() === 'PONG'
  const url = `redis://${password === undefined ? '' : `:${encodeURIComponent(password)}@`}${host}:${port}`
  return createServer('redis', port, url, (lines) => spawnServer('redis-server', args, lines, placement), ping)
}

/**
 * A MariaDB with a fresh data directory in `dir` (installed now), on a free loopback port or at `placement`; not
 * started yet. Its root has no password and is reached over `dir`/mysqld.sock (or loopback when not placed).
 */
export async function privateMariadb(dir: string, placement?: Placement): Promise<PrivateServer> {
  const host = placement?.host ?? '127.0.0.1'
  const port = placement?.port ?? (await freePort())
  const datadir = join(dir, 'data')
  await mkdir(dir, { recursive: true })
  // Its own tmpdir: a starting mariadbd deletes every `#sql*` file in its tmpdir, so with the default (/tmp) it would
  // delete the temporary tables of the machine's MariaDB, whose queries then fail (`Error on delete of
  // '/tmp/#sql-temptable-...MAI'`), as a test beside a Galera node's start once did in CI.
  const install = spawnSync('mariadb-install-db', ['--no-defaults', `--datadir=${datadir}`, `--tmpdir=${dir}`, '--auth-root-authentication-method=normal', '--user=root', '--skip-test-db'], {
    encoding: 'utf8',
    timeout: 120_000,
  })
  if (install.status !== 0) throw new Error(`mariadb-install-db failed (${install.status}): ${install.stderr ?? ''}${install.stdout ?? ''}`)
  // As root, mariadbd needs to be told which user to run as (the first --user wins: a placement's own comes first).
  const ownUser = placement?.serverArgs?.some((a) => a.startsWith('--user=')) === true
  const mariadbd = process.getuid?.() === 0 && !ownUser ? ['--user=root'] : []
  const args = [
    '--no-defaults', `--datadir=${datadir}`, `--tmpdir=${dir}`, `--port=${port}`, `--socket=${join(dir, 'mysqld.sock')}`, `--pid-file=${join(dir, 'mysqld.pid')}`,
    `--bind-address=${host}`, '--skip-networking=0', '--skip-log-bin', '--innodb-buffer-pool-size=128M', '--max-connections=500',
    `--log-error=${join(dir, 'error.log')}`, ...mariadbd, ...(placement?.serverArgs ?? []),
  ]
  const socket = join(dir, 'mysqld.sock')
  // Placed, root is only reachable over the socket (mariadb-install-db makes root@localhost): ping through it.
  const target = placement === undefined ? ['-h127.0.0.1', `-P${port}`] : [`--socket=${socket}`]
  const ping = () => spawnSync('mysqladmin', ['-uroot', ...target, '--connect-timeout=2', 'ping'], { encoding: 'utf8', timeout: 3000 }).status === 0
  const server = createServer('mariadb', port, `mysql://root@${host}:${port}/presence_link`, (lines) => spawnServer('/usr/sbin/mariadbd', args, lines, placement), ping)
  return server
}
