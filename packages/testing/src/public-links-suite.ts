/** The public consent links over HTTP (audience "Public unsubscribe endpoints", CONTRACT.md "Streams and links in
 *  mail"): POST /v1/unsubscribe, the one-click routes, the unsubscribe page `/u/<token>` and the confirmation page
 *  `/c/<token>`, with every bad token (forged, truncated, expired under TestClock, of another purpose, of an account
 *  that does not exist, of another account's list) and every request that must change nothing (a GET that tries to
 *  unsubscribe, a HEAD, a prefetch or a robot's GET of a confirmation link), a person's browser confirming in one step,
 *  and the host's `confirmation: "button"` mode. Each path's events are read from the outbox. Runs against a Mailroom
 *  on each backend; each test makes its own accounts. */
import { type EmailAddress, type LinkSubject, type Mailer, Store, Subscriptions, type TokenPurpose, Tokens } from "@mailroom/core"
import { Effect, Option, TestClock, TestContext } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Answer, type Client, expectError, freshEmail, makeClient } from "./http-suite/client.js"

export interface PublicLinksTarget {
  /** Mailroom's handler, with adminToken "test-admin-token" and no SMTP relay (mail goes to the dev outbox). */
  readonly fetch: (request: Request) => Promise<Response>
  /** Runs an effect on that Mailroom's runtime (its Store, Tokens and Subscriptions). */
  readonly run: <A, E>(effect: Effect.Effect<A, E, Store | Tokens | Subscriptions | Mailer>) => Promise<A>
  readonly close: () => Promise<void>
}

/** What the suite asks of the Mailroom behind a target: createMailroom's `confirmation` option, passed on as it is. */
export interface PublicLinksTargetConfig {
  readonly confirmation: "link" | "button"
}

/** The headers a desktop browser sends when a person follows a link (Chromium's, with an ordinary User-Agent). */
export const browserNavigation: Readonly<Record<string, string>> = {
  "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
  "sec-fetch-site": "cross-site",
  "sec-fetch-mode": "navigate",
  "sec-fetch-user": "?1",
  "sec-fetch-dest": "document",
  "upgrade-insecure-requests": "1",
}

/** Requests for a confirmation link that must confirm nobody, one per signal of docs/consent.md "Link scanners". */
const automatedFetches: ReadonlyArray<readonly [string, string, Readonly<Record<string, string>>]> = [
  ["a HEAD from a browser", "HEAD", browserNavigation],
  ["a prefetch (Sec-Purpose)", "GET", { ...browserNavigation, "sec-purpose": "prefetch" }],
  ["a prerender (Sec-Purpose prefetch;prerender)", "GET", { ...browserNavigation, "sec-purpose": "prefetch;prerender" }],
  ["a prefetch (Purpose)", "GET", { ...browserNavigation, "purpose": "prefetch" }],
  ["headless Chromium", "GET", {
    ...browserNavigation,
    "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36",
  }],
  ["a link previewer (Slackbot)", "GET", { ...browserNavigation, "user-agent": "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)" }],
  ["a crawler (Googlebot)", "GET", { ...browserNavigation, "user-agent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" }],
  ["an HTTP library (curl)", "GET", { "user-agent": "curl/8.5.0", "accept": "*/*" }],
  ["no User-Agent", "GET", Object.fromEntries(Object.entries(browserNavigation).filter(([header]) => header !== "user-agent"))],
  ["a browser's User-Agent without navigation headers", "GET", { "user-agent": browserNavigation["user-agent"]!, "accept": "text/html" }],
  ["a fetch() from a page (Sec-Fetch-Mode cors)", "GET", { ...browserNavigation, "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" }],
  ["a page in a frame (Sec-Fetch-Dest iframe)", "GET", { ...browserNavigation, "sec-fetch-dest": "iframe" }],
]

