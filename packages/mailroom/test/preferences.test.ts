/** The preference centre over plain HTTP on the facade: a GET (a person, or a link scanner) changes nothing; forged,
 *  truncated, other-purpose and unknown-account links answer one page that tells nothing; a post from another site is
 *  refused; labels are escaped; changes go through the Subscriptions service with method preference_center. */
import { Accounts, Store, Subscriptions, Tokens } from "@mailroom/core"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMailroom } from "../src/index.js"

const adminToken = "preferences-admin-token"
const appUrl = "https://pages.example.com"

describe("the preference centre", () => {
  const mailroom = createMailroom({ database: "memory:", adminToken, appUrl, backgroundWork: false })
  const run = <A>(effect: Effect.Effect<A, unknown, any>) =>
    Effect.runPromise(effect.pipe(Effect.provide(mailroom.layer)) as Effect.Effect<A>)
  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await mailroom.fetch(new Request(`http://host.test${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }))
    return { status: response.status, body: await response.json() }
  }
  const page = (path: string, init: RequestInit = {}) => mailroom.fetch(new Request(`${appUrl}${path}`, { redirect: "manual", ...init }))
  const email = "kim@example.com"
  let accountId: string
  let topicId: string
  let path: string
  const events = () => run(Effect.flatMap(Store, (store) => store.events.list(accountId as never)))

  beforeAll(async () => {
    await mailroom.ready()
    const account = (await call("POST", "/admin/accounts", adminToken, { plan: "pro" })).body
    accountId = account.id
    topicId = (await call("POST", "/v1/suppression-groups", account.apiKey, {
      name: "tips", publicLabel: "<script>alert(1)</script> Tips", isPublishedOnUnsub: true,
    })).body.data.id
    await run(Effect.gen(function* () {
      const owner = yield* (yield* Accounts).get(accountId)
      yield* (yield* Subscriptions).subscribe(owner, { email })
    }))
    const url = await run(Effect.flatMap(Tokens, (tokens) => tokens.preferencesUrl({ accountId, recipient: email })))
    path = new URL(url).pathname
  })
  afterAll(() => mailroom.close())

  it("shows the page on GET and HEAD and changes nothing, with the topic's label escaped", async () => {
    const before = (await events()).length
    const response = await page(path)
    expect(response.status).toBe(200)
    expect(response.headers.get("cache-control")).toBe("no-store")
    const text = await response.text()
    expect(text).toContain("&lt;script&gt;alert(1)&lt;/script&gt; Tips")
    expect(text).not.toContain("<script>alert(1)")
    expect((await page(path, { method: "HEAD" })).status).toBe(200)
    expect((await events()).length).toBe(before)
  })

  it("answers forged, truncated, other-purpose and unknown-account links with one page", async () => {
    const unsubscribeToken = await run(Effect.flatMap(Tokens, (tokens) => tokens.make("unsubscribe", { accountId, recipient: email })))
    const foreign = await run(Effect.flatMap(Tokens, (tokens) => tokens.make("preferences", { accountId: "acc_unknown", recipient: email })))
    for (const bad of [`${path}x`, path.slice(0, -4), `/p/${unsubscribeToken.token}`, `/p/${foreign.token}`, "/p/forged"]) {
      const response = await page(bad)
      expect(response.status).toBe(400)
      expect(await response.text()).toContain("This link is not valid")
    }
  })

  it("refuses a post from another site and changes nothing", async () => {
    const before = (await events()).length
    const response = await page(path, {
      method: "POST", headers: { origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" },
      body: "action=unsubscribe_all",
    })
    expect(response.status).toBe(403)
    expect((await events()).length).toBe(before)
  })

  it("opts out of an unticked topic with method preference_center, and a repeat changes nothing", async () => {
    const post = () => page(path, {
      method: "POST", headers: { origin: appUrl, "content-type": "application/x-www-form-urlencoded" }, body: "action=save",
    })
    const response = await post()
    expect(response.status).toBe(303)
    expect(response.headers.get("location")).toBe(`${appUrl}${path}?saved=1`)
    const after = await events()
    expect(after.at(-1)).toMatchObject({ type: "contact.unsubscribed", details: { scope: "topic", topicId, method: "preference_center" } })
    await post()
    expect((await events()).length).toBe(after.length)
  })
})
