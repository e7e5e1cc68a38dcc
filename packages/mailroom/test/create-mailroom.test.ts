import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Accounts, Contacts, Tokens } from "@mailroom/core"
import { Effect } from "effect"
import { afterAll, describe, expect, it, vi } from "vitest"
import { createMailroom, type Mailroom } from "../src/index.js"

const adminToken = "test-admin-token"

const request = (mailroom: Mailroom, method: string, path: string, key?: string, body?: unknown) =>
  mailroom.fetch(new Request(`http://host.test${path}`, {
    method,
    headers: { ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  }))

describe("createMailroom on memory", () => {
  const mailroom = createMailroom({ database: "memory:", adminToken })
  afterAll(() => mailroom.close())

  it("starts, answers health, and serves the API and the operator API through fetch", async () => {
    await mailroom.ready()
    expect(await (await request(mailroom, "GET", "/api/health")).json()).toMatchObject({ status: "ok", database: "connected" })
    const account = await (await request(mailroom, "POST", "/admin/accounts", adminToken, { plan: "pro" })).json()
    const created = await request(mailroom, "POST", "/v1/contacts", account.apiKey, { email: "ada@example.com" })
    expect(created.status).toBe(201)
  })

  it("shares one backend between fetch, the Promise methods and the Effect layer", async () => {
    const { account, apiKey } = await mailroom.accounts.create({ name: "Shared", plan: "pro" })
    const viaPromise = await mailroom.contacts.create(account.id, { email: "grace@example.com", tags: ["vip"] })
    const viaHttp = await (await request(mailroom, "GET", `/v1/contacts/${viaPromise.id}`, apiKey)).json()
    expect(viaHttp.data.email).toBe("grace@example.com")
    const viaEffect = await Effect.runPromise(Effect.gen(function* () {
      const owner = yield* (yield* Accounts).get(account.id)
      return yield* (yield* Contacts).get(owner, viaPromise.id)
    }).pipe(Effect.provide(mailroom.layer)))
    expect(viaEffect.id).toBe(viaPromise.id)
  })

  it("offers every contacts method with an account id in place of an Account", async () => {
    const { account } = await mailroom.accounts.create({ plan: "pro" })
    const ada = await mailroom.contacts.create(account.id, { email: " Ada@Example.com ", firstName: "Ada" })
    expect(ada.email).toBe("ada@example.com")
    expect((await mailroom.contacts.get(account.id, ada.id)).firstName).toBe("Ada")
    expect((await mailroom.contacts.update(account.id, ada.id, { status: "UNSUBSCRIBED" })).status).toBe("UNSUBSCRIBED")
    expect((await mailroom.contacts.addTags(account.id, ada.id, ["VIP", "beta"])).tags.map((t) => t.tag).sort()).toEqual(["beta", "vip"])
    expect((await mailroom.contacts.removeTag(account.id, ada.id, "beta")).tags.map((t) => t.tag)).toEqual(["vip"])
    expect(await mailroom.contacts.tags(account.id)).toEqual([{ name: "vip", count: 1, color: null, definitionId: null }])
    expect(await mailroom.contacts.bulkCreate(account.id, { contacts: [{ email: "b@example.com" }, { email: "ada@example.com" }] }))
      .toEqual({ created: 1, skipped: 1, errors: [] })
    const page = await mailroom.contacts.list(account.id, { sortBy: "email", sortOrder: "asc", limit: 1 })
    expect({ total: page.total, first: page.contacts.map((c) => c.email) }).toEqual({ total: 2, first: ["ada@example.com"] })
    const exported = []
    for await (const contact of mailroom.contacts.export(account.id, { tag: "vip" })) exported.push(contact.email)
    expect(exported).toEqual(["ada@example.com"])
    const [b] = (await mailroom.contacts.list(account.id, { search: "b@" })).contacts
    expect(await mailroom.contacts.bulkDelete(account.id, [b!.id, "ct_unknown"])).toEqual({ deleted: 1, requested: 2 })
    await mailroom.contacts.delete(account.id, ada.id)
    expect((await mailroom.contacts.list(account.id)).total).toBe(0)
  })

  it("rejects with the same tagged errors as the HTTP API", async () => {
    const { account } = await mailroom.accounts.create()
    await mailroom.contacts.create(account.id, { email: "taken@example.com" })
    await expect(mailroom.contacts.create(account.id, { email: "taken@example.com" })).rejects.toMatchObject({ _tag: "DuplicateContact", code: "DUPLICATE_CONTACT" })
    await expect(mailroom.contacts.create(account.id, { email: "nope" })).rejects.toMatchObject({ code: "VALIDATION_ERROR", field: "email" })
    await expect(mailroom.contacts.create(account.id, { email: "a@example.com", nickname: "x" } as never)).rejects.toMatchObject({ code: "VALIDATION_ERROR", field: "nickname" })
    await expect(mailroom.contacts.list(account.id, { limit: 1001 })).rejects.toMatchObject({ code: "VALIDATION_ERROR", field: "limit" })
    await expect(mailroom.contacts.addTags(account.id, "ct_unknown", [])).rejects.toMatchObject({ code: "VALIDATION_ERROR", field: "tags" })
    await expect(mailroom.contacts.get("acc_unknown", "ct_1")).rejects.toMatchObject({ code: "RESOURCE_NOT_FOUND" })
    await expect(mailroom.accounts.create({ plan: "gold" as never })).rejects.toMatchObject({ code: "VALIDATION_ERROR", field: "plan" })
    await expect(mailroom.accounts.authenticate("svc_live_nothing")).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" })
  })

  it("manages keys: a revoked key fails authentication", async () => {
    const { account } = await mailroom.accounts.create()
    const { apiKey, key } = await mailroom.accounts.createApiKey(account.id, { scopes: ["contacts:read"] })
    expect((await mailroom.accounts.authenticate(key)).apiKey.scopes).toEqual(["contacts:read"])
    await mailroom.accounts.revokeApiKey(account.id, apiKey.id)
    await expect(mailroom.accounts.authenticate(key)).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" })
    expect((await mailroom.accounts.update(account.id, { plan: "micro" })).plan).toBe("micro")
    expect((await mailroom.accounts.createAppCredential(account.id, { applicationKey: "studio", allowedSenders: [] })).key).toMatch(/^svc_app_/)
  })

  it("answers 401 to a key revoked right after requests that cached it, and serves a plan change at once", async () => {
    const { account, apiKey: fullKey } = await mailroom.accounts.create({ plan: "pro" })
    const { apiKey, key } = await mailroom.accounts.createApiKey(account.id, { scopes: ["contacts:read"] })
    for (let i = 0; i < 3; i++) expect((await request(mailroom, "GET", "/v1/contacts", key)).status).toBe(200)
    await mailroom.accounts.revokeApiKey(account.id, apiKey.id)
    const refused = await request(mailroom, "GET", "/v1/contacts", key)
    expect(refused.status).toBe(401)
    expect(await refused.json()).toMatchObject({ error: { code: "INVALID_CREDENTIALS" } })
    // A Free account holds at most 100 active contacts: the cached Pro account must not outlive the downgrade.
    expect((await request(mailroom, "POST", "/v1/contacts", fullKey, { email: "before-downgrade@example.com" })).status).toBe(201)
    await mailroom.accounts.update(account.id, { plan: "free" })
    await mailroom.contacts.bulkCreate(account.id, {
      contacts: Array.from({ length: 99 }, (_, i) => ({ email: `filler-${i}@example.com` })),
      skipDuplicates: true,
    })
    const capped = await request(mailroom, "POST", "/v1/contacts", fullKey, { email: "over-the-cap@example.com" })
    expect(await capped.json()).toMatchObject({ error: { code: "FREE_TIER_CONTACT_LIMIT" } })
  })
})

describe("createMailroom options", () => {
  it("passes body and rate limits to the router (a refused request still counts against the rate)", async () => {
    const mailroom = createMailroom({ database: "memory:", adminToken, bodyLimitBytes: 64, rateLimits: { contactsCreatePerMinute: 2 } })
    try {
      const { account, apiKey } = await mailroom.accounts.create({ plan: "pro" })
      expect(account.plan).toBe("pro")
      expect((await request(mailroom, "POST", "/v1/contacts", apiKey, { email: "a@example.com", firstName: "x".repeat(80) })).status).toBe(413)
      expect((await request(mailroom, "POST", "/v1/contacts", apiKey, { email: "a@example.com" })).status).toBe(201)
      expect((await request(mailroom, "POST", "/v1/contacts", apiKey, { email: "b@example.com" })).status).toBe(429)
    } finally {
      await mailroom.close()
    }
  })

  it("has no operator API without an admin token", async () => {
    const mailroom = createMailroom({ database: "memory:" })
    try {
      expect((await request(mailroom, "POST", "/admin/accounts", "anything", {})).status).toBe(404)
    } finally {
      await mailroom.close()
    }
  })

  it("builds mail links from appUrl and trackUrl, signed with the secret", async () => {
    const options = { database: "memory:", appUrl: "https://app.example.com/", trackUrl: "https://t.example.com" } as const
    const mailroom = createMailroom({ ...options, secret: "one secret" })
    const other = createMailroom({ ...options, secret: "another secret" })
    try {
      const subject = { accountId: "acc_1", recipient: "ada@example.com" }
      const links = await Effect.runPromise(Effect.provide(Effect.gen(function* () {
        const tokens = yield* Tokens
        return {
          confirm: (yield* tokens.confirmationUrl(subject)).url,
          unsubscribe: yield* tokens.unsubscribeUrl(subject),
          preferences: yield* tokens.preferencesUrl(subject),
        }
      }), mailroom.layer))
      expect(links.confirm).toMatch(/^https:\/\/app\.example\.com\/c\//)
      expect(links.unsubscribe).toMatch(/^https:\/\/t\.example\.com\/u\//)
      expect(links.preferences).toMatch(/^https:\/\/app\.example\.com\/p\//)
      const token = links.unsubscribe.split("/u/")[1]!
      const elsewhere = await Effect.runPromise(Effect.provide(
        Effect.flip(Effect.flatMap(Tokens, (tokens) => tokens.verify("unsubscribe", token))), other.layer))
      expect(elsewhere.code).toBe("INVALID_TOKEN")
    } finally {
      await mailroom.close()
      await other.close()
    }
  })

  it("closes once, however often close is called", async () => {
    const mailroom = createMailroom({ database: "memory:" })
    await mailroom.ready()
    const first = mailroom.close()
    expect(mailroom.close()).toBe(first)
    await Promise.all([first, mailroom.close()])
  })

  it("keeps data in a SQLite file across restarts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mailroom-facade-"))
    try {
      const database = `sqlite:${join(dir, "nested", "mailroom.sqlite")}`
      const first = createMailroom({ database, sqliteSynchronous: "NORMAL" })
      const { account } = await first.accounts.create({ plan: "pro" })
      const contact = await first.contacts.create(account.id, { email: "kept@example.com" })
      await first.close()
      const second = createMailroom({ database })
      expect((await second.contacts.get(account.id, contact.id)).email).toBe("kept@example.com")
      await second.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("writes its log lines to stderr, leaving stdout to the host", async () => {
    const mailroom = createMailroom({ database: "memory:" })
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined)
    const logs = vi.spyOn(console, "log").mockImplementation(() => undefined)
    try {
      await mailroom.runtime.runPromise(Effect.logWarning("disk almost full"))
      expect(errors.mock.calls.some(([line]) => String(line).includes("disk almost full"))).toBe(true)
      expect(logs).not.toHaveBeenCalled()
    } finally {
      errors.mockRestore()
      logs.mockRestore()
      await mailroom.close()
    }
  })

  it("rejects ready() when the backend cannot start, and answers health 503 and the API 500", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mailroom-facade-"))
    try {
      // A file where the database's directory should be: the backend cannot open.
      writeFileSync(join(dir, "blocker"), "")
      const mailroom = createMailroom({ database: `sqlite:${join(dir, "blocker", "db.sqlite")}`, adminToken })
      await expect(mailroom.ready()).rejects.toMatchObject({ _tag: "StoreError" })
      const health = await mailroom.fetch(new Request("http://host.test/api/health"))
      expect({ status: health.status, body: await health.json() }).toMatchObject({ status: 503, body: { database: "disconnected" } })
      const logged = vi.spyOn(console, "error").mockImplementation(() => undefined)
      const api = await request(mailroom, "POST", "/admin/accounts", adminToken, {})
      expect({ status: api.status, code: (await api.json()).error.code }).toEqual({ status: 500, code: "INTERNAL_ERROR" })
      // The runtime's logger never started, so the failure goes to the console with the request id.
      expect(logged.mock.calls.some(([line]) => String(line).includes(api.headers.get("x-request-id")!))).toBe(true)
      logged.mockRestore()
      await mailroom.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
