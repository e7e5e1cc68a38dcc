/** What a framework adapter mounts, and how a connection served by Node's http module closes after an answer given
 *  before the request's body was read. Used by @mailroom/hono, @mailroom/express and @mailroom/fastify; nothing here
 *  imports Node at run time, so the Hono adapter stays usable on other runtimes. */
import type { IncomingMessage } from "node:http"
import type { Socket } from "node:net"

/** What a framework adapter needs from a Mailroom: the handler that `createMailroom(…)` returns as `fetch`, which
 *  takes the peer address of the connection (and its HTTP version, when known) beside the request. */
export interface MailroomHandler {
  readonly fetch: (
    request: Request,
    options: { readonly clientAddress: string | null; readonly httpVersion?: string | undefined },
  ) => Promise<Response>
}

/**
 * How long, and how many bytes, a connection is still read and discarded after an answer that closes it while the
 * client is still sending its body (a 413 to a body past its limit, a 401 to a large upload). Closing at once makes
 * the kernel answer the client's next bytes with a reset, and a reset discards the answer the client has not read
 * yet: it sees EPIPE or ECONNRESET instead of the 413. nginx's lingering close reads on in the same way.
 * Past either limit the connection is destroyed: by then a client that reads has had its answer.
 */
export const lingeringCloseLimits = { timeMs: 5_000, bytes: 32 * 1024 * 1024 } as const

const currentRequest = Symbol("mailroom.currentRequest")

type LingeringSocket = Socket & { [currentRequest]?: IncomingMessage }

/** Ends our side of the connection, reads and discards what the client still sends of `request`, and destroys the
 *  connection once the body has ended, the client has closed, or a limit has passed. */
const linger = (socket: Socket, request: IncomingMessage, limits: typeof lingeringCloseLimits): void => {
  socket.end()
  let read = 0
  const close = () => {
    clearTimeout(timer)
    socket.destroy()
  }
  const timer = setTimeout(close, limits.timeMs)
  timer.unref()
  // Whoever was reading the body has had its answer: its reader would pause the stream once its queue filled, and
  // a paused request stops Node reading the socket, which is what makes the client's writes fail.
  request.removeAllListeners("data")
  request.on("data", (chunk: Buffer) => {
    read += chunk.length
    if (read > limits.bytes) close()
  })
  request.once("end", close)
  request.once("error", close)
  socket.once("end", close)
  socket.once("close", () => clearTimeout(timer))
  request.resume()
}

/**
 * Makes the connection of `incoming` close lingering: when Node's http server closes it after the answer (the answer
 * says `Connection: close`) while the body of `incoming` is still arriving, the connection is kept readable within
 * `lingeringCloseLimits` instead of being destroyed with the client's bytes unread. A request whose body has arrived
 * whole closes as Node closes it. Call it for each request before answering it; HTTP/2 requests are left alone
 * (their streams end on their own).
 */
export const closeLingering = (incoming: IncomingMessage, limits: typeof lingeringCloseLimits = lingeringCloseLimits): void => {
  // HTTP/2 compatibility requests share their session's socket, which must not be touched.
  if (incoming.httpVersionMajor !== 1) return
  const socket = incoming.socket as LingeringSocket | null
  // Node's http server closes an HTTP/1 connection with destroySoon(): end, then destroy once the end is written.
  if (socket === null || typeof socket.destroySoon !== "function") return
  const prepared = currentRequest in socket
  socket[currentRequest] = incoming
  if (prepared) return
  const destroySoon = socket.destroySoon.bind(socket)
  let lingering = false
  socket.destroySoon = () => {
    if (lingering) return
    const request = socket[currentRequest]
    if (request === undefined || request.complete || socket.destroyed) return destroySoon()
    lingering = true
    linger(socket, request, limits)
  }
}
