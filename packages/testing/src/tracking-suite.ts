/** The tracking suite, run by every backend against its own Store: the storage of hits and the once-per-recipient mark
 *  of opens (Store.tracking), the answers of the pixel and the redirect (forged and altered tokens, the target the
 *  token carries), the classification of each hit as it is recorded, and the email.opened and email.clicked events that
 *  people's hits fire (docs/tracking.md). Also the delivery pipeline's tracked submission: links rewritten, pixel in. */
import { describe, expect, it } from "@effect/vitest"
import {
  Accounts, type AccountId, deliverMessage, enqueueEach, IdsLive, JobQueue, type JobQueueService, servicesLayer, Store,
  StoreError, Tokens, Tracking, type TrackingHit, type TrackingRequest,
} from "@mailroom/core"
import { Effect, Layer } from "effect"
import { sendBodyTo, storeAcceptedMessage } from "./accepted-message.js"
import { makeCaptureMailer } from "./capture-mailer.js"
import { testTemplateEngine } from "./template-engine.js"

const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
const gmailProxy = "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)"
const headless = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36"

const hitRequest = (userAgent: string, options: { method?: string; address?: string; country?: string } = {}): TrackingRequest => ({
  method: options.method ?? "GET",
  headers: new Headers({ "user-agent": userAgent, ...(options.country === undefined ? {} : { "cf-ipcountry": options.country }) }),
  address: options.address ?? "198.51.100.7",
  trustedProxy: options.country !== undefined,
})

const tokenOf = (url: string) => url.slice(url.lastIndexOf("/") + 1)

