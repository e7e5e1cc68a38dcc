/** The mail viewer's routes (docs/dev-outbox.md): the admin token signs in through a form for a signed, HttpOnly,
 *  SameSite=Strict cookie; the viewer's routes read that cookie only; the message frame and downloads carry their
 *  policies; clearing needs the viewer's header. The page itself is tested in Chromium (examples/hono-sqlite). */
import { Store } from "@mailroom/core"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { messageFramePolicy, viewerSession } from "../../src/index.js"
import { adminToken, call, makeTestApp, type TestApp } from "../support.js"

const raw = [
  "From: news@example.com",
  "To: ada@example.net",
  "Subject: With a file",
  "MIME-Version: 1.0",
  "Content-Type: multipart/mixed; boundary=\"b1\"",
  "",
  "--b1",
  "Content-Type: text/html; charset=utf-8",
  "",
  "<p>Hello</p>",
  "--b1",
  "Content-Type: application/pdf; name=\"r\u00e9sum\u00e9.pdf\"",
  "Content-Disposition: attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf",
  "Content-Transfer-Encoding: base64",
  "",
  Buffer.from("%PDF-1.4 bytes").toString("base64"),
  "--b1--",
  "",
].join("\r\n")

const keep = (app: TestApp, id: string) =>
  app.runtime.runPromise(Effect.flatMap(Store, (store) => store.devOutbox.insert({
    id, from: "news@example.com", to: ["ada@example.net"], subject: "With a file", html: "<p>Hello</p>", text: null,
    headers: { subject: "With a file" }, raw, createdAt: new Date(),
  })))

const form = (token: string) => ({
  raw: new URLSearchParams({ token }).toString(),
  headers: { "content-type": "application/x-www-form-urlencoded" },
})

/** Signs in and answers the cookie to send back. */
const signIn = async (app: TestApp, token = adminToken) => {
  const answer = await call(app, "POST", "/admin/mail/login", form(token))
  expect(answer.status).toBe(303)
  const cookie = answer.headers.get("set-cookie")!
  return cookie.split(";")[0]!
}

describe("the mail viewer's sign-in", () => {
  it("shows the sign-in form until signed in; the right token answers a cookie that opens the viewer", async () => {
    const app = makeTestApp()
    const first = await call(app, "GET", "/admin/mail")
    expect(first.status).toBe(200)
    expect(first.text).toContain(`<form method="post" action="mail/login">`)
    expect(first.text).toContain(`type="password"`)
    expect(first.text).not.toContain("<script")

    const login = await call(app, "POST", "/admin/mail/login", form(adminToken))
    expect(login.status).toBe(303)
    expect(login.headers.get("location")).toBe("../mail")
    const cookie = login.headers.get("set-cookie")!
    expect(cookie).toMatch(new RegExp(`^${viewerSession.cookie}=[0-9]+\\.[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Max-Age=43200$`))
    // The cookie carries a signature, never the token.
    expect(cookie).not.toContain(adminToken)

    const viewer = await call(app, "GET", "/admin/mail", { headers: { cookie: cookie.split(";")[0]! } })
    expect(viewer.status).toBe(200)
    const nonce = /script-src 'nonce-([0-9a-f]{32})'/.exec(viewer.headers.get("content-security-policy")!)?.[1]
    expect(nonce).toBeDefined()
    expect(viewer.text).toContain(`<script nonce="${nonce}">`)
    expect(viewer.text).toContain(`<iframe id="frame" sandbox=""`)
  })

  it.each([["a wrong token", "not-the-token", 401], ["no token", "", 400]])("%s answers the form again, with no cookie", async (_, token, status) => {
    const app = makeTestApp()
    const answer = await call(app, "POST", "/admin/mail/login", form(token))
    expect(answer.status).toBe(status)
    expect(answer.headers.get("set-cookie")).toBeNull()
    expect(answer.text).toContain(`role="alert"`)
  })

  it("refuses a forged, expired or other-token cookie, and the Bearer token, on the viewer's routes", async () => {
    const app = makeTestApp()
    const other = makeTestApp({ adminToken: "another-admin-token" })
    const foreign = await signIn(other, "another-admin-token")
    const expired = `${viewerSession.cookie}=${Date.now() - 1000}.${"A".repeat(43)}`
    const [expiresAt, signature] = (await signIn(app)).split("=")[1]!.split(".")
    const extended = `${viewerSession.cookie}=${Number(expiresAt) + 1000}.${signature}`
    for (const headers of [{}, { cookie: foreign }, { cookie: expired }, { cookie: extended }, { authorization: `Bearer ${adminToken}` }]) {
      expect((await call(app, "GET", "/admin/mail/messages", { headers })).status).toBe(401)
      expect((await call(app, "GET", "/admin/mail", { headers })).text).toContain("mail/login")
    }
  })

  it("counts wrong tokens against the client's failed authentications: past them even the right one answers 429", async () => {
    const app = makeTestApp({ rateLimits: { failedAuthenticationsPerMinute: 2 } })
    for (let i = 0; i < 2; i++) expect((await call(app, "POST", "/admin/mail/login", form("wrong"))).status).toBe(401)
    const refused = await call(app, "POST", "/admin/mail/login", form(adminToken))
    expect(refused.status).toBe(429)
    expect(refused.headers.get("set-cookie")).toBeNull()
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(refused.text).toContain("Too many wrong tokens")
    // One budget with the operator API's Bearer token.
    expect((await call(app, "GET", "/admin/outbox", { key: adminToken })).status).toBe(429)
  })

  it("logs out by expiring the cookie", async () => {
    const app = makeTestApp()
    const answer = await call(app, "POST", "/admin/mail/logout", { headers: { cookie: await signIn(app) } })
    expect(answer.status).toBe(303)
    expect(answer.headers.get("set-cookie")).toBe(`${viewerSession.cookie}=; HttpOnly; SameSite=Strict; Max-Age=0`)
  })

  it("is not there while mail goes to a relay", async () => {
    const app = makeTestApp({ devOutbox: false })
    expect((await call(app, "GET", "/admin/mail", { key: adminToken })).status).toBe(404)
    expect((await call(app, "POST", "/admin/mail/login", { ...form(adminToken), key: adminToken })).status).toBe(404)
  })
})