export const publicLinksSuite = (name: string, makeTarget: (config: PublicLinksTargetConfig) => Promise<PublicLinksTarget>) =>
  describe(`Public consent links (${name})`, () => {
    let target: PublicLinksTarget | undefined
    beforeAll(async () => {
      target = await makeTarget({ confirmation: "link" })
    })
    afterAll(async () => {
      await target?.close()
    })
    const current = () => {
      if (target === undefined) throw new Error("the public links target is not ready")
      return target
    }
    const client: Client = makeClient(current)
    const run = <A, E>(effect: Effect.Effect<A, E, Store | Tokens | Subscriptions | Mailer>) => current().run(effect)
    /** Runs a Subscriptions method for the account `accountId`. */
    const subscriptions = <A, E>(accountId: string, use: (service: Subscriptions, account: any) => Effect.Effect<A, E, Store | Mailer>) =>
      run(Effect.gen(function* () {
        const account = Option.getOrThrow(yield* (yield* Store).accounts.findById(accountId as never))
        return yield* use(yield* Subscriptions, account)
      }))

    /** A token made now. */
    const token = (purpose: TokenPurpose, subject: LinkSubject) =>
      run(Effect.flatMap(Tokens, (tokens) => tokens.make(purpose, subject)).pipe(Effect.map(({ token }) => token)))
    /** A token made under a TestClock set to the epoch: long expired now. */
    const expiredToken = (purpose: TokenPurpose, subject: LinkSubject) =>
      run(Effect.gen(function* () {
        yield* TestClock.setTime(0)
        const tokens = yield* Tokens
        return (yield* tokens.make(purpose, subject)).token
      }).pipe(Effect.provide(TestContext.TestContext)))

    /** What a refused request must leave as it was: the account's events, and the address's suppression. */
    const snapshot = (accountId: string, email: string) =>
      run(Effect.gen(function* () {
        const store = yield* Store
        const events = yield* store.events.list(accountId as never)
        const suppression = yield* store.suppressions.findByEmail(accountId as never, email as EmailAddress)
        return { events: events.map((event) => event.id), suppression: Option.getOrNull(suppression)?.reason ?? null }
      }))

    const unsubscribeJson = (body: unknown) => client.call("POST", "/v1/unsubscribe", { body })
    const setup = async () => {
      const account = await client.account({ name: "Acme <News> & \"Co\"" })
      const email = freshEmail("reader")
      const contact = await client.contact(account.key, { email })
      return { account, email, contactId: contact.id as string, before: await snapshot(account.id, email) }
    }
    const expectUnchanged = async (accountId: string, email: string, before: unknown) =>
      expect(await snapshot(accountId, email)).toEqual(before)
    const expectHtml = (answer: Answer, status: number) => {
      expect(answer.status, answer.text).toBe(status)
      expect(answer.contentType).toMatch(/^text\/html/)
      expect(answer.headers.get("cache-control")).toBe("no-store")
      // same-origin: the token in the page's address never goes to another site, and the page's own form posts keep
      // their Origin (under no-referrer, Chromium sends Origin: null).
      expect(answer.headers.get("referrer-policy")).toBe("same-origin")
      expect(answer.text).not.toMatch(/<script/i)
    }

    describe("POST /v1/unsubscribe refuses every token that is not a valid one, and changes nothing", () => {
      it.each([
        ["forged (signature of another key)", async (t: string) => `${t.split(".")[0]}.${"A".repeat(43)}`],
        ["forged (payload changed under the old signature)", async (t: string) => {
          const [payload, signature] = t.split(".") as [string, string]
          const claims = JSON.parse(Buffer.from(payload, "base64url").toString())
          return `${Buffer.from(JSON.stringify({ ...claims, r: "someone-else@example.com" })).toString("base64url")}.${signature}`
        }],
        ["truncated", async (t: string) => t.slice(0, t.length - 5)],
        ["cut at the dot", async (t: string) => t.split(".")[0]!],
        ["malformed", async () => "not a token at all"],
      ])("%s → 400 INVALID_TOKEN", async (_, mangle) => {
        const { account, email, before } = await setup()
        const good = await token("unsubscribe", { accountId: account.id, recipient: email })
        expectError(await unsubscribeJson({ token: await mangle(good) }), 400, "INVALID_TOKEN")
        await expectUnchanged(account.id, email, before)
      })

      it("an expired token (made under TestClock) → 400 INVALID_TOKEN", async () => {
        const { account, email, before } = await setup()
        const expired = await expiredToken("unsubscribe", { accountId: account.id, recipient: email })
        const answer = await unsubscribeJson({ token: expired })
        expectError(answer, 400, "INVALID_TOKEN")
        expect(answer.json.error.message).toContain("expired")
        await expectUnchanged(account.id, email, before)
      })

      it("a token of another purpose (a confirmation or preferences token) → 400 INVALID_TOKEN", async () => {
        const { account, email, before } = await setup()
        for (const purpose of ["confirm", "preferences"] as const) {
          expectError(await unsubscribeJson({ token: await token(purpose, { accountId: account.id, recipient: email }) }), 400, "INVALID_TOKEN")
        }
        await expectUnchanged(account.id, email, before)
      })

      it("an unmatched token (its account does not exist) → 400 INVALID_TOKEN", async () => {
        const { account, email, before } = await setup()
        const unmatched = await token("unsubscribe", { accountId: "acc_does_not_exist", recipient: email })
        expectError(await unsubscribeJson({ token: unmatched }), 400, "INVALID_TOKEN")
        await expectUnchanged(account.id, email, before)
      })

      it("a bare contactId is refused, with or without other fields", async () => {
        const { account, email, contactId, before } = await setup()
        expectError(await unsubscribeJson({ contactId }), 400, "VALIDATION_ERROR", "contactId")
        expectError(await unsubscribeJson({ contactId, scope: "all" }), 400, "VALIDATION_ERROR", "contactId")
        const good = await token("unsubscribe", { accountId: account.id, recipient: email })
        expectError(await unsubscribeJson({ token: good, contactId }), 400, "VALIDATION_ERROR", "contactId")
        await expectUnchanged(account.id, email, before)
      })

      it("a missing token, an unknown field, a bad scope, a missing id for its scope or a long reason → VALIDATION_ERROR", async () => {
        const { account, email, before } = await setup()
        const good = await token("unsubscribe", { accountId: account.id, recipient: email })
        expectError(await unsubscribeJson({}), 400, "VALIDATION_ERROR", "token")
        expectError(await unsubscribeJson({ token: "" }), 400, "VALIDATION_ERROR", "token")
        expectError(await unsubscribeJson({ token: good, email }), 400, "VALIDATION_ERROR", "email")
        expectError(await unsubscribeJson({ token: good, scope: "everything" }), 400, "VALIDATION_ERROR", "scope")
        expectError(await unsubscribeJson({ token: good, scope: "LIST" }), 400, "VALIDATION_ERROR", "listId")
        expectError(await unsubscribeJson({ token: good, scope: "Topic" }), 400, "VALIDATION_ERROR", "topicId")
        expectError(await unsubscribeJson({ token: good, scope: "category" }), 400, "VALIDATION_ERROR", "topicId")
        expectError(await unsubscribeJson({ token: good, scope: "topic", topicId: "grp_a", suppressionGroupId: "grp_b" }), 400, "VALIDATION_ERROR", "suppressionGroupId")
        expectError(await unsubscribeJson({ token: good, reason: "x".repeat(501) }), 400, "VALIDATION_ERROR", "reason")
        expectError(await client.call("POST", "/v1/unsubscribe", { raw: "{not json", headers: { "content-type": "application/json" } }), 400, "VALIDATION_ERROR")
        await expectUnchanged(account.id, email, before)
      })

      it("needs no API key, and ignores one", async () => {
        const { account, email, before } = await setup()
        const answer = await client.call("POST", "/v1/unsubscribe", { body: { token: "x.y" }, key: "svc_live_not_a_key" })
        expectError(answer, 400, "INVALID_TOKEN")
        await expectUnchanged(account.id, email, before)
      })
    })

    describe("one-click", () => {
      it("POST without a token → 400, with an unresolvable one → 200, in both body encodings, and nothing changes", async () => {
        const { account, email, before } = await setup()
        const form = "List-Unsubscribe=One-Click"
        const urlencoded = { raw: form, headers: { "content-type": "application/x-www-form-urlencoded" } }
        expectError(await client.call("POST", "/v1/unsubscribe/one-click", urlencoded), 400, "VALIDATION_ERROR", "token")
        expectError(await client.call("POST", "/v1/unsubscribe/one-click?token=", urlencoded), 400, "VALIDATION_ERROR", "token")
        const forged = `${(await token("unsubscribe", { accountId: account.id, recipient: email })).split(".")[0]}.AAAA`
        const expired = await expiredToken("unsubscribe", { accountId: account.id, recipient: email })
        for (const bad of [forged, expired, "garbage"]) {
          const multipart = new FormData()
          multipart.set("List-Unsubscribe", "One-Click")
          for (const options of [urlencoded, { raw: multipart }]) {
            const answer = await client.call("POST", `/v1/unsubscribe/one-click?token=${encodeURIComponent(bad)}`, options)
            expect(answer.status, answer.text).toBe(200)
            expect(answer.json.success).toBe(true)
          }
        }
        await expectUnchanged(account.id, email, before)
      })

      it("GET never unsubscribes: it answers 303 to the unsubscribe page", async () => {
        const { account, email, before } = await setup()
        const good = await token("unsubscribe", { accountId: account.id, recipient: email })
        const answer = await client.call("GET", `/v1/unsubscribe/one-click?token=${encodeURIComponent(good)}`)
        expect(answer.status).toBe(303)
        expect(answer.headers.get("location")).toMatch(new RegExp(`/u/${good.replace(/[.]/g, "\\.")}$`))
        expect((await client.call("HEAD", `/v1/unsubscribe/one-click?token=${encodeURIComponent(good)}`)).status).toBe(303)
        expectError(await client.call("GET", "/v1/unsubscribe/one-click"), 400, "VALIDATION_ERROR", "token")
        await expectUnchanged(account.id, email, before)
      })
    })

    describe("the unsubscribe page /u/<token>", () => {
      it("a GET shows what the recipient leaves, escaped, and changes nothing; so does a HEAD", async () => {
        const { account, email, before } = await setup()
        const good = await token("unsubscribe", { accountId: account.id, recipient: email })
        const page = await client.call("GET", `/u/${good}`)
        expectHtml(page, 200)
        expect(page.text).toContain("Acme &lt;News&gt; &amp; &quot;Co&quot;")
        expect(page.text).not.toContain("<News>")
        expect(page.text).toContain(email)
        expect(page.text).toMatch(/<form method="post"[^>]*>[\s\S]*<button type="submit">Unsubscribe<\/button>/)
        expect((await client.call("HEAD", `/u/${good}`)).status).toBe(200)
        // It offers the recipient's preference centre, a link that works.
        const preferences = /<a href="(https?:\/\/[^"]+\/p\/[^"]+)">Choose which mail you receive instead<\/a>/.exec(page.text)?.[1]
        expect(preferences, page.text).toBeDefined()
        const centre = await client.call("GET", new URL(preferences!).pathname)
        expectHtml(centre, 200)
        expect(centre.text).toContain(email)
        await expectUnchanged(account.id, email, before)
      })

      it("names the list or the topic the link is about; one of another account is not shown", async () => {
        const { account, email, before } = await setup()
        const other = await client.account()
        const list = await client.call("POST", "/v1/contacts/lists", { key: account.key, body: { name: "Weekly <digest>" } })
        const topic = await client.call("POST", "/v1/suppression-groups", { key: account.key, body: { name: "Offers" } })
        await client.call("PATCH", `/v1/suppression-groups/${topic.json.data.id}`, {
          key: account.key, body: { publicLabel: "Special offers", publicDescription: "Discounts & deals" },
        })
        const foreignList = await client.call("POST", "/v1/contacts/lists", { key: other.key, body: { name: "Theirs" } })
        const listPage = await client.call("GET", `/u/${await token("unsubscribe", { accountId: account.id, recipient: email, listId: list.json.data.id })}`)
        expectHtml(listPage, 200)
        expect(listPage.text).toContain("Weekly &lt;digest&gt;")
        const topicPage = await client.call("GET", `/u/${await token("unsubscribe", { accountId: account.id, recipient: email, topicId: topic.json.data.id })}`)
        expectHtml(topicPage, 200)
        expect(topicPage.text).toContain("Special offers")
        expect(topicPage.text).toContain("Discounts &amp; deals")
        const foreign = await client.call("GET", `/u/${await token("unsubscribe", { accountId: account.id, recipient: email, listId: foreignList.json.data.id })}`)
        expectHtml(foreign, 400)
        expect(foreign.text).not.toContain("Theirs")
        await expectUnchanged(account.id, email, before)
      })

      it.each([
        ["forged", async (t: string) => `${t.split(".")[0]}.${"B".repeat(43)}`],
        ["truncated", async (t: string) => t.slice(0, -3)],
      ])("a %s token shows the invalid-link page, on GET and POST, and changes nothing", async (_, mangle) => {
        const { account, email, before } = await setup()
        const bad = await mangle(await token("unsubscribe", { accountId: account.id, recipient: email }))
        expectHtml(await client.call("GET", `/u/${bad}`), 400)
        expectHtml(await client.call("POST", `/u/${bad}`, { raw: "List-Unsubscribe=One-Click", headers: { "content-type": "application/x-www-form-urlencoded" } }), 400)
        await expectUnchanged(account.id, email, before)
      })

      it("an expired token shows the invalid-link page and changes nothing", async () => {
        const { account, email, before } = await setup()
        const expired = await expiredToken("unsubscribe", { accountId: account.id, recipient: email })
        expectHtml(await client.call("GET", `/u/${expired}`), 400)
        expectHtml(await client.call("POST", `/u/${expired}`), 400)
        await expectUnchanged(account.id, email, before)
      })
    })

    /** The account's events of `type`, oldest first, with their details. */
    const eventsOf = (accountId: string, type: string) =>
      run(Effect.flatMap(Store, (store) => store.events.list(accountId as never, { type: type as never }))).then((events) =>
        [...events].sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime()).map((event) => event.details as Record<string, unknown>))
    const suppressionOf = async (accountId: string, email: string) => (await snapshot(accountId, email)).suppression
    const form = { raw: "List-Unsubscribe=One-Click", headers: { "content-type": "application/x-www-form-urlencoded" } }

    describe("unsubscribing through a link: the change, its event, and a replay that changes nothing", () => {
      it("POST /v1/unsubscribe (scope all by default) unsubscribes with method link; the same token again changes nothing", async () => {
        const { account, email, contactId } = await setup()
        const good = await token("unsubscribe", { accountId: account.id, recipient: email, campaignId: "cmp_spring" })
        const answer = await unsubscribeJson({ token: good, reason: "Too many emails" })
        expect(answer.status, answer.text).toBe(200)
        expect(answer.json).toEqual({ success: true, message: expect.any(String), data: { scope: "all", changed: true } })
        expect(await suppressionOf(account.id, email)).toBe("Unsubscribe")
        expect((await client.read(account.key, contactId)).status).toBe("UNSUBSCRIBED")
        expect(await eventsOf(account.id, "contact.unsubscribed")).toEqual([expect.objectContaining({
          contactEmail: email, contactId, scope: "all", method: "link", campaignId: "cmp_spring", reason: "Too many emails",
        })])
        const before = await snapshot(account.id, email)
        const replay = await unsubscribeJson({ token: good })
        expect(replay.json.data).toEqual({ scope: "all", changed: false })
        await expectUnchanged(account.id, email, before)
      })

      /** POST /unsubscribe for `email` with a body naming another account's list or topic (`foreign`) is refused with
       *  `expected.code` and changes nothing; with a body naming the account's own (`own`, whose id is `expected.id`) it
       *  leaves that list or topic, with contact.unsubscribed of method link. */
      const refuseForeignThenLeave = async (
        accountId: string,
        email: string,
        expected: { readonly scope: "list" | "topic"; readonly id: string; readonly code: string },
        foreign: Record<string, string>,
        own: Record<string, string>,
      ) => {
        const good = await token("unsubscribe", { accountId, recipient: email })
        const before = await snapshot(accountId, email)
        expectError(await unsubscribeJson({ token: good, ...foreign }), 404, expected.code)
        await expectUnchanged(accountId, email, before)
        const answer = await unsubscribeJson({ token: good, ...own })
        expect(answer.json.data, answer.text).toEqual({ scope: expected.scope, changed: true })
        expect(await eventsOf(accountId, "contact.unsubscribed")).toEqual([expect.objectContaining({
          contactEmail: email, scope: expected.scope, [expected.scope === "list" ? "listId" : "topicId"]: expected.id, method: "link",
        })])
      }

      it("scope LIST leaves the list the body names; a list of another account is LIST_NOT_FOUND and changes nothing", async () => {
        const { account, email, contactId } = await setup()
        const other = await client.account()
        const list = (await client.call("POST", "/v1/contacts/lists", { key: account.key, body: { name: "Weekly" } })).json.data
        await client.call("POST", `/v1/contacts/lists/${list.id}/members`, { key: account.key, body: { contactIds: [contactId] } })
        const foreign = (await client.call("POST", "/v1/contacts/lists", { key: other.key, body: { name: "Theirs" } })).json.data
        await refuseForeignThenLeave(account.id, email, { scope: "list", id: list.id, code: "LIST_NOT_FOUND" },
          { scope: "LIST", listId: foreign.id }, { scope: "LIST", listId: list.id })
        expect(await eventsOf(account.id, "list.member_removed")).toEqual([
          expect.objectContaining({ listId: list.id, contactId, source: "UNSUBSCRIBE" }),
        ])
        expect(await suppressionOf(account.id, email)).toBeNull()
      })

      it("scope category with the legacy suppressionGroupId opts out of the topic; a topic of another account is TOPIC_NOT_FOUND", async () => {
        const { account, email } = await setup()
        const other = await client.account()
        const topic = (await client.call("POST", "/v1/suppression-groups", { key: account.key, body: { name: "Offers" } })).json.data
        const foreign = (await client.call("POST", "/v1/suppression-groups", { key: other.key, body: { name: "Offers" } })).json.data
        await refuseForeignThenLeave(account.id, email, { scope: "topic", id: topic.id, code: "TOPIC_NOT_FOUND" },
          { scope: "topic", topicId: foreign.id }, { scope: "category", suppressionGroupId: topic.id })
        const members = await client.call("GET", `/v1/suppression-groups/${topic.id}/members`, { key: account.key })
        expect(members.json.data.map((row: { email: string }) => row.email)).toEqual([email])
      })

      it("POST one-click unsubscribes from all with method one_click, in either body encoding, and a replay fires nothing", async () => {
        const { account, email } = await setup()
        const good = await token("unsubscribe", { accountId: account.id, recipient: email })
        const answer = await client.call("POST", `/v1/unsubscribe/one-click?token=${encodeURIComponent(good)}`, form)
        expect(answer.status, answer.text).toBe(200)
        expect(await suppressionOf(account.id, email)).toBe("Unsubscribe")
        expect(await eventsOf(account.id, "contact.unsubscribed")).toEqual([
          expect.objectContaining({ contactEmail: email, scope: "all", method: "one_click" }),
        ])
        const before = await snapshot(account.id, email)
        const multipart = new FormData()
        multipart.set("List-Unsubscribe", "One-Click")
        expect((await client.call("POST", `/v1/unsubscribe/one-click?token=${encodeURIComponent(good)}`, { raw: multipart })).status).toBe(200)
        await expectUnchanged(account.id, email, before)

        const stranger = freshEmail("not-a-contact")
        const strangers = await token("unsubscribe", { accountId: account.id, recipient: stranger })
        const viaMultipart = new FormData()
        viaMultipart.set("List-Unsubscribe", "One-Click")
        expect((await client.call("POST", `/v1/unsubscribe/one-click?token=${encodeURIComponent(strangers)}`, { raw: viaMultipart })).status).toBe(200)
        expect(await suppressionOf(account.id, stranger)).toBe("Unsubscribe")
        expect(await eventsOf(account.id, "contact.unsubscribed")).toContainEqual(
          expect.objectContaining({ contactEmail: stranger, contactId: null, method: "one_click" }))
      })

      it("the page's button (POST /u/<token>) leaves what the token names, with method one_click", async () => {
        const { account, email, contactId } = await setup()
        const list = (await client.call("POST", "/v1/contacts/lists", { key: account.key, body: { name: "Weekly" } })).json.data
        await client.call("POST", `/v1/contacts/lists/${list.id}/members`, { key: account.key, body: { contactIds: [contactId] } })
        const good = await token("unsubscribe", { accountId: account.id, recipient: email, listId: list.id })
        expectHtml(await client.call("GET", `/u/${good}`), 200)
        expect(await eventsOf(account.id, "contact.unsubscribed")).toEqual([])
        const pressed = await client.call("POST", `/u/${good}`, { raw: "", headers: { "content-type": "application/x-www-form-urlencoded" } })
        expectHtml(pressed, 200)
        expect(pressed.text).toContain("You are unsubscribed")
        expect(await eventsOf(account.id, "contact.unsubscribed")).toEqual([
          expect.objectContaining({ contactEmail: email, scope: "list", listId: list.id, method: "one_click" }),
        ])
        expect((await client.read(account.key, contactId)).status).toBe("ACTIVE")
        const again = await client.call("POST", `/u/${good}`, form)
        expect(again.text).toContain("already unsubscribed")
        expect(await eventsOf(account.id, "contact.unsubscribed")).toHaveLength(1)
      })
    })

    describe("double opt-in through the confirmation link", () => {
      /** Subscribes a new address with doubleOptIn (the Subscriptions service, as POST /v1/subscriptions does) and
       *  answers the path of the link in its confirmation mail. */
      const subscribePending = async (accountId: string, body: Record<string, unknown> = {}) => {
        const email = freshEmail("pending")
        const subscribed = await subscriptions(accountId, (service, account) =>
          service.subscribe(account, { email, doubleOptIn: true, ...body }))
        expect(subscribed).toMatchObject({ status: "PENDING", requiresConfirmation: true, confirmationSent: true })
        return { email, contactId: subscribed.contactId as string, path: await linkPath(email, 1) }
      }
      /** The path of the confirmation link in the newest mail to `email`, once `count` mails are there. */
      const linkPath = async (email: string, count: number) => {
        const outbox = await client.call("GET", `/admin/outbox?to=${encodeURIComponent(email)}`, { key: "test-admin-token" })
        expect(outbox.json.data).toHaveLength(count)
        const mail = outbox.json.data[0]
        const url = /https?:\/\/[^\s"'<>]+\/c\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/.exec(`${mail.text ?? ""} ${mail.html ?? ""}`)?.[0]
        expect(url, JSON.stringify(mail)).toBeDefined()
        return new URL(url!).pathname
      }
      const statusOf = (accountId: string, email: string) =>
        subscriptions(accountId, (service, account) => service.status(account, email))

      it("GET and HEAD confirm nothing; the button confirms once (contact.confirmed), and the used link says so", async () => {
        const account = await client.account()
        const list = (await client.call("POST", "/v1/contacts/lists", { key: account.key, body: { name: "Weekly" } })).json.data
        const { email, contactId, path } = await subscribePending(account.id, { listIds: [list.id] })
        expectHtml(await client.call("GET", path), 200)
        expect((await client.call("HEAD", path)).text).toBe("")
        expect((await statusOf(account.id, email)).contact?.status).toBe("PENDING")
        expect(await eventsOf(account.id, "contact.confirmed")).toEqual([])

        const confirmed = await client.call("POST", path, form)
        expectHtml(confirmed, 200)
        expect(confirmed.text).toContain("Subscription confirmed")
        const after = await statusOf(account.id, email)
        expect(after.contact?.status).toBe("ACTIVE")
        expect(after.pendingConfirmation).toBeNull()
        expect(await eventsOf(account.id, "contact.confirmed")).toEqual([expect.objectContaining({
          contactId, email, formId: null, listIds: [list.id], confirmedAt: expect.any(String),
        })])

        for (const method of ["GET", "POST"]) {
          const used = await client.call(method, path, method === "POST" ? form : {})
          expectHtml(used, 200)
          expect(used.text).toContain("Already confirmed")
        }
        expect(await eventsOf(account.id, "contact.confirmed")).toHaveLength(1)
      })

      it("with an https redirectUrl the button answers 303 to it", async () => {
        const account = await client.account()
        const { email, path } = await subscribePending(account.id, { redirectUrl: "https://example.com/welcome?x=1" })
        const confirmed = await client.call("POST", path, form)
        expect(confirmed.status).toBe(303)
        expect(confirmed.headers.get("location")).toBe("https://example.com/welcome?x=1")
        expect((await statusOf(account.id, email)).contact?.status).toBe("ACTIVE")
      })

      it.each(automatedFetches)("%s confirms nothing: the contact stays PENDING and gets the page with the button", async (_, method, headers) => {
        const account = await client.account()
        const { email, path } = await subscribePending(account.id)
        const answer = await client.call(method, path, { headers })
        expectHtml(answer, 200)
        if (method === "GET") {
          expect(answer.text).toContain("Confirm your subscription")
          expect(answer.text).toMatch(/<form method="post"[^>]*>[\s\S]*<button type="submit">Confirm subscription<\/button>/)
        } else {
          expect(answer.text).toBe("")
        }
        const status = await statusOf(account.id, email)
        expect(status.contact?.status).toBe("PENDING")
        expect(status.pendingConfirmation).not.toBeNull()
        expect(await eventsOf(account.id, "contact.confirmed")).toEqual([])
      })

      it("a person's browser following the link confirms at once (contact.confirmed), with no button; the link then says it was used", async () => {
        const account = await client.account()
        const list = (await client.call("POST", "/v1/contacts/lists", { key: account.key, body: { name: "Weekly" } })).json.data
        const { email, contactId, path } = await subscribePending(account.id, { listIds: [list.id] })
        const followed = await client.call("GET", path, { headers: browserNavigation })
        expectHtml(followed, 200)
        expect(followed.text).toContain("Subscription confirmed")
        expect(followed.text).not.toContain("<button")
        const after = await statusOf(account.id, email)
        expect(after.contact?.status).toBe("ACTIVE")
        expect(after.contact?.confirmedAt).not.toBeNull()
        expect(after.pendingConfirmation).toBeNull()
        expect(await eventsOf(account.id, "contact.confirmed")).toEqual([expect.objectContaining({
          contactId, email, formId: null, listIds: [list.id], confirmedAt: expect.any(String),
        })])
        const again = await client.call("GET", path, { headers: browserNavigation })
        expectHtml(again, 200)
        expect(again.text).toContain("Already confirmed")
        expect(await eventsOf(account.id, "contact.confirmed")).toHaveLength(1)
      })

      it("a person's browser following the link with an https redirectUrl confirms and answers 303 to it", async () => {
        const account = await client.account()
        const { email, path } = await subscribePending(account.id, { redirectUrl: "https://example.com/welcome?x=1" })
        const followed = await client.call("GET", path, { headers: browserNavigation })
        expect(followed.status).toBe(303)
        expect(followed.headers.get("location")).toBe("https://example.com/welcome?x=1")
        expect((await statusOf(account.id, email)).contact?.status).toBe("ACTIVE")
        expect(await eventsOf(account.id, "contact.confirmed")).toHaveLength(1)
      })

      it("a person's browser following an expired or replaced link confirms nothing and is offered a new link", async () => {
        const account = await client.account()
        const { email, path } = await subscribePending(account.id)
        const claims = JSON.parse(Buffer.from(path.split("/c/")[1]!.split(".")[0]!, "base64url").toString())
        const expired = await expiredToken("confirm", { accountId: account.id, recipient: email, nonce: claims.n })
        const stale = await client.call("GET", `/c/${expired}`, { headers: browserNavigation })
        expectHtml(stale, 410)
        expect(stale.text).toContain("Send me a new link")
        await subscriptions(account.id, (service, account) => service.resendConfirmation(account, email))
        const replaced = await client.call("GET", path, { headers: browserNavigation })
        expectHtml(replaced, 410)
        expect(replaced.text).toContain("replaced")
        expect((await statusOf(account.id, email)).contact?.status).toBe("PENDING")
        expect(await eventsOf(account.id, "contact.confirmed")).toEqual([])
      })

      it("a link replaced by a resend explains itself, confirms nothing, and offers a new link that works", async () => {
        const account = await client.account()
        const { email, path } = await subscribePending(account.id)
        const resent = await subscriptions(account.id, (service, account) => service.resendConfirmation(account, email))
        expect(resent.confirmationSent).toBe(true)
        const newer = await linkPath(email, 2)
        const old = await client.call("POST", path, form)
        expectHtml(old, 410)
        expect(old.text).toContain("replaced")
        expect((await statusOf(account.id, email)).contact?.status).toBe("PENDING")
        expect(await eventsOf(account.id, "contact.confirmed")).toEqual([])

        const offered = await client.call("POST", `${path}/resend`, form)
        expectHtml(offered, 200)
        const newest = await linkPath(email, 3)
        expect(newest).not.toBe(newer)
        expectHtml(await client.call("POST", newest, form), 200)
        expect((await statusOf(account.id, email)).contact?.status).toBe("ACTIVE")
      })

      it("an expired link (made under TestClock) confirms nothing and sends a new link on request", async () => {
        const account = await client.account()
        const { email, contactId, path } = await subscribePending(account.id)
        const claims = JSON.parse(Buffer.from(path.split("/c/")[1]!.split(".")[0]!, "base64url").toString())
        const expired = await expiredToken("confirm", { accountId: account.id, recipient: email, nonce: claims.n })
        expectHtml(await client.call("POST", `/c/${expired}`, form), 410)
        expect((await client.read(account.key, contactId)).status).toBe("PENDING")
        const offered = await client.call("POST", `/c/${expired}/resend`, form)
        expectHtml(offered, 200)
        expect(offered.text).toContain("Check your inbox")
        await linkPath(email, 2)
      })
    })

    describe("with confirmation: \"button\", the button confirms for everyone", () => {
      let buttonTarget: PublicLinksTarget | undefined
      beforeAll(async () => {
        buttonTarget = await makeTarget({ confirmation: "button" })
      })
      afterAll(async () => {
        await buttonTarget?.close()
      })
      const buttons = makeClient(() => {
        if (buttonTarget === undefined) throw new Error("the button-mode target is not ready")
        return buttonTarget
      })

      it("a person's browser following the link sees the button and confirms nothing; the button confirms", async () => {
        const account = await buttons.account()
        const email = freshEmail("button")
        const subscribed = await buttons.call("POST", "/v1/subscriptions", {
          key: account.key, body: { email, doubleOptIn: true, redirectUrl: "https://example.com/welcome" },
        })
        expect(subscribed.json.data, subscribed.text).toMatchObject({ status: "PENDING", confirmationSent: true })
        const outbox = await buttons.call("GET", `/admin/outbox?to=${encodeURIComponent(email)}`, { key: "test-admin-token" })
        const mail = outbox.json.data[0]
        const path = new URL(/https?:\/\/[^\s"'<>]+\/c\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/.exec(`${mail.text} ${mail.html}`)![0]).pathname
        const contactStatus = async () =>
          (await buttons.call("GET", `/v1/subscriptions/${encodeURIComponent(email)}`, { key: account.key })).json.data.contact.status
        for (const [method, headers] of [["GET", browserNavigation], ...automatedFetches.map(([, m, h]) => [m, h] as const)] as const) {
          const answer = await buttons.call(method, path, { headers })
          expectHtml(answer, 200)
          if (method === "GET") expect(answer.text).toMatch(/<button type="submit">Confirm subscription<\/button>/)
        }
        expect(await contactStatus()).toBe("PENDING")
        const pressed = await buttons.call("POST", path, form)
        expect(pressed.status).toBe(303)
        expect(pressed.headers.get("location")).toBe("https://example.com/welcome")
        expect(await contactStatus()).toBe("ACTIVE")
      })
    })

    describe("the confirmation page /c/<token> without an outstanding confirmation", () => {
      it("a genuine link of an address with nothing to confirm says so on GET, HEAD and POST, and changes nothing", async () => {
        const { account, email, before } = await setup()
        const good = await token("confirm", { accountId: account.id, recipient: email, nonce: "n1" })
        const page = await client.call("GET", `/c/${good}`)
        expectHtml(page, 410)
        expect(page.text).toContain("Nothing to confirm")
        expect((await client.call("HEAD", `/c/${good}`)).text).toBe("")
        expectHtml(await client.call("POST", `/c/${good}`, form), 410)
        expectHtml(await client.call("POST", `/c/${good}/resend`, form), 410)
        await expectUnchanged(account.id, email, before)
      })

      it("a forged, truncated or wrongly-purposed link is invalid on every route, and changes nothing", async () => {
        const { account, email, before } = await setup()
        const good = await token("confirm", { accountId: account.id, recipient: email, nonce: "n1" })
        const forged = `${good.split(".")[0]}.${"C".repeat(43)}`
        const unsubscribeToken = await token("unsubscribe", { accountId: account.id, recipient: email })
        for (const bad of [forged, good.slice(0, -4), unsubscribeToken]) {
          expectHtml(await client.call("GET", `/c/${bad}`), 400)
          expectHtml(await client.call("POST", `/c/${bad}`, form), 400)
          expectHtml(await client.call("POST", `/c/${bad}/resend`, form), 400)
        }
        await expectUnchanged(account.id, email, before)
      })
    })
  })

