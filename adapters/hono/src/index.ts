// Mounts Mailroom's web-standard handler on a Hono app. No route logic lives here: Mailroom answers
// everything under the base path, the host answers everything else.
import { closeLingering, type MailroomHandler } from "@mailroom/http"
import type { IncomingMessage } from "node:http"
import type { Context, Env, Hono, Next, Schema } from "hono"
import { routePath } from "hono/route"

export type { MailroomHandler } from "@mailroom/http"

export interface MountOptions {
  /** The peer address of the connection a request came on. Default: the socket's remote address when
   *  @hono/node-server serves the app (Hono's `getConnInfo` of another runtime can be passed here). */
  readonly clientAddress?: (c: Context) => string | null
}

/** The HTTP version of @hono/node-server's request, when it serves the app. */
const nodeHttpVersion = (c: Context): string | undefined => {
  const version = (c.env as { incoming?: { httpVersion?: unknown } } | undefined)?.incoming?.httpVersion
  return typeof version === "string" ? version : undefined
}

/** @hono/node-server's request, when it serves the app: its connection closes lingering (see `closeLingering`). */
const lingerOnNode = (c: Context): void => {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  if (incoming?.socket !== undefined) closeLingering(incoming)
}

/** The remote address of @hono/node-server's socket, when it serves the app. */
const nodeSocketAddress = (c: Context): string | null => {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: unknown } } } | undefined
  const address = env?.incoming?.socket?.remoteAddress
  return typeof address === "string" ? address : null
}

/** The route `app.mount("/", …)` registers when nothing (base path, app basePath, parent route) prefixes it. */
const rootRoute = "/*"

/**
 * Serves `mailroom` under `basePath` ("/mailroom", or "/" or "" for the root of the app): a request to
 * `${basePath}/v1/contacts` reaches Mailroom as `/v1/contacts`, with its method, headers, body and signal, and with
 * the peer address of its connection (see `MountOptions`).
 * Routes the host registers before this call keep precedence over Mailroom's.
 */
export const mountMailroom = <E extends Env, S extends Schema, B extends string>(
  app: Hono<E, S, B>,
  basePath: string,
  mailroom: MailroomHandler,
  options: MountOptions = {},
): Hono<E, S, B> => {
  const path = basePath === "" ? "/" : basePath
  const clientAddress = options.clientAddress ?? nodeSocketAddress
  if (path === "/") {
    // With no prefix anywhere above it there is nothing to strip, so the request goes over as it came: `app.mount`
    // would copy it (a second Request, and the body stream piped into it). The app's own basePath or a parent's
    // `route()` shows in the matched route, and such requests fall through to the mount below.
    app.all(rootRoute, (c: Context, next: Next) => {
      if (routePath(c) !== rootRoute) return next()
      lingerOnNode(c)
      return mailroom.fetch(c.req.raw, { clientAddress: clientAddress(c), httpVersion: nodeHttpVersion(c) })
    })
  }
  // `app.mount` strips the base path (the app's own basePath included). It is deprecated from hono 4.13.13
  // in favour of `hono/mount`, which the supported range (^4.10) does not have yet. It would mount "" on
  // the exact path "/" only, hence the fallback. The option handler replaces the default arguments (env and
  // execution context): asking Node's Hono for an execution context throws, with a stack trace, per request.
  return app.mount(
    path,
    (request: Request, address: string | null, httpVersion: string | undefined) =>
      mailroom.fetch(request, { clientAddress: address, httpVersion }),
    {
      optionHandler: (c) => {
        lingerOnNode(c)
        return [clientAddress(c), nodeHttpVersion(c)]
      },
    },
  )
}
