/** POST /v1/forms/{id}/submit and the hosted page over plain HTTP on the facade (docs/forms.md): CORS and origins,
 *  honeypot, rate limits, the bot challenge against a local stub, the consent rules through the Subscriptions service,
 *  the events, and answers that never tell whether an address was known. */
import { Accounts, Store, Subscriptions } from "@mailroom/core"
import { Effect } from "effect"
import { once } from "node:events"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMailroom, type Mailroom, type MailroomConfig } from "../src/index.js"

const adminToken = "form-submit-admin-token"
const appUrl = "https://pages.example.com"
const shop = "https://shop.example.com"
let counter = 0
const someone = () => `person${++counter}.${Date.now()}@example.com`

const setUp = async (config: Partial<MailroomConfig> = {}) => {
  const mailroom = createMailroom({ database: "memory:", adminToken, appUrl, ...config })
  await mailroom.ready()
  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await mailroom.fetch(new Request(`http://host.test${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }))
    return { status: response.status, body: await response.json() }
  }
  const account = (await call("POST", "/admin/accounts", adminToken, { plan: "pro" })).body
  return { mailroom, call, key: account.apiKey as string, accountId: account.id as string }
}

type Env = Awaited<ReturnType<typeof setUp>>

interface SubmitOptions {
  readonly origin?: string | null
  readonly json?: boolean
  readonly ip?: string
  readonly userAgent?: string
}

const submit = (mailroom: Mailroom, formId: string, fields: Record<string, string>, options: SubmitOptions = {}) => {
  const origin = options.origin === undefined ? shop : options.origin
  const json = options.json ?? true
  return mailroom.fetch(new Request(`http://host.test/v1/forms/${formId}/submit`, {
    method: "POST",
    headers: {
      ...(origin === null ? {} : { origin }),
      ...(json ? { accept: "application/json" } : {}),
      "content-type": "application/x-www-form-urlencoded",
      "user-agent": options.userAgent ?? "Mozilla/5.0 (test)",
    },
    body: new URLSearchParams(fields).toString(),
    redirect: "manual",
  }), { clientAddress: options.ip ?? "203.0.113.7" })
}

const events = (env: Env) =>
  Effect.runPromise(Effect.flatMap(Store, (store) => store.events.list(env.accountId as never)).pipe(Effect.provide(env.mailroom.layer)))

/** The Subscription status of the address, as GET /subscriptions/{email} shows it. */
const status = (env: Env, email: string) =>
  Effect.runPromise(Effect.gen(function* () {
    const account = yield* (yield* Accounts).get(env.accountId)
    return yield* (yield* Subscriptions).status(account, email)
  }).pipe(Effect.provide(env.mailroom.layer))) as Promise<any>

