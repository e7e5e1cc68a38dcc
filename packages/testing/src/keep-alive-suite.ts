/** Early answers on kept-alive connections: an answer Mailroom gives before it has read the request body (413, 401,
 *  403, 404, 429) must leave the connection able to carry the client's next request, or close it cleanly. Each
 *  framework adapter runs it over a real server with a real Mailroom, through an undici Agent that keeps one
 *  connection alive and counts the connections it opens. */
import { Readable } from "node:stream"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Agent, buildConnector, request } from "undici"
import type { AdapterHost, FetchHandler, StartAdapterHost } from "./adapter-suite.js"

/** A Mailroom with adminToken "test-admin-token" and the rate limits given, to mount in the host. */
export interface KeepAliveMailroom extends FetchHandler {
  readonly close: () => Promise<void>
}

export type MakeKeepAliveMailroom = (options: {
  readonly rateLimits: { readonly contactsCreatePerMinute: number }
}) => Promise<KeepAliveMailroom>

const adminToken = "test-admin-token"
const mebibyte = 1024 * 1024

/** An Agent with a single kept-alive connection, counting every connection it opens. */
const countingAgent = () => {
  const connect = buildConnector({})
  let opened = 0
  const agent = new Agent({
    connections: 1,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    connect: (options, callback) => {
      opened++
      connect(options, callback)
    },
  })
  return { agent, opened: () => opened }
}

/** A body streamed in 64 KiB chunks without a Content-Length (chunked transfer encoding). */
const chunked = (bytes: number): Readable => Readable.from((function* () {
  for (let sent = 0; sent < bytes; sent += 64 * 1024) yield Buffer.alloc(Math.min(64 * 1024, bytes - sent), 32)
})())

