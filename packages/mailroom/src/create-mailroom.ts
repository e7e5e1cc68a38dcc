/** createMailroom: wires the chosen backend, ids, every service, one ManagedRuntime and the router, and hands the host
 *  a web-standard `fetch`, Promise methods and the layer for Effect code. */
import { AccountsConfig, IdsLive, servicesLayer, Tracing } from "@mailroom/core"
import { type FetchOptions, type HttpApp, type HttpServices, makeHttpApp } from "@mailroom/http"
import { Cause, Effect, Exit, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import { type AccountsApi, makeAccountsApi } from "./accounts-api.js"
import { mailerLayer, sendsToDevOutbox } from "./mail.js"
import { storeLayer } from "./backend.js"
import { defaultDatabase, type MailroomConfig, parseDatabase } from "./config.js"
import { type ContactsApi, makeContactsApi } from "./contacts-api.js"
import { makeRunPromise } from "./promise-runner.js"

export interface Mailroom {
  /** The web-standard handler: /v1/…, /admin/… and /api/health, relative to where the host mounts it. A host that
   *  knows the peer address of the connection passes it as `{ clientAddress }` (the framework adapters do); without it
   *  the client address is unknown, unless @hono/node-server serves `fetch` itself (its `{ incoming }` tells it). */
  readonly fetch: (request: Request, options?: FetchOptions) => Promise<Response>
  readonly accounts: AccountsApi
  readonly contacts: ContactsApi
  /** Every service, the Store, Ids and the Mailer, for Effect hosts. It shares this Mailroom's instances (same database, same
   *  connections): building it does not open a second backend. */
  readonly layer: Layer.Layer<HttpServices, unknown>
  /** The runtime behind `fetch` and the Promise methods. */
  readonly runtime: ManagedRuntime.ManagedRuntime<HttpServices, unknown>
  /** The Hono app behind `fetch`, for hosts that compose Hono apps. */
  readonly app: HttpApp
  /** Resolves once the backend is open and migrated; rejects with the reason it could not start. Optional: the first
   *  request starts it too. */
  readonly ready: () => Promise<void>
  /** Closes the backend and releases every resource. Safe to call more than once. */
  readonly close: () => Promise<void>
}

const logLevels = {
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  error: LogLevel.Error,
} as const

export const createMailroom = (config: MailroomConfig = {}): Mailroom => {
  const database = parseDatabase(config.database ?? defaultDatabase)
  const mailer = mailerLayer(config)
  const tracing = config.tracing ?? false
  const services = servicesLayer.pipe(
    Layer.provideMerge(mailer.pipe(Layer.provideMerge(Layer.mergeAll(
      storeLayer(database, { sqliteSynchronous: config.sqliteSynchronous }),
      IdsLive,
      Layer.succeed(AccountsConfig, { secret: config.secret }),
      Layer.succeed(Tracing, tracing),
    )))),
  )
  const runtime = ManagedRuntime.make(Layer.mergeAll(
    services,
    // Log lines go to stderr, in Effect's usual format: stdout belongs to the host (the starter prints its URL there).
    Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.stringLogger)),
    Logger.minimumLogLevel(logLevels[config.logLevel ?? "info"]),
    // Spans made below the services (@effect/sql makes one per statement) follow the same switch.
    Layer.setTracerEnabled(tracing),
  ))
  const app = makeHttpApp({
    runtime,
    adminToken: config.adminToken,
    devOutbox: sendsToDevOutbox(config),
    bodyLimitBytes: config.bodyLimitBytes,
    rateLimits: config.rateLimits,
    trustProxy: config.trustProxy,
  })
  const run = makeRunPromise(runtime)
  let closing: Promise<void> | undefined

  return {
    fetch: async (request, options) => app.fetch(request, options),
    accounts: makeAccountsApi(run),
    contacts: makeContactsApi(run, runtime),
    layer: Layer.effectContext(Effect.map(runtime, (rt) => rt.context)),
    runtime,
    app,
    ready: async () => {
      const exit = await Effect.runPromiseExit(runtime.runtimeEffect)
      if (Exit.isFailure(exit)) throw Cause.squash(exit.cause)
    },
    close: () => {
      closing ??= runtime.dispose()
      return closing
    },
  }
}
