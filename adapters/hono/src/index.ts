// Mounts Mailroom's web-standard handler on a Hono app. No route logic lives here: Mailroom answers
// everything under the base path, the host answers everything else.
import type { Env, Hono, Schema } from "hono"

/** What an adapter needs from a Mailroom: the handler that `createMailroom(…)` returns as `fetch`. */
export interface MailroomHandler {
  readonly fetch: (request: Request) => Promise<Response>
}

/**
 * Serves `mailroom` under `basePath` ("/mailroom", or "/" or "" for the root of the app): a request to
 * `${basePath}/v1/contacts` reaches Mailroom as `/v1/contacts`, with its method, headers, body and signal.
 * Routes the host registers before this call keep precedence over Mailroom's.
 */
export const mountMailroom = <E extends Env, S extends Schema, B extends string>(
  app: Hono<E, S, B>,
  basePath: string,
  mailroom: MailroomHandler,
): Hono<E, S, B> =>
  // `app.mount` strips the base path (the app's own basePath included). It is deprecated from hono 4.13.13
  // in favour of `hono/mount`, which the supported range (^4.10) does not have yet. It would mount "" on
  // the exact path "/" only, hence the fallback.
  app.mount(basePath === "" ? "/" : basePath, (request: Request) => mailroom.fetch(request))