describe("form submissions", () => {
  let env: Env
  let listId: string
  let form: any
  let doubleOptIn: any

  beforeAll(async () => {
    // Every request of this block comes from one client address; the limits have their own test.
    env = await setUp({ rateLimits: { formSubmissionsPerIpPerMinute: 1000 } })
    listId = (await env.call("POST", "/v1/contacts/lists", env.key, { name: "Newsletter" })).body.data.id
    form = (await env.call("POST", "/v1/forms", env.key, {
      name: "Shop footer", listIds: [listId], allowedOrigins: [shop], successRedirectUrl: `${shop}/thanks`,
      fields: [{ name: "firstName", label: "First name", required: true, maxLength: 20 }, { name: "company", label: "Company" }],
    })).body.data
    doubleOptIn = (await env.call("POST", "/v1/forms", env.key, {
      name: "Confirmed list", listIds: [listId], allowedOrigins: [shop], doubleOptIn: true,
    })).body.data
  })
  afterAll(() => env.mailroom.close())

  it("subscribes from an allowed origin, records the form's consent and fires contact.subscribed with the form", async () => {
    const email = someone()
    const response = await submit(env.mailroom, form.id, { email, firstName: "Ada", company: "Engines" })
    expect(response.status).toBe(200)
    expect(response.headers.get("access-control-allow-origin")).toBe(shop)
    expect(await response.json()).toEqual({ success: true, data: { message: "Thank you for signing up.", redirectUrl: `${shop}/thanks` } })
    const contact = (await env.call("GET", `/v1/contacts?search=${encodeURIComponent(email)}`, env.key)).body.data[0]
    expect(contact).toMatchObject({
      email, firstName: "Ada", status: "ACTIVE", source: "FORM", consentSource: "form", consentIp: "203.0.113.7",
      consentUserAgent: "Mozilla/5.0 (test)", consentText: "Signup form: Shop footer",
    })
    expect((await status(env, email)).lists).toMatchObject([{ id: listId, subscribed: true }])
    const mine = (await events(env)).filter((event) => (event.details as any).email === email)
    expect(mine.map((event) => event.type)).toEqual(["contact.subscribed"])
    expect(mine[0]!.details).toMatchObject({
      source: "FORM", formId: form.id, listId, fields: { firstName: "Ada", company: "Engines" }, status: "ACTIVE",
    })
  })

  it("refuses another origin and a request without one, with no CORS header, and changes nothing", async () => {
    for (const origin of ["https://evil.example", null]) {
      const email = someone()
      const response = await submit(env.mailroom, form.id, { email, firstName: "Eve" }, { origin })
      expect(response.status).toBe(403)
      expect(response.headers.get("access-control-allow-origin")).toBeNull()
      expect((await response.json()).error.code).toBe("ORIGIN_NOT_ALLOWED")
      expect((await status(env, email)).contact).toBeNull()
    }
  })

  it("answers the CORS preflight for an allowed origin only", async () => {
    const preflight = (origin: string) => env.mailroom.fetch(new Request(`http://host.test/v1/forms/${form.id}/submit`, {
      method: "OPTIONS", headers: { origin, "access-control-request-method": "POST" },
    }))
    const allowed = await preflight(shop)
    expect(allowed.status).toBe(204)
    expect(allowed.headers.get("access-control-allow-origin")).toBe(shop)
    const refused = await preflight("https://evil.example")
    expect(refused.status).toBe(403)
    expect(refused.headers.get("access-control-allow-origin")).toBeNull()
  })

  it("redirects a plain post to the success page, or to the hosted thank-you", async () => {
    const response = await submit(env.mailroom, form.id, { email: someone(), firstName: "Ada" }, { json: false })
    expect(response.status).toBe(303)
    expect(response.headers.get("location")).toBe(`${shop}/thanks`)
    const hosted = await submit(env.mailroom, doubleOptIn.id, { email: someone() }, { json: false, origin: appUrl })
    expect(hosted.status).toBe(303)
    expect(hosted.headers.get("location")).toBe(`${appUrl}/f/${doubleOptIn.id}?submitted=1`)
  })

  it("answers a filled honeypot like a success and creates nothing", async () => {
    const email = someone()
    const response = await submit(env.mailroom, form.id, { email, firstName: "Bot", website_url: "http://spam.example" })
    expect(response.status).toBe(200)
    expect((await response.json()).data.message).toBe("Thank you for signing up.")
    expect((await status(env, email)).contact).toBeNull()
  })

  it.each([
    [{ colour: "red" }, "colour"],
    [{ firstName: "x".repeat(21) }, "firstName"],
    [{ firstName: "" }, "firstName"],
    [{ email: "not-an-address" }, "email"],
  ])("refuses %j with VALIDATION_ERROR naming the field, and creates nothing", async (extra, field) => {
    const email = someone()
    const response = await submit(env.mailroom, form.id, { email, firstName: "Ada", ...extra })
    expect(response.status).toBe(400)
    const body = await response.json()
    expect(body.error.code).toBe("VALIDATION_ERROR")
    expect(body.error.message).toContain(field)
    expect((await status(env, email)).contact).toBeNull()
  })

  it("shows the hosted form again after a refused plain post, with what was typed escaped", async () => {
    const response = await submit(env.mailroom, form.id, {
      email: someone(), firstName: "<script>alert(1)</script>", company: "\"><img src=x onerror=alert(1)>",
    }, { json: false, origin: appUrl })
    expect(response.status).toBe(400)
    expect(response.headers.get("content-type")).toContain("text/html")
    const page = await response.text()
    expect(page).toContain("is at most 20 characters")
    expect(page).not.toContain("<script>alert(1)")
    expect(page).not.toContain("<img src=x")
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;")
  })

  it("says the same thing whether the address was new, known or unsubscribed, and never resubscribes silently", async () => {
    const known = someone()
    await submit(env.mailroom, form.id, { email: known, firstName: "Ada" })
    const gone = someone()
    await submit(env.mailroom, form.id, { email: gone, firstName: "Gus" })
    await Effect.runPromise(Effect.gen(function* () {
      const account = yield* (yield* Accounts).get(env.accountId)
      yield* (yield* Subscriptions).unsubscribe(account, { email: gone })
    }).pipe(Effect.provide(env.mailroom.layer)))
    const answers = []
    for (const email of [someone(), known, gone]) {
      const response = await submit(env.mailroom, form.id, { email, firstName: "Ada" })
      answers.push({ status: response.status, body: await response.json() })
    }
    expect(answers[1]).toEqual(answers[0])
    expect(answers[2]).toEqual(answers[0])
    expect((await status(env, gone)).contact.status).toBe("UNSUBSCRIBED")
  })

  it("with double opt-in leaves the contact PENDING and mails the confirmation link; an unsubscribed address comes back only through it", async () => {
    const email = someone()
    const response = await submit(env.mailroom, doubleOptIn.id, { email })
    expect((await response.json()).data.message).toContain("confirm")
    expect((await status(env, email)).contact.status).toBe("PENDING")
    const outbox = (await env.call("GET", `/admin/outbox?to=${encodeURIComponent(email)}`, adminToken)).body.data
    expect(outbox).toHaveLength(1)
    expect(outbox[0].html).toContain(`${appUrl}/c/`)
    const subscribed = (await events(env)).find((event) => (event.details as any).email === email)
    expect(subscribed?.details).toMatchObject({ formId: doubleOptIn.id, requiresConfirmation: true, status: "PENDING" })
    // Following the link confirms, and contact.confirmed names the form that asked.
    const token = /\/c\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(outbox[0].html)![1]!
    const confirmed = await Effect.runPromise(Effect.flatMap(Subscriptions, (service) => service.confirm(token)).pipe(Effect.provide(env.mailroom.layer)))
    expect(confirmed.state).toBe("confirmed")
    expect((await events(env)).filter((event) => event.type === "contact.confirmed").map((event) => event.details))
      .toEqual([expect.objectContaining({ email, formId: doubleOptIn.id })])
    // Someone who unsubscribed is PENDING again, not ACTIVE: only the confirmation link brings them back.
    const gone = someone()
    await submit(env.mailroom, form.id, { email: gone, firstName: "Gus" })
    await Effect.runPromise(Effect.gen(function* () {
      const account = yield* (yield* Accounts).get(env.accountId)
      yield* (yield* Subscriptions).unsubscribe(account, { email: gone })
    }).pipe(Effect.provide(env.mailroom.layer)))
    await submit(env.mailroom, doubleOptIn.id, { email: gone })
    expect((await status(env, gone)).contact.status).toBe("PENDING")
    expect((await env.call("GET", `/admin/outbox?to=${encodeURIComponent(gone)}`, adminToken)).body.data).toHaveLength(1)
  })

  it("answers an unknown form as not found", async () => {
    const response = await submit(env.mailroom, "frm_unknown", { email: someone() })
    expect(response.status).toBe(404)
    const page = await env.mailroom.fetch(new Request("http://host.test/f/frm_unknown"))
    expect(page.status).toBe(404)
    expect(await page.text()).toContain("Form not found")
  })

  it("serves the hosted page: labelled fields, the honeypot hidden, framed only by allowed origins", async () => {
    const response = await env.mailroom.fetch(new Request(`http://host.test/f/${form.id}`))
    expect(response.status).toBe(200)
    expect(response.headers.get("content-security-policy")).toContain(`frame-ancestors ${shop}`)
    const page = await response.text()
    expect(page).toContain(`<label for="f-email">`)
    expect(page).toContain(`<label for="f-firstName">`)
    expect(page).toContain(`action="${appUrl}/v1/forms/${form.id}/submit"`)
    expect(page).toContain(`<div class="hp" aria-hidden="true">`)
  })
})

