import { abandonBody, adapterHostOf, adapterSuite, httpSuite, keepAliveSuite, oversizedBodySuite, targetOverHttp } from "@mailroom/testing"
import type { FetchHandler, StartAdapterHost } from "@mailroom/testing"
import Fastify from "fastify"
import type { FastifyInstance } from "fastify"
import { createMailroom } from "@mailroom/mailroom"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mailroomPlugin } from "../src/index.js"

const listen = async (app: FastifyInstance) => {
  await app.listen({ port: 0, host: "127.0.0.1" })
  return adapterHostOf(app.server)
}

const startHost: StartAdapterHost = async (mailroom, basePath) => {
  const app = Fastify()
  app.get("/host/hello", async () => "hello from the host")
  await app.register(mailroomPlugin, { prefix: basePath, mailroom })
  return listen(app)
}

adapterSuite("fastify", startHost)

keepAliveSuite("fastify", startHost, async ({ rateLimits }) => {
  const mailroom = createMailroom({ database: "memory:", adminToken: "test-admin-token", rateLimits })
  await mailroom.ready()
  return mailroom
})

oversizedBodySuite("fastify", startHost, async () => {
  const mailroom = createMailroom({ database: "memory:", adminToken: "test-admin-token" })
  await mailroom.ready()
  return mailroom
})

httpSuite("fastify", async ({ rateLimits }) => {
  const mailroom = createMailroom({ database: "memory:", adminToken: "test-admin-token", rateLimits })
  await mailroom.ready()
  const app = Fastify()
  await app.register(mailroomPlugin, { prefix: "/mailroom", mailroom })
  return targetOverHttp(await listen(app), "/mailroom", mailroom.close)
})

/** Answers with what reached it: path, Content-Type and body text; counts the requests it saw. */
let echoed = 0
const echo: FetchHandler = {
  fetch: async (request) => (echoed++, Response.json({
    path: new URL(request.url).pathname,
    contentType: request.headers.get("content-type"),
    body: await request.text(),
  })),
}

describe("mailroomPlugin", () => {
  let host: Awaited<ReturnType<typeof listen>>

  beforeAll(async () => {
    const app = Fastify()
    app.post("/host/json", async (request) => ({ parsedByHost: request.body }))
    await app.register(async (api) => {
      await api.register(mailroomPlugin, { prefix: "/mailroom", mailroom: echo })
    }, { prefix: "/api" })
    host = await listen(app)
  })
  afterAll(() => host.close())

  it("strips the prefixes of enclosing plugins too", async () => {
    const response = await fetch(`${host.origin}/api/mailroom/v1/contacts?page=2`)
    expect(await response.json()).toMatchObject({ path: "/v1/contacts" })
  })

  it("passes bodies of any content type through unparsed", async () => {
    const response = await fetch(`${host.origin}/api/mailroom/v1/imports`, {
      method: "POST", headers: { "content-type": "text/csv" }, body: "email\nada@example.com\n",
    })
    expect(await response.json()).toEqual({ path: "/v1/imports", contentType: "text/csv", body: "email\nada@example.com\n" })
  })

  it("passes a body without a Content-Type through", async () => {
    const response = await fetch(`${host.origin}/api/mailroom/v1/contacts`, {
      method: "POST", body: new Blob(['{"email":"ada@example.com"}']),
    })
    expect(await response.json()).toMatchObject({ contentType: null, body: '{"email":"ada@example.com"}' })
  })

  it("keeps the host's own JSON parser outside the prefix", async () => {
    const response = await fetch(`${host.origin}/host/json`, {
      method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}',
    })
    expect(await response.json()).toEqual({ parsedByHost: { a: 1 } })
  })

  it("hands over a small body whole and streams a large one, byte for byte either way", async () => {
    for (const size of [10, 64 * 1024, 64 * 1024 + 1, 300 * 1024]) {
      const body = "é".repeat(size / 2) + "x".repeat(size % 2)
      const response = await fetch(`${host.origin}/api/mailroom/v1/echo`, {
        method: "POST", headers: { "content-type": "text/plain" }, body,
      })
      const answer = await response.json()
      expect({ size, length: answer.body.length, same: answer.body === body }).toEqual({ size, length: body.length, same: true })
    }
  })

  it("answers nobody and keeps serving when a client leaves in the middle of a small body", async () => {
    const before = echoed
    await abandonBody(host.origin, "/api/mailroom/v1/echo")
    expect(echoed).toBe(before)
    const after = await fetch(`${host.origin}/api/mailroom/v1/echo`, { method: "POST", body: "still here" })
    expect(await after.json()).toMatchObject({ body: "still here" })
  })
})
