// Mounts Mailroom's web-standard handler on Fastify as an encapsulated plugin. No route logic lives here:
// every method and path under the prefix goes to Mailroom with its body unread, and Mailroom's Response is
// streamed back on the hijacked reply. @hono/node-server converts between Node and web requests.
import { getRequestListener, RequestError } from "@hono/node-server"
import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from "fastify"

/** What an adapter needs from a Mailroom: the handler that `createMailroom(…)` returns as `fetch`. */
export interface MailroomHandler {
  readonly fetch: (request: Request) => Promise<Response>
}

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

  const listener = getRequestListener(
    (request: Request, { incoming }) => mailroom.fetch(belowPrefix(request, incoming.url ?? "/", prefix)),
    {
      // The host owns the process: leave the global Request and Response alone.
      overrideGlobalObjects: false,
      errorHandler: (error) => {
        if (error instanceof RequestError) return new Response(null, { status: 400 })
        fastify.log.error({ err: error }, "mailroom handler failed")
        return new Response(null, { status: 500 })
      },
    },
  )

  const forward = (request: FastifyRequest, reply: FastifyReply) => {
    // The router may match forms of the path that do not start with the prefix as written (decoded or
    // case-folded ones); those have no unambiguous path below the prefix.
    if (!(request.raw.url ?? "").startsWith(prefix)) return reply.callNotFound()
    reply.hijack()
    return listener(request.raw, reply.raw)
  }
  fastify.all("/", forward)
  fastify.all("/*", forward)
  done()
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
