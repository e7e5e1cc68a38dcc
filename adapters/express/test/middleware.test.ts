import { abandonBody, adapterHostOf, adapterSuite, httpSuite, keepAliveSuite, oversizedBodySuite, targetOverHttp } from "@mailroom/testing"
import type { FetchHandler, StartAdapterHost } from "@mailroom/testing"
import express from "express"
import type { ErrorRequestHandler } from "express"
import { createMailroom } from "@mailroom/mailroom"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mailroomMiddleware } from "../src/index.js"

const listen = (app: express.Express) => adapterHostOf(app.listen(0, "127.0.0.1"))

const startHost: StartAdapterHost = (mailroom, basePath) => {
  const app = express()
  app.get("/host/hello", (_req, res) => { res.send("hello from the host") })
  app.use(basePath || "/", mailroomMiddleware(mailroom))
  return listen(app)
}

adapterSuite("express", startHost)

keepAliveSuite("express", startHost, async ({ rateLimits }) => {
  const mailroom = createMailroom({ database: "memory:", adminToken: "test-admin-token", rateLimits })
  await mailroom.ready()
  return mailroom
})

oversizedBodySuite("express", startHost, async () => {
  const mailroom = createMailroom({ database: "memory:", adminToken: "test-admin-token" })
  await mailroom.ready()
  return mailroom
})

httpSuite("express", async ({ rateLimits }) => {
  const mailroom = createMailroom({ database: "memory:", adminToken: "test-admin-token", rateLimits })
  await mailroom.ready()
  const app = express()
  app.use("/mailroom", mailroomMiddleware(mailroom))
  return targetOverHttp(await listen(app), "/mailroom", mailroom.close)
})

/** Answers with what reached it: path, Content-Length and body text; counts the requests it saw. */
let echoed = 0
const echo: FetchHandler = {
  fetch: async (request) => (echoed++, Response.json({
    path: new URL(request.url).pathname,
    contentLength: request.headers.get("content-length"),
    body: await request.text(),
  })),
}

describe("mailroomMiddleware", () => {
  const failures: Array<unknown> = []
  let host: Awaited<ReturnType<typeof listen>>

  beforeAll(async () => {
    const app = express()
    const router = express.Router()
    router.use("/mailroom", mailroomMiddleware(echo))
    app.use("/api", router)
    app.use("/parsed-json", express.json(), mailroomMiddleware(echo))
    app.use("/parsed-form", express.urlencoded({ extended: false }), mailroomMiddleware(echo))
    app.use("/parsed-text", express.text(), mailroomMiddleware(echo))
    app.use(
      "/parsed-verified",
      express.json({ verify: (req, _res, buffer) => { Object.assign(req, { rawBody: buffer }) } }),
      mailroomMiddleware(echo),
    )
    app.use("/failing", mailroomMiddleware({ fetch: () => Promise.reject(new Error("backend unavailable")) }))
    const onError: ErrorRequestHandler = (error, _req, res, _next) => {
      failures.push(error)
      res.status(503).send("host error page")
    }
    app.use(onError)
    host = await listen(app)
  })
  afterAll(() => host.close())

  const post = (path: string, contentType: string, body: string) =>
    fetch(`${host.origin}${path}`, { method: "POST", headers: { "content-type": contentType }, body })

  it("strips the mount paths of nested routers", async () => {
    const response = await fetch(`${host.origin}/api/mailroom/v1/contacts`)
    expect(await response.json()).toMatchObject({ path: "/v1/contacts" })
  })

  it("rebuilds a JSON body that express.json() already read", async () => {
    const response = await post("/parsed-json/v1/contacts", "application/json", '{ "email": "ada@example.com" }')
    expect(await response.json()).toEqual({
      path: "/v1/contacts", body: '{"email":"ada@example.com"}', contentLength: "27",
    })
  })

  it("rebuilds a form body that express.urlencoded() already read", async () => {
    const response = await post("/parsed-form/forms/f1", "application/x-www-form-urlencoded", "email=ada%40example.com&topic=a&topic=b")
    expect(await response.json()).toMatchObject({ body: "email=ada%40example.com&topic=a&topic=b" })
  })

  it("rebuilds a text body that express.text() already read", async () => {
    const response = await post("/parsed-text/v1/imports", "text/plain", "email\nada@example.com\n")
    expect(await response.json()).toMatchObject({ body: "email\nada@example.com\n", contentLength: "22" })
  })

  it("prefers the exact bytes a parser kept in req.rawBody", async () => {
    const response = await post("/parsed-verified/v1/contacts", "application/json", '{ "email" : "ada@example.com" }')
    expect(await response.json()).toMatchObject({ body: '{ "email" : "ada@example.com" }', contentLength: "31" })
  })

  it("hands over a small body whole and streams a large one, byte for byte either way", async () => {
    for (const size of [10, 64 * 1024, 64 * 1024 + 1, 300 * 1024]) {
      const body = "é".repeat(size / 2) + "x".repeat(size % 2)
      const answer = await (await post("/api/mailroom/v1/echo", "text/plain", body)).json()
      expect({ size, length: answer.body.length, same: answer.body === body }).toEqual({ size, length: body.length, same: true })
      expect(answer.contentLength).toBe(String(Buffer.byteLength(body)))
    }
  })

  it("answers nobody and keeps serving when a client leaves in the middle of a small body", async () => {
    const before = echoed
    await abandonBody(host.origin, "/api/mailroom/v1/echo")
    expect(echoed).toBe(before)
    expect((await post("/api/mailroom/v1/echo", "text/plain", "still here")).status).toBe(200)
  })

  it("passes a failing handler's error to the host's error middleware", async () => {
    const response = await fetch(`${host.origin}/failing/v1/contacts`)
    expect(response.status).toBe(503)
    expect(await response.text()).toBe("host error page")
    expect(failures).toHaveLength(1)
    expect((failures[0] as Error).message).toBe("backend unavailable")
  })
})
