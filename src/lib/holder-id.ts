/** Names the holder of a lease (delivery, push, the prune's turn) so an operator can tell which process holds it. */
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'

/** `HOST:PID:RANDOM`: this host, this process, and 8 hex digits that tell two holders of one process apart. */
export function holderId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
}
