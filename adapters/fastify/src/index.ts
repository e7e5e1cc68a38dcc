// Mounts Mailroom's web-standard handler on Fastify as an encapsulated plugin. No route logic lives here:
// every method and path under the prefix goes to Mailroom with its body unread, and Mailroom's Response is
// streamed back on the hijacked reply. @hono/node-server converts between Node and web requests.
import type { IncomingMessage } from "node:http"
import { getRequestListener, RequestError } from "@hono/node-server"
import { closeLingering, type MailroomHandler } from "@mailroom/http"
import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from "fastify"

export type { MailroomHandler } from "@mailroom/http"

export interface MailroomPluginOptions {
  readonly mailroom: MailroomHandler
}

/**
 * Serves `mailroom` under the prefix the plugin is registered with:
 * `app.register(mailroomPlugin, { prefix: "/mailroom", mailroom })` sends `/mailroom/v1/contacts` to
 * Mailroom as `/v1/contacts`. The host's routes, hooks and parsers outside the prefix are untouched.
 */
export const mailroomPlugin: FastifyPluginCallback<MailroomPluginOptions> = (fastify, { mailroom }, done) => {
  const prefix = fastify.prefix.replace(/\/+$/, "")

  // Mailroom reads the body itself, so the parsers of this context only let the raw stream through.
  // The plugin is not wrapped in fastify-plugin, so this stays inside its encapsulated context.
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser("*", (_request, _payload, parsed) => parsed(null))

  const listen = (autoCleanupIncoming: boolean) => getRequestListener(
    (request: Request, { incoming }) => mailroom.fetch(
      belowPrefix(request, incoming.url ?? "/", prefix),
      // The socket's peer, not request.ip: which proxies to believe is Mailroom's own `trustProxy` setting.
      { clientAddress: incoming.socket.remoteAddress ?? null, httpVersion: incoming.httpVersion },
    ),
    {
      // The host owns the process: leave the global Request and Response alone.
      overrideGlobalObjects: false,
      // Once the body is read whole (below), draining the socket again would close the kept-alive connection.
      autoCleanupIncoming,
      errorHandler: (error) => {
        if (error instanceof RequestError) return new Response(null, { status: 400 })
        fastify.log.error({ err: error }, "mailroom handler failed")
        return new Response(null, { status: 500 })
      },
    },
  )
  const streaming = listen(true)
  const whole = listen(false)

  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    // The router may match forms of the path that do not start with the prefix as written (decoded or
    // case-folded ones); those have no unambiguous path below the prefix.
    if (!(request.raw.url ?? "").startsWith(prefix)) return reply.callNotFound()
    reply.hijack()
    closeLingering(request.raw)
    const small = readSmallBody(request.raw)
    if (small === undefined) return streaming(request.raw, reply.raw)
    let body: Buffer
    try {
      body = await small
    } catch {
      // The client went away before sending its body: there is nobody to answer.
      return
    }
    // @hono/node-server builds the web Request's body from `rawBody` when the stream is already read.
    Object.assign(request.raw, { rawBody: body })
    return whole(request.raw, reply.raw)
  }
  fastify.all("/", forward)
  fastify.all("/*", forward)
  done()
}

/** Bodies up to this size that declare their length are read from the socket before the request is converted: one
 *  Buffer handed over whole costs less than Node's stream wrapped as a web stream. Larger bodies, and bodies without
 *  a declared length, are streamed to Mailroom, which enforces its body limit as it reads. */
const wholeBodyLimitBytes = 64 * 1024

/** The body of an unread request that declares a length of at most `wholeBodyLimitBytes`, read whole; undefined for
 *  any other request. Rejects when the client goes away before the body is complete. */
const readSmallBody = (incoming: IncomingMessage): Promise<Buffer> | undefined => {
  if (incoming.method === "GET" || incoming.method === "HEAD" || incoming.readableEnded) return undefined
  const declared = incoming.headers["content-length"]
  if (declared === undefined || !/^\d+$/.test(declared)) return undefined
  const length = Number(declared)
  if (length === 0 || length > wholeBodyLimitBytes) return undefined
  return new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
    incoming.once("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)))
    incoming.once("error", reject)
    incoming.once("close", () => {
      if (!incoming.readableEnded) reject(new Error("the client closed the connection before sending the whole body"))
    })
  })
}

/** `request` as Mailroom sees it: the prefix removed from the request target as the client wrote it, the
 *  rest unchanged. */
const belowPrefix = (request: Request, target: string, prefix: string): Request => {
  if (prefix === "") return request
  const rest = target.slice(prefix.length)
  const url = `${new URL(request.url).origin}${rest.startsWith("/") ? rest : `/${rest}`}`
  const hasBody = request.method !== "GET" && request.method !== "HEAD"
  return new Request(url, {
    method: request.method,
    headers: request.headers,
    body: hasBody ? request.body : null,
    signal: request.signal,
    duplex: "half",
  } as RequestInit)
}