describe("the mail viewer's routes", () => {
  it("list the messages with their attachments, serve the html under its policy, the raw source and the files", async () => {
    const app = makeTestApp()
    await keep(app, "out_viewer1")
    const cookie = await signIn(app)
    const list = await call(app, "GET", "/admin/mail/messages", { headers: { cookie } })
    expect(list.json.data.map((m: { id: string }) => m.id)).toEqual(["out_viewer1"])
    expect(list.json.data[0].attachments).toEqual([{ filename: "résumé.pdf", contentType: "application/pdf", size: 14 }])

    const frame = await call(app, "GET", "/admin/mail/messages/out_viewer1/html", { headers: { cookie } })
    expect(frame.text).toBe("<p>Hello</p>")
    expect(frame.headers.get("content-security-policy")).toBe(messageFramePolicy)
    expect(messageFramePolicy).toMatch(/^default-src 'none'; img-src data: cid:;.*; sandbox$/)
    expect(messageFramePolicy).not.toMatch(/script-src|connect-src|http/)

    const source = await call(app, "GET", "/admin/mail/messages/out_viewer1/raw?download=1", { headers: { cookie } })
    expect(source.text).toBe(raw)
    expect(source.headers.get("content-disposition")).toBe(`attachment; filename="out_viewer1.eml"; filename*=UTF-8''out_viewer1.eml`)

    const file = await call(app, "GET", "/admin/mail/messages/out_viewer1/attachments/0", { headers: { cookie } })
    expect(file.text).toBe("%PDF-1.4 bytes")
    expect(file.headers.get("content-type")).toBe("application/pdf")
    expect(file.headers.get("content-disposition")).toBe(`attachment; filename="r_sum_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`)
    for (const path of ["/admin/mail/messages/out_viewer1/attachments/1", "/admin/mail/messages/nope/html", "/admin/mail/messages/nope/raw"]) {
      expect((await call(app, "GET", path, { headers: { cookie } })).status).toBe(404)
    }
  })

  it("search the whole outbox on the server, newest first; GET /admin/outbox takes the same q", async () => {
    const app = makeTestApp()
    const keepWith = (id: string, subject: string, text: string | null, createdAt: Date) =>
      app.runtime.runPromise(Effect.flatMap(Store, (store) => store.devOutbox.insert({
        id, from: "news@example.com", to: ["ada@example.net"], subject, html: null, text, headers: {}, raw: null, createdAt,
      })))
    await keepWith("out_old", "Your INVOICE", null, new Date(Date.now() - 60_000))
    // More than the viewer's page of 100 newer messages: the match is still found.
    for (let i = 0; i < 101; i++) await keepWith(`out_filler${i}`, `Weekly news ${i}`, "nothing to see", new Date(Date.now() - 30_000 + i))
    await keepWith("out_new", "Receipt", "your invoice is attached; 100% paid", new Date())
    const cookie = await signIn(app)
    const ids = (answer: { json: { data: Array<{ id: string }> } }) => answer.json.data.map((m) => m.id)
    expect(ids(await call(app, "GET", "/admin/mail/messages?q=%20Invoice%20", { headers: { cookie } }))).toEqual(["out_new", "out_old"])
    expect(ids(await call(app, "GET", "/admin/mail/messages?q=100%25", { headers: { cookie } }))).toEqual(["out_new"])
    expect(ids(await call(app, "GET", "/admin/mail/messages?q=1_0", { headers: { cookie } }))).toEqual([])
    expect((await call(app, "GET", "/admin/mail/messages", { headers: { cookie } })).json.data).toHaveLength(100)
    expect(ids(await call(app, "GET", "/admin/outbox?q=invoice&limit=1", { key: adminToken }))).toEqual(["out_new"])
    expect(ids(await call(app, "GET", "/admin/outbox?q=INVOICE", { key: adminToken }))).toEqual(["out_new", "out_old"])
    const tooLong = await call(app, "GET", `/admin/outbox?q=${"x".repeat(201)}`, { key: adminToken })
    expect(tooLong.status).toBe(400)
  })

  it("serve the html with the message's inline images (cid:) as data: URLs; other cids stay as written", async () => {
    const app = makeTestApp()
    const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64")
    const html = `<p>Logo <img src="cid:logo@mailroom.test" alt="logo"> <img src='cid:missing@x'> <img src="cid:doc@mailroom.test">` +
      ` <div style="background:url(cid:logo%40mailroom.test)">cid:logo@mailroom.test</div> <img src="https://example.com/x.png"></p>`
    const inlineRaw = [
      "From: news@example.com", "To: ada@example.net", "Subject: Inline", "MIME-Version: 1.0",
      "Content-Type: multipart/related; boundary=\"r1\"", "",
      "--r1", "Content-Type: text/html; charset=utf-8", "", html,
      "--r1", "Content-Type: image/png; name=\"logo.png\"", "Content-ID: <logo@mailroom.test>",
      "Content-Disposition: inline; filename=\"logo.png\"", "Content-Transfer-Encoding: base64", "", png.toString("base64"),
      "--r1", "Content-Type: text/html; name=\"doc.html\"", "Content-ID: <doc@mailroom.test>", "", "<script>alert(1)</script>",
      "--r1--", "",
    ].join("\r\n")
    await app.runtime.runPromise(Effect.flatMap(Store, (store) => store.devOutbox.insert({
      id: "out_inline", from: "news@example.com", to: ["ada@example.net"], subject: "Inline", html, text: null,
      headers: {}, raw: inlineRaw, createdAt: new Date(),
    })))
    await keep(app, "out_other")
    const cookie = await signIn(app)
    const frame = await call(app, "GET", "/admin/mail/messages/out_inline/html", { headers: { cookie } })
    const logo = `data:image/png;base64,${png.toString("base64")}`
    expect(frame.text).toBe(
      `<p>Logo <img src="${logo}" alt="logo"> <img src='cid:missing@x'> <img src="cid:doc@mailroom.test">` +
      ` <div style="background:url(${logo})">cid:logo@mailroom.test</div> <img src="https://example.com/x.png"></p>`)
    expect(frame.headers.get("content-security-policy")).toBe(messageFramePolicy)
    // Another message's html is served as written.
    expect((await call(app, "GET", "/admin/mail/messages/out_other/html", { headers: { cookie } })).text).toBe("<p>Hello</p>")
  })

  it("clear the outbox only with the viewer's header", async () => {
    const app = makeTestApp()
    await keep(app, "out_viewer2")
    const cookie = await signIn(app)
    const refused = await call(app, "DELETE", "/admin/mail/messages", { headers: { cookie } })
    expect(refused.status).toBe(403)
    expect((await call(app, "GET", "/admin/outbox", { key: adminToken })).json.data).toHaveLength(1)
    const cleared = await call(app, "DELETE", "/admin/mail/messages", { headers: { cookie, "x-mailroom-viewer": "1" } })
    expect(cleared.json).toEqual({ deleted: 1 })
    expect((await call(app, "GET", "/admin/outbox", { key: adminToken })).json.data).toEqual([])
  })
})
