/** A free TCP port on loopback, for a part the tools (and the tests, through test/helpers/scratch.ts) start. */
import { createServer, type AddressInfo } from 'node:net'

/** Asks the kernel for a free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
