import { serve } from "@hono/node-server"
import { adapterHostOf, adapterSuite, httpSuite, keepAliveSuite, oversizedBodySuite, targetOverHttp, withinOneSecond } from "@mailroom/testing"
import type { FetchHandler, StartAdapterHost } from "@mailroom/testing"
import type { Server } from "node:http"
import { Hono } from "hono"
import { createMailroom } from "@mailroom/mailroom"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mountMailroom } from "../src/index.js"

const listen = (app: Pick<Hono, "fetch">) =>
  adapterHostOf(serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server)

const startHost: StartAdapterHost = (mailroom, basePath) => {
  const app = new Hono()
  app.get("/host/hello", (c) => c.text("hello from the host"))
  mountMailroom(app, basePath, mailroom)
  return listen(app)
}

adapterSuite("hono", startHost)

keepAliveSuite("hono", startHost, async ({ rateLimits }) => {
  const mailroom = createMailroom({ database: "memory:", adminToken: "test-admin-token", rateLimits })
  await mailroom.ready()
  return mailroom
})

oversizedBodySuite("hono", startHost, async () => {
  const mailroom = createMailroom({ database: "memory:", adminToken: "test-admin-token" })
  await mailroom.ready()
  return mailroom
})

// @hono/node-server serving the facade's fetch itself, with no Hono app around it.
// The handler is the Mailroom made below, whose fetch takes @hono/node-server's `{ incoming }` as its options.
const serveFetch: StartAdapterHost = (mailroom) =>
  listen({ fetch: (request: Request, env: unknown) => mailroom.fetch(request, env as { readonly clientAddress?: string | null }) })

oversizedBodySuite("mailroom.fetch on @hono/node-server", serveFetch, async () => {
  const mailroom = createMailroom({ database: "memory:", adminToken: "test-admin-token" })
  await mailroom.ready()
  return mailroom
}, "")

httpSuite("hono", async ({ rateLimits }) => {
  const mailroom = createMailroom({ database: "memory:", adminToken: "test-admin-token", rateLimits })
  await mailroom.ready()
  const app = new Hono()
  mountMailroom(app, "/mailroom", mailroom)
  return targetOverHttp(await listen(app), "/mailroom", mailroom.close)
})

describe("mountMailroom", () => {
  const echoPath: FetchHandler = { fetch: async (request) => new Response(new URL(request.url).pathname) }
  let host: Awaited<ReturnType<typeof listen>>

  beforeAll(async () => {
    const app = new Hono().basePath("/api")
    mountMailroom(app, "/mailroom", echoPath)
    host = await listen(app)
  })
  afterAll(() => host.close())

  it("strips the app's own basePath together with the mount path", async () => {
    const response = await fetch(`${host.origin}/api/mailroom/v1/contacts`)
    expect(await response.text()).toBe("/v1/contacts")
  })

  it("leaves the path outside the app's basePath to Hono's 404", async () => {
    const response = await fetch(`${host.origin}/mailroom/v1/contacts`)
    expect(response.status).toBe(404)
    expect(await response.text()).toBe("404 Not Found")
  })
})

describe("mountMailroom at the root", () => {
  const echoPath: FetchHandler = { fetch: async (request) => new Response(new URL(request.url).pathname) }

  it("hands the request itself to Mailroom when nothing prefixes the mount", async () => {
    const seen: Array<Request> = []
    const app = new Hono()
    mountMailroom(app, "", { fetch: async (request) => { seen.push(request); return new Response(await request.text()) } })
    const request = new Request("http://host.test/v1/contacts", { method: "POST", body: "{}" })
    const response = await app.fetch(request)
    expect(await response.text()).toBe("{}")
    expect(seen).toHaveLength(1)
    expect(seen[0]).toBe(request)
  })

  it("still strips the app's basePath", async () => {
    const app = new Hono().basePath("/api")
    mountMailroom(app, "/", echoPath)
    expect(await (await app.request("/api/v1/contacts")).text()).toBe("/v1/contacts")
  })

  it("still strips the path of a parent app that routes to the app", async () => {
    const app = new Hono()
    mountMailroom(app, "", echoPath)
    const parent = new Hono().route("/mailroom", app)
    expect(await (await parent.request("/mailroom/v1/contacts?page=2")).text()).toBe("/v1/contacts")
  })
})

describe("the client address over a real connection", () => {
  /** Spends `limit` requests to `path` of one address and answers the status of
   *  the next one. */
  const spend = async (origin: string, limit: number, forwardedFor: string, path: string) => {
    for (let i = 0; i < limit; i++) await (await fetch(`${origin}${path}`, { headers: { "x-forwarded-for": forwardedFor } })).arrayBuffer()
    const next = await fetch(`${origin}${path}`, { headers: { "x-forwarded-for": forwardedFor } })
    await next.arrayBuffer()
    return next.status
  }

  // Each limit counts per client address: public requests (2 a second here) and failed authentications (2 a minute).
  // After one address spent its two, another address is refused too unless a trusted proxy tells them apart.
  const publicRequests = { publicRequestsPerSecond: 2 }
  const failedAuthentications = { failedAuthenticationsPerMinute: 2 }
  it.each([
    ["by default X-Forwarded-For is ignored: a spoofed address shares the peer's count of public requests", publicRequests, "/u/not-a-token", undefined, 429],
    ["behind a trusted loopback proxy, each forwarded address has its own count of public requests", publicRequests, "/u/not-a-token", ["loopback"], 400],
    ["by default X-Forwarded-For is ignored: a spoofed address shares the peer's count", failedAuthentications, "/v1/contacts", undefined, 429],
    ["behind a trusted loopback proxy, each forwarded address has its own count", failedAuthentications, "/v1/contacts", ["loopback"], 401],
  ] as const)("%s", async (_, rateLimits, path, trustProxy, otherStatus) => {
    const mailroom = createMailroom({
      database: "memory:",
      rateLimits,
      ...(trustProxy === undefined ? {} : { trustProxy: [...trustProxy] }),
    })
    const app = new Hono()
    mountMailroom(app, "/", mailroom)
    const host = await listen(app)
    try {
      // The per-second window must not roll over between the two addresses.
      await withinOneSecond(async () => {
        expect(await spend(host.origin, 2, "203.0.113.7", path)).toBe(429)
        expect(await spend(host.origin, 0, "203.0.113.8", path)).toBe(otherStatus)
      })
    } finally {
      await host.close()
      await mailroom.close()
    }
  })
})
