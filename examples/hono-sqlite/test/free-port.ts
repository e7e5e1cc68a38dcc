/** A TCP port nothing listens on, for the tests that start the starter as a process: bind port 0, read the port the
 *  system chose, release it. */
import { once } from "node:events"
import { type AddressInfo, createServer } from "node:net"

export const freePort = async (): Promise<number> => {
  const server = createServer()
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const { port } = server.address() as AddressInfo
  server.close()
  await once(server, "close")
  return port
}
