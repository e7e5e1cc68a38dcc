/** A Mailroom router over the memory backend, with helpers to call it as a client would and to read its logs. */
import { IdsLive, servicesLayer, type Store } from "@mailroom/core"
import { MemoryStore } from "@mailroom/memory"
import { makeCaptureMailer, templateEngineDouble } from "@mailroom/testing"
import { HashMap, Layer, Logger, LogLevel, ManagedRuntime, TestContext } from "effect"
import { afterAll } from "vitest"
import { type HttpApp, type HttpAppOptions, type HttpRuntime, makeHttpApp } from "../src/index.js"

export const adminToken = "test-admin-token"

export interface LoggedLine {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
  readonly cause: string
}

/** A logger that keeps every line, so that tests can check what was logged and that nothing leaks to the console. */
const recordingLogger = (lines: Array<LoggedLine>) =>
  Logger.replace(Logger.defaultLogger, Logger.make(({ logLevel, message, annotations, cause }) => {
    lines.push({
      level: logLevel.label,
      message: Array.isArray(message) ? message.map(String).join(" ") : String(message),
      annotations: Object.fromEntries(HashMap.toEntries(annotations)),
      cause: String(cause),
    })
  }))

export interface TestApp {
  readonly fetch: (request: Request) => Promise<Response>
  /** The router itself, for requests that carry the host's options (`{ clientAddress }`). */
  readonly app: HttpApp
  readonly logs: ReadonlyArray<LoggedLine>
  readonly runtime: HttpRuntime
}

/** A router over a fresh memory store (or `store`, to replace the backend), disposed after the file's tests. With
 *  `testClock`, the runtime's Clock is a TestClock (at 0 until a test moves it with `runtime.runPromise(TestClock…)`);
 *  `logLevel` is the least level logged (default Info, Effect's own). */
export const makeTestApp = (
  options: Omit<HttpAppOptions, "runtime"> = {},
  store: Layer.Layer<Store> = MemoryStore.layer,
  { testClock = false, logLevel = LogLevel.Info }: { readonly testClock?: boolean; readonly logLevel?: LogLevel.LogLevel } = {},
): TestApp => {
  const logs: Array<LoggedLine> = []
  const runtime = ManagedRuntime.make(
    servicesLayer.pipe(
      Layer.provideMerge(Layer.mergeAll(store, IdsLive, makeCaptureMailer().layer, templateEngineDouble)),
      Layer.provide(recordingLogger(logs)),
      Layer.provide(Logger.minimumLogLevel(logLevel)),
      Layer.provideMerge(testClock ? TestContext.TestContext : Layer.empty),
    ),
  )
  afterAll(() => runtime.dispose())
  const app = makeHttpApp({ adminToken, ...options, runtime })
  return { fetch: async (request) => app.fetch(request), app, logs, runtime }
}

export interface CallOptions {
  readonly key?: string
  readonly body?: unknown
  /** A raw body, sent as is. */
  readonly raw?: BodyInit
  readonly headers?: Record<string, string>
}

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly json: any
  readonly text: string
}

/** Calls the app as an HTTP client would and reads the whole answer. */
export const call = async (app: TestApp, method: string, path: string, options: CallOptions = {}): Promise<Answer> => {
  const headers: Record<string, string> = { ...options.headers }
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`
  let body: BodyInit | undefined = options.raw
  if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers["content-type"] = "application/json"
  }
  const response = await app.fetch(new Request(`http://mailroom.test${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body, duplex: "half" }),
  }))
  const text = await response.text()
  let json: unknown = undefined
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, json, text }
}

/** A new account through /admin, answering its id and full-access key. */
export const newAccount = async (app: TestApp, body: Record<string, unknown> = {}) => {
  const answer = await call(app, "POST", "/admin/accounts", { key: adminToken, body })
  if (answer.status !== 201) throw new Error(`account creation failed: ${answer.text}`)
  return { id: answer.json.id as string, key: answer.json.apiKey as string }
}

/** A key of the account with only these scopes. */
export const scopedKey = async (app: TestApp, accountId: string, scopes: ReadonlyArray<string>) => {
  const answer = await call(app, "POST", `/admin/accounts/${accountId}/api-keys`, { key: adminToken, body: { scopes } })
  if (answer.status !== 201) throw new Error(`key creation failed: ${answer.text}`)
  return answer.json.key as string
}
