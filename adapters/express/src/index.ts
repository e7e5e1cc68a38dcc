// Mounts Mailroom's web-standard handler on Express: converts the Node request to a web Request and writes the
// web Response back. No route logic lives here. @hono/node-server does the conversion: streamed bodies both
// ways, backpressure, every Set-Cookie, client aborts.
import { getRequestListener, RequestError } from "@hono/node-server"
import type { NextFunction, Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from "express"

/** What an adapter needs from a Mailroom: the handler that `createMailroom(…)` returns as `fetch`. */
export interface MailroomHandler {
  readonly fetch: (request: Request) => Promise<Response>
}

/**
 * Express middleware that hands every request it sees to `mailroom`. Mount it with `app.use(basePath, …)`:
 * Express strips the mount path, so `${basePath}/v1/contacts` reaches Mailroom as `/v1/contacts`.
 *
 * Mount it before any body parser. When a parser has already read the body, the body is rebuilt from
 * `req.rawBody` (a Buffer) or from `req.body`, which cannot restore the exact bytes the client sent.
 * A handler that fails is passed to `next(error)`.
 */
export const mailroomMiddleware = (mailroom: MailroomHandler): RequestHandler =>
  (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    const readBody = bodyReadByParser(req)
    const listener = getRequestListener(
      (request: Request) =>
        mailroom.fetch(readBody === undefined ? request : withBody(request, readBody, clientGone(res))),
      {
        // The host owns the process: leave the global Request and Response alone.
        overrideGlobalObjects: false,
        // A parser already drained the socket; draining it again would close the kept-alive connection.
        autoCleanupIncoming: readBody === undefined,
        errorHandler: (error) => {
          if (error instanceof RequestError) return new Response(null, { status: 400 })
          next(error)
        },
      },
    )
    void listener(req, res)
  }

/** The body a parser mounted before Mailroom has consumed, serialised again; undefined when the stream is
 *  still unread. */
const bodyReadByParser = (req: ExpressRequest): Uint8Array<ArrayBuffer> | undefined => {
  if (!req.readableEnded || req.method === "GET" || req.method === "HEAD") return undefined
  const { rawBody } = req as ExpressRequest & { rawBody?: unknown }
  if (rawBody instanceof Uint8Array) return new Uint8Array(rawBody)
  const body: unknown = req.body
  if (body === undefined || body === null) return new Uint8Array(0)
  if (body instanceof Uint8Array) return new Uint8Array(body)
  if (typeof body === "string") return Buffer.from(body)
  if (req.is("application/x-www-form-urlencoded")) return Buffer.from(formEncode(body as Record<string, unknown>))
  return Buffer.from(JSON.stringify(body))
}

const formEncode = (fields: Record<string, unknown>): string => {
  const form = new URLSearchParams()
  for (const [name, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) form.append(name, String(item))
  }
  return form.toString()
}

/** `request` with `body` in place of the one on the socket, and a Content-Length that matches it. The signal
 *  is passed in because `request.signal` would build a body from the drained socket. */
const withBody = (request: Request, body: Uint8Array<ArrayBuffer>, signal: AbortSignal): Request => {
  const headers = new Headers(request.headers)
  headers.delete("transfer-encoding")
  headers.set("content-length", String(body.byteLength))
  return new Request(request.url, { method: request.method, headers, body, signal })
}

/** Aborts when the connection closes before the response is finished, as @hono/node-server's own signal does. */
const clientGone = (res: ExpressResponse): AbortSignal => {
  const controller = new AbortController()
  res.once("close", () => { if (!res.writableFinished) controller.abort() })
  return controller.signal
}
