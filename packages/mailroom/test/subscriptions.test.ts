/** The Subscriptions API through the facade: its Promise methods, the client address recorded on a resubscribe, the
 *  operator's pause of platform sending, and a double opt-in from the request to the confirmed contact. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMailroom, type Mailroom } from "../src/index.js"

const adminToken = "subscriptions-admin"
let mailroom: Mailroom
let counter = 0
const freshEmail = () => `facade-${Date.now().toString(36)}-${++counter}@example.com`

const call = async (method: string, path: string, key: string, body?: unknown, clientAddress?: string) => {
  const response = await mailroom.fetch(new Request(`http://mailroom.test${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }), clientAddress === undefined ? {} : { clientAddress })
  const json: any = await response.json()
  return { status: response.status, json }
}

const newAccount = async () => (await call("POST", "/admin/accounts", adminToken, { plan: "pro" })).json as { id: string; apiKey: string }

beforeAll(async () => {
  mailroom = createMailroom({ database: "memory:", adminToken, appUrl: "https://pages.example.com", backgroundWork: false })
  await mailroom.ready()
})
afterAll(() => mailroom.close())

describe("mailroom.subscriptions", () => {
  it("subscribes, reads the status, unsubscribes and rejects with the spec's codes", async () => {
    const account = await newAccount()
    const email = freshEmail()
    const made = await mailroom.subscriptions.subscribe(account.id, { email, consent: { text: "yes" } })
    expect(made).toMatchObject({ email, created: true, status: "ACTIVE" })
    expect((await mailroom.subscriptions.status(account.id, email)).contact?.consent.text).toBe("yes")
    expect(await mailroom.subscriptions.unsubscribe(account.id, { email }))
      .toEqual({ email, contactId: made.contactId, scope: "all", changed: true })
    await expect(mailroom.subscriptions.subscribe(account.id, { email })).rejects.toMatchObject({ code: "RECIPIENT_UNSUBSCRIBED" })
    await expect(mailroom.subscriptions.subscribe(account.id, { email, consent: { ip: "1".repeat(65) } }))
      .rejects.toMatchObject({ code: "VALIDATION_ERROR", field: "consent.ip" })
    await expect(mailroom.subscriptions.status("acc_unknown", email)).rejects.toMatchObject({ code: "RESOURCE_NOT_FOUND" })
  })

  it("records the request's client address on a resubscribe without consent", async () => {
    const account = await newAccount()
    const email = freshEmail()
    await call("POST", "/v1/subscriptions", account.apiKey, { email, consent: { ip: "192.0.2.1" } }, "198.51.100.2")
    await call("POST", "/v1/subscriptions/unsubscribe", account.apiKey, { email })
    const back = await call("POST", "/v1/subscriptions", account.apiKey, { email, resubscribe: true }, "203.0.113.50")
    expect(back.status).toBe(200)
    const status = await call("GET", `/v1/subscriptions/${encodeURIComponent(email)}`, account.apiKey)
    expect(status.json.data.contact.consent).toMatchObject({ source: "api", ip: "203.0.113.50" })
  })

  it("a double opt-in runs end to end: the mail in the outbox, its link confirms, the outbox holds the events", async () => {
    const account = await newAccount()
    const email = freshEmail()
    const made = await call("POST", "/v1/subscriptions", account.apiKey, { email, doubleOptIn: true, redirectUrl: "https://example.com/welcome" })
    expect(made.json.data).toMatchObject({ status: "PENDING", confirmationSent: true })
    const outbox = await call("GET", `/admin/outbox?to=${encodeURIComponent(email)}`, adminToken)
    const link = /https:\/\/pages\.example\.com\/c\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/.exec(outbox.json.data[0].text)
    expect(link).not.toBeNull()
    expect(outbox.json.data[0].html).toContain(link![0])
    expect(await mailroom.subscriptions.confirmation(link![1]!)).toMatchObject({ state: "pending" })
    expect(await mailroom.subscriptions.confirm(link![1]!))
      .toMatchObject({ state: "confirmed", accountId: account.id, email, redirectUrl: "https://example.com/welcome" })
    expect((await mailroom.subscriptions.status(account.id, email)).contact?.status).toBe("ACTIVE")
    expect((await mailroom.subscriptions.confirm(link![1]!)).state).toBe("already_confirmed")
  })
})

describe("pausing platform sending", () => {
  it("an operator pauses one account or the platform; confirmationSent is false while paused", async () => {
    const account = await newAccount()
    expect((await call("GET", `/admin/accounts/${account.id}/sending`, adminToken)).json).toEqual({ accountId: account.id, paused: false })
    expect((await call("PUT", `/admin/accounts/${account.id}/sending`, adminToken, { paused: true })).json)
      .toEqual({ accountId: account.id, paused: true })
    const paused = await call("POST", "/v1/subscriptions", account.apiKey, { email: freshEmail(), doubleOptIn: true })
    expect(paused.json.data).toMatchObject({ status: "PENDING", requiresConfirmation: true, confirmationSent: false })
    await call("PUT", `/admin/accounts/${account.id}/sending`, adminToken, { paused: false })

    expect((await call("PUT", "/admin/sending", adminToken, { paused: true })).json).toEqual({ paused: true })
    expect((await call("GET", "/admin/sending", adminToken)).json).toEqual({ paused: true })
    const email = freshEmail()
    const platform = await call("POST", "/v1/subscriptions", account.apiKey, { email, doubleOptIn: true })
    expect(platform.json.data.confirmationSent).toBe(false)
    expect((await call("GET", `/admin/outbox?to=${encodeURIComponent(email)}`, adminToken)).json.data).toEqual([])
    await call("PUT", "/admin/sending", adminToken, { paused: false })
    const resent = await call("POST", `/v1/subscriptions/${encodeURIComponent(email)}/resend-confirmation`, account.apiKey)
    expect(resent.json.data.confirmationSent).toBe(true)

    expect((await call("PUT", "/admin/sending", adminToken, { paused: "yes" })).status).toBe(400)
    expect((await call("PUT", "/admin/accounts/acc_unknown/sending", adminToken, { paused: true })).status).toBe(404)
    expect((await call("GET", "/admin/sending", "wrong-token")).status).toBe(401)
  })
})