export const trackingSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  describe(`tracking (${backend})`, () => {
    const enqueue: JobQueueService["enqueue"] = () => Effect.succeed("job")
    const queue = Layer.succeed(JobQueue, { enqueue, enqueueAll: enqueueEach(enqueue), work: () => Effect.void })
    /** While true, every Store transaction fails: the store is down. */
    let storeDown = false
    const faultyStore = Layer.effect(Store, Effect.map(Store, (store) => ({
      ...store,
      transaction: <A, E2, R>(effect: Effect.Effect<A, E2, R>) => storeDown
        ? Effect.fail(new StoreError({ operation: "transaction", cause: new Error("database unreachable") }))
        : store.transaction(effect),
    }))).pipe(Layer.provide(storeLayer))
    const mailer = makeCaptureMailer()
    const layer = Layer.mergeAll(
      Layer.fresh(servicesLayer).pipe(Layer.provideMerge(Layer.mergeAll(faultyStore, IdsLive, testTemplateEngine))),
      queue,
      mailer.layer,
    )

    const setup = Effect.gen(function* () {
      const { account } = yield* (yield* Accounts).create({ name: "tracking suite", plan: "pro" })
      return account
    })
    const links = (accountId: string, messageId: string, recipient = "ann@example.com", campaignId?: string) =>
      Effect.flatMap(Tokens, (tokens) => tokens.trackingLinks({ accountId, recipient, messageId, campaignId }))
    const events = (accountId: AccountId, type: "email.opened" | "email.clicked") =>
      Effect.flatMap(Store, (store) => store.events.list(accountId, { type }))
    const hits = (accountId: AccountId, messageId: string) =>
      Effect.flatMap(Store, (store) => store.tracking.hits(accountId, messageId))
    const flush = Effect.flatMap(Tracking, (tracking) => tracking.flush)

    const hit = (accountId: string, id: string, kind: "open" | "click", at: number): TrackingHit => ({
      id, accountId, messageId: "msg_store", recipient: "ann@example.com", kind, classification: "human", signal: "person",
      occurredAt: new Date(at), country: "DE", url: kind === "click" ? "https://shop.example.com/" : null,
      position: kind === "click" ? 0 : null, campaignId: null,
    })

    it.layer(layer, { timeout: "60 seconds" })((it) => {
      it.effect("stores hits with their fields, oldest first, once per id, and shows them only to their account", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const account = yield* setup
          const other = yield* setup
          const rows = [hit(account.id, "hit_b", "click", 2000), hit(account.id, "hit_a", "open", 1000)]
          yield* store.tracking.insertHits(rows)
          yield* store.tracking.insertHits([{ ...rows[0]!, classification: "bot" }])
          expect(yield* store.tracking.hits(account.id, "msg_store")).toEqual([rows[1], rows[0]])
          expect(yield* store.tracking.hits(other.id, "msg_store")).toEqual([])
        }))

      it.effect("marks each message and recipient opened once: a repeat, in one call or another, is not answered again", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const account = yield* setup
          const ann = { accountId: account.id, messageId: "msg_1", recipient: "ann@example.com" }
          const bob = { accountId: account.id, messageId: "msg_1", recipient: "bob@example.com" }
          const other = { accountId: account.id, messageId: "msg_2", recipient: "ann@example.com" }
          expect(yield* store.tracking.markOpened([ann, ann, bob], new Date(1000))).toEqual([ann, bob])
          expect(yield* store.tracking.markOpened([bob, other, ann], new Date(2000))).toEqual([other])
          expect(yield* store.tracking.markOpened([], new Date(3000))).toEqual([])
          // Rolled back with its transaction.
          yield* Effect.either(store.transaction(Effect.zipRight(
            store.tracking.markOpened([{ ...ann, messageId: "msg_3" }], new Date(4000)), Effect.fail("rollback"))))
          expect(yield* store.tracking.markOpened([{ ...ann, messageId: "msg_3" }], new Date(5000))).toHaveLength(1)
        }))

      it.effect("a person's opens of API mail fire email.opened once per message and recipient; every hit is stored", () =>
        Effect.gen(function* () {
          const tracking = yield* Tracking
          const account = yield* setup
          const set = yield* links(account.id, "msg_open")
          expect(yield* tracking.open(tokenOf(set.pixel), hitRequest(chrome, { country: "FR" }))).toEqual({ kind: "pixel" })
          expect(yield* tracking.open(tokenOf(set.pixel), hitRequest(gmailProxy))).toEqual({ kind: "pixel" })
          yield* flush
          const opened = yield* events(account.id, "email.opened")
          expect(opened).toHaveLength(1)
          expect(opened[0]!.recipient).toBe("ann@example.com")
          expect(opened[0]!.details).toEqual({ email: "ann@example.com", trackingId: "msg_open", userAgent: chrome, engagementType: "HUMAN" })
          const stored = yield* hits(account.id, "msg_open")
          expect(stored.map((h) => [h.kind, h.classification, h.signal, h.country])).toEqual([
            ["open", "human", "person", "FR"], ["open", "proxy_human", "image_proxy", null],
          ])
        }))

      it.effect("machine and bot opens are stored apart and fire nothing", () =>
        Effect.gen(function* () {
          const tracking = yield* Tracking
          const account = yield* setup
          const set = yield* links(account.id, "msg_machine")
          yield* tracking.open(tokenOf(set.pixel), hitRequest("Mozilla/5.0", { country: "US" }))
          yield* tracking.open(tokenOf(set.pixel), hitRequest(chrome, { address: "17.58.3.4" }))
          yield* tracking.open(tokenOf(set.pixel), hitRequest(headless))
          yield* tracking.open(tokenOf(set.pixel), hitRequest(chrome, { method: "HEAD" }))
          yield* flush
          expect(yield* events(account.id, "email.opened")).toEqual([])
          const stored = yield* hits(account.id, "msg_machine")
          expect(stored.map((h) => [h.classification, h.signal, h.country])).toEqual([
            ["machine", "apple_mpp_user_agent", null], ["machine", "apple_egress", null],
            ["bot", "robot_user_agent", null], ["bot", "head", null],
          ])
        }))

      it.effect("a click redirects to its target and fires email.clicked every time; the first implies an open", () =>
        Effect.gen(function* () {
          const tracking = yield* Tracking
          const account = yield* setup
          const set = yield* links(account.id, "msg_click")
          const token = tokenOf(set.click("https://shop.example.com/sale?x=1", 3))
          for (let i = 0; i < 2; i++) {
            expect(yield* tracking.click(token, hitRequest(chrome))).toEqual({ kind: "redirect", url: "https://shop.example.com/sale?x=1" })
          }
          yield* flush
          const clicked = yield* events(account.id, "email.clicked")
          expect(clicked).toHaveLength(2)
          expect(clicked[0]!.details).toEqual({
            email: "ann@example.com", trackingId: "msg_click", url: "https://shop.example.com/sale?x=1", userAgent: chrome, engagementType: "HUMAN",
          })
          expect(yield* events(account.id, "email.opened")).toHaveLength(1)
          const stored = yield* hits(account.id, "msg_click")
          expect(stored.map((h) => [h.kind, h.signal, h.position])).toEqual(expect.arrayContaining([
            ["click", "person", 3], ["click", "person", 3], ["open", "implied_by_click", null],
          ]))
          expect(stored).toHaveLength(3)
          // A later pixel fetch fires no second open.
          yield* tracking.open(tokenOf(set.pixel), hitRequest(chrome))
          yield* flush
          expect(yield* events(account.id, "email.opened")).toHaveLength(1)
        }))

      it.effect("campaign mail fires email.opened on every human open, with campaignId", () =>
        Effect.gen(function* () {
          const tracking = yield* Tracking
          const account = yield* setup
          const set = yield* links(account.id, "msg_campaign", "ann@example.com", "cmp_1")
          yield* tracking.open(tokenOf(set.pixel), hitRequest(chrome))
          yield* tracking.open(tokenOf(set.pixel), hitRequest(chrome))
          yield* flush
          const opened = yield* events(account.id, "email.opened")
          expect(opened).toHaveLength(2)
          expect(opened[0]!.details).toEqual({ email: "ann@example.com", campaignId: "cmp_1", userAgent: chrome, engagementType: "HUMAN" })
        }))

      it.effect("forged, altered and other-purpose tokens answer not-found and record nothing", () =>
        Effect.gen(function* () {
          const tracking = yield* Tracking
          const account = yield* setup
          const set = yield* links(account.id, "msg_forged")
          const token = tokenOf(set.click("https://shop.example.com/", 0))
          const [payload, signature] = token.split(".") as [string, string]
          const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>
          const altered = `${Buffer.from(JSON.stringify({ ...claims, u: "https://evil.example/" })).toString("base64url")}.${signature}`
          expect(yield* tracking.click(altered, hitRequest(chrome))).toEqual({ kind: "not-found" })
          expect(yield* tracking.click(`${payload}.${signature.slice(1)}`, hitRequest(chrome))).toEqual({ kind: "not-found" })
          expect(yield* tracking.click(tokenOf(set.pixel), hitRequest(chrome))).toEqual({ kind: "not-found" })
          expect(yield* tracking.open(token, hitRequest(chrome))).toEqual({ kind: "not-found" })
          expect(yield* tracking.open("nonsense", hitRequest(chrome))).toEqual({ kind: "not-found" })
          yield* flush
          expect(yield* hits(account.id, "msg_forged")).toEqual([])
        }))

      it.effect("the honeypot link and a burst of clicks right after delivery convict the clicks of their batch", () =>
        Effect.gen(function* () {
          const tracking = yield* Tracking
          const account = yield* setup
          const set = yield* links(account.id, "msg_scan")
          // A scanner follows three links and the honeypot at once, right after delivery.
          for (const position of [0, 1, 2]) yield* tracking.click(tokenOf(set.click(`https://shop.example.com/${position}`, position)), hitRequest(chrome))
          expect(yield* tracking.click(tokenOf(set.honeypot!), hitRequest(chrome))).toEqual({ kind: "honeypot" })
          yield* flush
          expect(yield* events(account.id, "email.clicked")).toEqual([])
          expect(yield* events(account.id, "email.opened")).toEqual([])
          const stored = yield* hits(account.id, "msg_scan")
          expect(stored.every((h) => h.classification === "bot")).toBe(true)
          // The third link is the burst's at once; the honeypot is its own; the first two are convicted by the last
          // evidence of the batch, the honeypot.
          expect(stored.map((h) => [h.position, h.signal])).toEqual(expect.arrayContaining([
            [0, "honeypot"], [1, "honeypot"], [2, "click_burst"], [-1, "honeypot"],
          ]))
        }))

      it.effect("a click whose hit cannot be written still redirects; the hit is written once the store is back", () =>
        Effect.gen(function* () {
          const tracking = yield* Tracking
          const account = yield* setup
          const set = yield* links(account.id, "msg_down")
          storeDown = true
          const answer = yield* tracking.click(tokenOf(set.click("https://shop.example.com/", 0)), hitRequest(chrome))
          expect(answer).toEqual({ kind: "redirect", url: "https://shop.example.com/" })
          expect(yield* Effect.either(flush)).toMatchObject({ _tag: "Left" })
          expect(yield* tracking.pendingCount).toBe(1)
          storeDown = false
          yield* flush
          expect(yield* events(account.id, "email.clicked")).toHaveLength(1)
        }).pipe(Effect.ensuring(Effect.sync(() => { storeDown = false }))))

      it.effect("delivery of tracked mail rewrites its links and adds the pixel; untracked mail passes unchanged", () =>
        Effect.gen(function* () {
          const account = yield* setup
          mailer.answerWith(() => ({ status: "accepted", code: 250, reply: "250 OK" }))
          const html = `<p>Hi <a href="https://shop.example.com/sale">sale</a> <a href="mailto:help@example.com">help</a></p>`
          const tracked = yield* storeAcceptedMessage(account.id, sendBodyTo(["tracked@example.com"], {
            content: { subject: "Sale", html, text: "Sale at https://shop.example.com/sale." }, track: true,
          }))
          const plain = yield* storeAcceptedMessage(account.id, sendBodyTo(["plain@example.com"], {
            content: { subject: "Receipt", html, text: "See https://shop.example.com/sale." },
          }))
          const run = { jobId: "job", attempt: 1, lastAttempt: false }
          yield* deliverMessage({ accountId: account.id, messageId: tracked.id }, run)
          yield* deliverMessage({ accountId: account.id, messageId: plain.id }, run)
          const [trackedMail] = mailer.sentTo("tracked@example.com")
          const [plainMail] = mailer.sentTo("plain@example.com")
          expect(trackedMail!.html).toMatch(/<a href="http:\/\/localhost:3000\/l\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+">sale<\/a>/)
          expect(trackedMail!.html).toContain(`<a href="mailto:help@example.com">help</a>`)
          expect(trackedMail!.html).toMatch(/<img src="http:\/\/localhost:3000\/o\/[A-Za-z0-9_.-]+"/)
          expect(trackedMail!.text).toMatch(/^Sale at http:\/\/localhost:3000\/l\/\S+\.$/)
          expect(plainMail!.html).toBe(html)
          // The click link of the delivered mail leads back to the original target.
          const clickUrl = /href="(http:\/\/localhost:3000\/l\/[^"]+)"/.exec(trackedMail!.html!)![1]!
          expect(yield* (yield* Tracking).click(tokenOf(clickUrl), hitRequest(chrome))).toEqual({ kind: "redirect", url: "https://shop.example.com/sale" })
        }))
    })
  })
