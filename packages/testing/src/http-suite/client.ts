/** The HTTP client of the scenario suite: calls a target as any client would, and makes accounts and keys through
 *  the operator API. Requests are addressed to http://mailroom.test; a target that runs a real server rewrites the
 *  origin (and adds its base path) before sending them on. */
import type { RateLimiterMemory } from "rate-limiter-flexible"
import { expect } from "vitest"
import type { LimiterSpec } from "../held-window-limiter.js"

/** A Mailroom configured with adminToken "test-admin-token", mounted however the caller likes. */
export interface HttpTarget {
  readonly fetch: (request: Request) => Promise<Response>
  readonly close: () => Promise<void>
}

/** What the suite asks of the Mailroom behind a target, besides adminToken "test-admin-token": createMailroom's
 *  `rateLimits` option, to be passed on as it is. */
export interface HttpTargetConfig {
  readonly rateLimits: {
    readonly failedAuthenticationsPerMinute: number
    readonly publicRequestsPerSecond?: number
    readonly store?: (spec: LimiterSpec) => RateLimiterMemory
  }
}

export const adminToken = "test-admin-token"
export const origin = "http://mailroom.test"

export interface CallOptions {
  /** Sent as `Authorization: Bearer <key>`. */
  readonly key?: string
  /** Serialised as JSON with Content-Type application/json. */
  readonly body?: unknown
  /** Sent as is (malformed JSON, streams). */
  readonly raw?: BodyInit
  readonly headers?: Readonly<Record<string, string>>
  /** "manual" answers a redirect as it came (default "follow"). */
  readonly redirect?: RequestRedirect
}

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly contentType: string | null
  readonly text: string
  /** The parsed body, or undefined when it is not JSON. */
  readonly json: any
}

export interface Account {
  readonly id: string
  /** The full-access key made with the account. */
  readonly key: string
}

export interface Client {
  readonly call: (method: string, path: string, options?: CallOptions) => Promise<Answer>
  /** A new account (Free unless `plan` says otherwise). */
  readonly account: (body?: Record<string, unknown>) => Promise<Account>
  /** A new key of the account with exactly these scopes (all when omitted); answers the key and its id. */
  readonly key: (accountId: string, scopes?: ReadonlyArray<string>) => Promise<{ readonly id: string; readonly key: string }>
  /** POST /v1/contacts that must succeed; answers the contact. */
  readonly contact: (key: string, body: Record<string, unknown>) => Promise<any>
  /** GET /v1/contacts/{id} that must succeed; answers the contact. */
  readonly read: (key: string, id: string) => Promise<any>
  /** Total contacts of the account matching `query` (a query string without `?`). */
  readonly count: (key: string, query?: string) => Promise<number>
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export const makeClient = (target: () => HttpTarget): Client => {
  const call = async (method: string, path: string, options: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`
    let body = options.raw
    if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers["content-type"] = "application/json"
    }
    const init = {
      method, headers, ...(options.redirect === undefined ? {} : { redirect: options.redirect }),
      ...(body === undefined ? {} : { body, duplex: "half" }),
    }
    const response = await target().fetch(new Request(`${origin}${path}`, init))
    const text = await response.text()
    return { status: response.status, headers: response.headers, contentType: response.headers.get("content-type"), text, json: parse(text) }
  }

  const must = (answer: Answer, status: number, what: string) => {
    if (answer.status !== status) throw new Error(`${what} answered ${answer.status}: ${answer.text}`)
    return answer
  }

  return {
    call,
    account: async (body = {}) => {
      const answer = must(await call("POST", "/admin/accounts", { key: adminToken, body }), 201, "POST /admin/accounts")
      return { id: answer.json.id, key: answer.json.apiKey }
    },
    key: async (accountId, scopes) => {
      const body = scopes === undefined ? {} : { scopes }
      const answer = must(await call("POST", `/admin/accounts/${accountId}/api-keys`, { key: adminToken, body }), 201, "POST api-keys")
      return { id: answer.json.id, key: answer.json.key }
    },
    contact: async (key, body) => must(await call("POST", "/v1/contacts", { key, body }), 201, "POST /v1/contacts").json.data,
    read: async (key, id) => must(await call("GET", `/v1/contacts/${id}`, { key }), 200, "GET /v1/contacts/{id}").json.data,
    count: async (key, query = "") =>
      must(await call("GET", `/v1/contacts?limit=1${query === "" ? "" : `&${query}`}`, { key }), 200, "GET /v1/contacts").json.meta.total_count,
  }
}

/** Asserts the standard error envelope with this status and code (and, when given, error.context.field). */
export const expectError = (answer: Answer, status: number, code: string, field?: string) => {
  expect({ status: answer.status, code: answer.json?.error?.code }, answer.text).toEqual({ status, code })
  expect(answer.json).toEqual({
    success: false,
    error: expect.objectContaining({
      code,
      message: expect.any(String),
      fix_action: expect.any(String),
      docs_url: expect.any(String),
    }),
  })
  expect(answer.json.error.message.length).toBeGreaterThan(0)
  if (field !== undefined) expect(answer.json.error.context, answer.text).toEqual(expect.objectContaining({ field }))
}

/** A distinct address for this run, so that tests never collide. */
let counter = 0
export const freshEmail = (label = "contact") => `${label}-${Date.now().toString(36)}-${++counter}@example.com`