describe("form submission limits", () => {
  it("limits submissions per client address and per email address", async () => {
    const env = await setUp({ rateLimits: { formSubmissionsPerIpPerMinute: 3, formSubmissionsPerAddressPerHour: 2 } })
    const form = (await env.call("POST", "/v1/forms", env.key, { name: "Limited", allowedOrigins: [shop] })).body.data
    const email = someone()
    const byAddress = []
    for (let i = 0; i < 3; i++) byAddress.push((await submit(env.mailroom, form.id, { email }, { ip: `198.51.100.${i}` })).status)
    expect(byAddress).toEqual([200, 200, 429])
    const byIp = []
    for (let i = 0; i < 4; i++) byIp.push((await submit(env.mailroom, form.id, { email: someone() }, { ip: "192.0.2.1" })).status)
    expect(byIp).toEqual([200, 200, 200, 429])
    const limited = await submit(env.mailroom, form.id, { email: someone() }, { ip: "192.0.2.1" })
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/)
    expect((await limited.json()).error.code).toBe("RATE_LIMIT_EXCEEDED")
    await env.mailroom.close()
  })
})

describe("form submissions with a bot challenge", () => {
  let stub: Server
  let env: Env
  beforeAll(async () => {
    stub = createServer(async (request, response) => {
      let body = ""
      for await (const chunk of request) body += String(chunk)
      const form = new URLSearchParams(body)
      response.writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ success: form.get("secret") === "secret" && form.get("response") === "human" }))
    })
    stub.listen(0, "127.0.0.1")
    await once(stub, "listening")
    const verifyUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/siteverify`
    env = await setUp({ botChallenge: { turnstile: { siteKey: "site-key", secretKey: "secret", verifyUrl } } })
  })
  afterAll(async () => {
    await env.mailroom.close()
    stub.closeAllConnections()
    stub.close()
  })

  it("refuses a submission without a passing answer, accepts one with it, and shows the widget on the hosted page", async () => {
    const form = (await env.call("POST", "/v1/forms", env.key, { name: "Guarded", allowedOrigins: [shop] })).body.data
    const refused = await submit(env.mailroom, form.id, { email: someone(), "cf-turnstile-response": "robot" })
    expect(refused.status).toBe(400)
    expect((await refused.json()).error.message).toContain("challenge")
    const missing = await submit(env.mailroom, form.id, { email: someone() })
    expect(missing.status).toBe(400)
    const email = someone()
    const passed = await submit(env.mailroom, form.id, { email, "cf-turnstile-response": "human" })
    expect(passed.status).toBe(200)
    expect((await status(env, email)).contact.status).toBe("ACTIVE")
    const page = await env.mailroom.fetch(new Request(`http://host.test/f/${form.id}`))
    expect(await page.text()).toContain(`class="cf-turnstile" data-sitekey="site-key"`)
    expect(page.headers.get("content-security-policy")).toContain("script-src https://challenges.cloudflare.com")
  })
})
