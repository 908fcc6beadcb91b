/** A free TCP port on loopback, for a part the tools (and the tests, through test/helpers/scratch.ts) start. */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

/**
 * The first port the kernel hands out for outgoing connections (and for `listen(0)`). A port chosen from that range
 * can be taken between the choice and its use by any outgoing connection of any process (a Redis or MySQL client of
 * another test file): a front then failed to start with EADDRINUSE in a clean-clone CI run. Ports below it are never
 * handed out by the kernel.
 */
function ephemeralStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    return Number.isInteger(start) && start > 12000 ? start : 32768
  } catch {
    return 32768
  }
}

const LOWEST = 10000
const BELOW = ephemeralStart()

/** Whether `port` can be listened on at 127.0.0.1 now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/** A free TCP port on loopback, below the kernel's ephemeral range, chosen at random (processes choose apart). */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 1000; tries++) {
    const port = LOWEST + Math.floor(Math.random() * (BELOW - LOWEST))
    if (await canListen(port)) return port
  }
  throw new Error(`no free TCP port on 127.0.0.1 between ${LOWEST} and ${BELOW - 1} after 1000 tries`)
}
