/** Message delivery through the real pieces under TestClock: Background relays email.queued to the dispatching
 *  consumer, the in-process queue runs the delivery job, a 421 defers the recipient and the queue runs the job again
 *  exactly one minute later (deferralDelays), when the relay accepts it. */
import { describe, expect, it } from "@effect/vitest"
import { Accounts, Background, IdsLive, JobQueue, Store, servicesLayer } from "@mailroom/core"
import { makeCaptureMailer, sendBodyTo, storeAcceptedMessage, testTemplateEngine } from "@mailroom/testing"
import { Effect, Layer, Option, TestClock } from "effect"
import { makeMemoryJobQueue, MemoryStore } from "../src/index.js"

/** Lets the relay, the worker and their fibers run at the current test time. */
const settle = Effect.repeatN(Effect.yieldNow(), 200)

describe("message delivery on the in-process queue under TestClock", () => {
  it.scoped("a deferred recipient is tried again after one minute, not before, and is delivered", () =>
    Effect.gen(function* () {
      const mailer = makeCaptureMailer()
      const base = Layer.fresh(servicesLayer).pipe(Layer.provideMerge(Layer.mergeAll(MemoryStore.layer, IdsLive, testTemplateEngine)))
      const context = yield* Layer.build(Layer.mergeAll(base, mailer.layer))
      yield* Effect.gen(function* () {
        const { queue } = yield* makeMemoryJobQueue()
        yield* Effect.gen(function* () {
          const store = yield* Store
          const { account } = yield* (yield* Accounts).create({ name: "clock", plan: "pro" })
          let answers = 0
          mailer.answerWith(() => (++answers === 1
            ? { status: "deferred", code: 421, reply: "421 4.7.0 Try again later" }
            : { status: "accepted", code: 250, reply: "250 2.0.0 OK" }))
          yield* (yield* Background).start
          const message = yield* storeAcceptedMessage(account.id, sendBodyTo(["ada@example.org"]))
          const status = Effect.map(store.messages.findById(account.id, message.id), (m) => Option.getOrThrow(m).recipients[0]!)
          // The relay polls every 200 ms of (test) time.
          for (let i = 0; i < 5 && mailer.sent.length === 0; i++) {
            yield* TestClock.adjust("200 millis")
            yield* settle
          }
          expect(mailer.sent).toHaveLength(1)
          expect(yield* status).toMatchObject({ status: "deferred", attempts: 1, lastResponse: "421 4.7.0 Try again later" })
          yield* TestClock.adjust("58 seconds")
          yield* settle
          expect(mailer.sent).toHaveLength(1)
          yield* TestClock.adjust("2 seconds")
          yield* settle
          expect(mailer.sent).toHaveLength(2)
          expect(yield* status).toMatchObject({ status: "delivered", attempts: 2 })
          const events = yield* store.events.list(account.id)
          expect(events.filter((e) => e.type.startsWith("email.")).map((e) => e.type)).toEqual(["email.queued", "email.deferred", "email.delivered"])
        }).pipe(Effect.provideService(JobQueue, queue))
      }).pipe(Effect.provide(context), Effect.provide(IdsLive))
    }))
})
