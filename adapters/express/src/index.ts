// Mounts Mailroom's web-standard handler on Express: converts the Node request to a web Request and writes the
// web Response back. No route logic lives here. @hono/node-server does the conversion: streamed bodies both
// ways, backpressure, every Set-Cookie, client aborts.
import { getRequestListener, RequestError } from "@hono/node-server"
import { closeLingering, type MailroomHandler } from "@mailroom/http"
import type { NextFunction, Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from "express"

export type { MailroomHandler } from "@mailroom/http"

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
    closeLingering(req)
    const small = readSmallBody(req)
    if (small === undefined) return serve(mailroom, req, res, next, bodyReadByParser(req))
    small.then(
      (body) => {
        // @hono/node-server builds the web Request's body from `rawBody` when the stream is already read.
        Object.assign(req, { rawBody: body })
        serve(mailroom, req, res, next, undefined)
      },
      // The client went away before sending its body: there is nobody to answer.
      () => undefined,
    )
  }

const serve = (
  mailroom: MailroomHandler,
  req: ExpressRequest,
  res: ExpressResponse,
  next: NextFunction,
  readBody: Uint8Array<ArrayBuffer> | undefined,
) => {
  const listener = getRequestListener(
    (request: Request) => mailroom.fetch(
      readBody === undefined ? request : withBody(request, readBody, clientGone(res)),
      // The socket's peer, not req.ip: which proxies to believe is Mailroom's own `trustProxy` setting.
      { clientAddress: req.socket.remoteAddress ?? null, httpVersion: req.httpVersion },
    ),
    {
      // The host owns the process: leave the global Request and Response alone.
      overrideGlobalObjects: false,
      // Once the body is read (by a parser or whole, above), draining the socket again would close the kept-alive
      // connection.
      autoCleanupIncoming: !req.readableEnded,
      errorHandler: (error) => {
        if (error instanceof RequestError) return new Response(null, { status: 400 })
        next(error)
      },
    },
  )
  void listener(req, res)
}

/** Bodies up to this size that declare their length are read from the socket before the request is converted: one
 *  Buffer handed over whole costs less than Node's stream wrapped as a web stream. Larger bodies, and bodies without
 *  a declared length, are streamed to Mailroom, which enforces its body limit as it reads. */
const wholeBodyLimitBytes = 64 * 1024

/** The body of an unread request that declares a length of at most `wholeBodyLimitBytes`, read whole; undefined for
 *  any other request. Rejects when the client goes away before the body is complete. */
const readSmallBody = (req: ExpressRequest): Promise<Buffer> | undefined => {
  if (req.method === "GET" || req.method === "HEAD" || req.readableEnded) return undefined
  const declared = req.headers["content-length"]
  if (declared === undefined || !/^\d+$/.test(declared)) return undefined
  const length = Number(declared)
  if (length === 0 || length > wholeBodyLimitBytes) return undefined
  return new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.once("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)))
    req.once("error", reject)
    req.once("close", () => {
      if (!req.readableEnded) reject(new Error("the client closed the connection before sending the whole body"))
    })
  })
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