/** A multipart import whose file is `bytes` long, with its Content-Type. */
const importForm = (bytes: number) => {
  const boundary = "mailroom-keep-alive"
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="mappings"\r\n\r\n{"email":"email"}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\nemail\r\n`
  const body = Buffer.concat([Buffer.from(head), Buffer.alloc(bytes, 97), Buffer.from(`\r\n--${boundary}--\r\n`)])
  return { body, contentType: `multipart/form-data; boundary=${boundary}` }
}

interface Case {
  readonly name: string
  readonly status: number
  /** Bodies small enough to be read and discarded keep the connection; larger ones may close it. */
  readonly keepsConnection: boolean
  readonly send: (keys: Keys) => {
    readonly path: string
    readonly method: "POST"
    readonly headers: Record<string, string>
    readonly body: Buffer | Readable
  }
}

interface Keys {
  /** A full-access key made for the one case (POST /contacts is limited to one per key and minute here). */
  readonly full: string
  readonly readOnly: string
  /** A key whose one POST /contacts of the minute is spent. */
  readonly limited: string
}

const json = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" })

const cases: ReadonlyArray<Case> = [
  {
    name: "413 on a declared length over 8 MiB",
    status: 413,
    keepsConnection: false,
    send: (keys) => ({ path: "/v1/contacts", method: "POST", headers: json(keys.full), body: Buffer.alloc(8 * mebibyte + 1, 32) }),
  },
  {
    name: "413 when a streamed body passes 8 MiB",
    status: 413,
    keepsConnection: false,
    send: (keys) => ({ path: "/v1/contacts", method: "POST", headers: json(keys.full), body: chunked(9 * mebibyte) }),
  },
  {
    name: "413 on a CSV import over 2 MiB",
    status: 413,
    keepsConnection: false,
    send: (keys) => {
      const form = importForm(3 * mebibyte)
      return {
        path: "/v1/contacts/import",
        method: "POST",
        headers: { authorization: `Bearer ${keys.full}`, "content-type": form.contentType },
        body: form.body,
      }
    },
  },
  {
    name: "401 to a small body",
    status: 401,
    keepsConnection: true,
    send: () => ({ path: "/v1/contacts", method: "POST", headers: json("svc_live_" + "0".repeat(48)), body: Buffer.alloc(100 * 1024, 32) }),
  },
  {
    name: "401 to a large body",
    status: 401,
    keepsConnection: false,
    send: () => ({ path: "/v1/contacts", method: "POST", headers: json("svc_live_" + "0".repeat(48)), body: Buffer.alloc(4 * mebibyte, 32) }),
  },
  {
    name: "401 on /admin to a body",
    status: 401,
    keepsConnection: true,
    send: () => ({ path: "/admin/accounts", method: "POST", headers: json("wrong-token"), body: Buffer.alloc(64 * 1024, 32) }),
  },
  {
    name: "403 to a small body",
    status: 403,
    keepsConnection: true,
    send: (keys) => ({ path: "/v1/contacts", method: "POST", headers: json(keys.readOnly), body: Buffer.from('{"email":"x@example.com"}') }),
  },
  {
    name: "403 to a large body",
    status: 403,
    keepsConnection: false,
    send: (keys) => ({ path: "/v1/contacts", method: "POST", headers: json(keys.readOnly), body: Buffer.alloc(4 * mebibyte, 32) }),
  },
  {
    name: "404 to a chunked body",
    status: 404,
    keepsConnection: true,
    send: (keys) => ({ path: "/v1/no-such-route", method: "POST", headers: json(keys.full), body: chunked(200 * 1024) }),
  },
  {
    name: "429 to a large body",
    status: 429,
    keepsConnection: false,
    send: (keys) => ({ path: "/v1/contacts", method: "POST", headers: json(keys.limited), body: Buffer.alloc(2 * mebibyte, 32) }),
  },
]

/** Runs the early-answer contract against one framework adapter. */
export const keepAliveSuite = (framework: string, start: StartAdapterHost, makeMailroom: MakeKeepAliveMailroom) =>
  describe(`${framework} adapter: early answers on kept-alive connections`, () => {
    let mailroom: KeepAliveMailroom
    let host: AdapterHost
    let account: { readonly id: string; readonly readOnly: string; readonly limited: string }
    const at = (path: string) => `${host.origin}/mailroom${path}`

    const admin = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" }
    const call = async (path: string, init: { method: string; headers?: Record<string, string>; body?: string }) => {
      const response = await fetch(at(path), init)
      const body = await response.json()
      if (!response.ok) throw new Error(`${init.method} ${path} answered ${response.status}: ${JSON.stringify(body)}`)
      return body
    }

    beforeAll(async () => {
      mailroom = await makeMailroom({ rateLimits: { contactsCreatePerMinute: 1 } })
      host = await start(mailroom, "/mailroom")
      const created = await call("/admin/accounts", { method: "POST", headers: admin, body: '{"plan":"pro"}' })
      const readOnly = await call(`/admin/accounts/${created.id}/api-keys`, { method: "POST", headers: admin, body: '{"scopes":["contacts:read"]}' })
      const limited = await call(`/admin/accounts/${created.id}/api-keys`, { method: "POST", headers: admin, body: "{}" })
      await call("/v1/contacts", { method: "POST", headers: json(limited.key), body: '{"email":"first@example.com"}' })
      account = { id: created.id, readOnly: readOnly.key, limited: limited.key }
    })
    afterAll(async () => {
      await host?.close()
      await mailroom?.close()
    })

    it.each(cases)("$name, then an ordinary request on the same client succeeds", async ({ status, keepsConnection, send }) => {
      const full = await call(`/admin/accounts/${account.id}/api-keys`, { method: "POST", headers: admin, body: "{}" })
      const keys: Keys = { full: full.key, readOnly: account.readOnly, limited: account.limited }
      const { agent, opened } = countingAgent()
      try {
        const early = send(keys)
        const first = await request(at(early.path), { method: early.method, headers: early.headers, body: early.body, dispatcher: agent })
        const answer = await first.body.text()
        expect(first.statusCode, answer).toBe(status)
        const closes = first.headers["connection"] === "close"
        if (keepsConnection) expect(closes).toBe(false)

        const next = await request(at("/v1/contacts?limit=1"), { headers: { authorization: `Bearer ${full.key}` }, dispatcher: agent })
        expect(next.statusCode).toBe(200)
        expect(JSON.parse(await next.body.text())).toMatchObject({ success: true })
        // Reused when the early answer kept the connection; replaced by exactly one new one when it closed it.
        expect(opened()).toBe(closes ? 2 : 1)
      } finally {
        await agent.close()
      }
    })

    it("keeps serving one connection through a run of early answers and ordinary requests", async () => {
      const { agent, opened } = countingAgent()
      try {
        for (let round = 0; round < 5; round++) {
          const refused = await request(at("/v1/contacts"), {
            method: "POST", headers: json(account.readOnly), body: Buffer.alloc(32 * 1024, 32), dispatcher: agent,
          })
          await refused.body.text()
          expect(refused.statusCode).toBe(403)
          const listed = await request(at("/v1/contacts?limit=1"), { headers: { authorization: `Bearer ${account.readOnly}` }, dispatcher: agent })
          await listed.body.text()
          expect(listed.statusCode).toBe(200)
        }
        expect(opened()).toBe(1)
      } finally {
        await agent.close()
      }
    })
  })
