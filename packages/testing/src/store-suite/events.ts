/** Store contract: the event outbox (append, list). */
import { describe, expect } from "@effect/vitest"
import { Store } from "@mailroom/core"
import { Effect } from "effect"
import { makeEvent } from "../fixtures.js"
import { at, comparableEvent, insertAccount, type StoreTester } from "./support.js"

export const eventTests = (it: StoreTester) => {
  describe("events", () => {
    it.effect("list answers appended events with every field, oldest first", () =>
      Effect.gen(function* () {
        const { events } = yield* Store
        const accountId = yield* insertAccount
        const first = makeEvent({ accountId, type: "contact.subscribed", recipient: "ada@example.com", occurredAt: at(1) })
        const second = makeEvent({
          accountId, type: "email.delivered", recipient: null, occurredAt: at(2),
          details: { messageId: "msg_1", attempts: 2, tags: ["a", "b"], smtp: { code: 250, ok: true } },
        })
        const third = makeEvent({ accountId, type: "contact.unsubscribed", occurredAt: at(3) })
        yield* events.append([first, second])
        yield* events.append([third])
        expect((yield* events.list(accountId)).map(comparableEvent)).toEqual([first, second, third].map(comparableEvent))
      }))

    it.effect("list orders by occurrence, whatever order the events were appended in", () =>
      Effect.gen(function* () {
        const { events } = yield* Store
        const accountId = yield* insertAccount
        const late = makeEvent({ accountId, occurredAt: at(30) })
        const early = makeEvent({ accountId, occurredAt: at(10) })
        const middle = makeEvent({ accountId, occurredAt: at(20) })
        yield* events.append([late, early, middle])
        expect((yield* events.list(accountId)).map((e) => e.id)).toEqual([early.id, middle.id, late.id])
      }))

    it.effect("list keeps to one type when asked, and to the oldest `limit` events", () =>
      Effect.gen(function* () {
        const { events } = yield* Store
        const accountId = yield* insertAccount
        const appended = [
          makeEvent({ accountId, type: "email.queued", occurredAt: at(1) }),
          makeEvent({ accountId, type: "email.delivered", occurredAt: at(2) }),
          makeEvent({ accountId, type: "email.queued", occurredAt: at(3) }),
          makeEvent({ accountId, type: "email.queued", occurredAt: at(4) }),
        ]
        yield* events.append(appended)
        const ids = (options: Parameters<typeof events.list>[1]) =>
          events.list(accountId, options).pipe(Effect.map((rows) => rows.map((e) => e.id)))
        expect(yield* ids({ type: "email.queued" })).toEqual([appended[0]!.id, appended[2]!.id, appended[3]!.id])
        expect(yield* ids({ type: "email.bounced" })).toEqual([])
        expect(yield* ids({ limit: 2 })).toEqual([appended[0]!.id, appended[1]!.id])
        expect(yield* ids({ type: "email.queued", limit: 2 })).toEqual([appended[0]!.id, appended[2]!.id])
      }))

    it.effect("list answers only the account's own events, and appending nothing is allowed", () =>
      Effect.gen(function* () {
        const { events } = yield* Store
        const owner = yield* insertAccount
        const stranger = yield* insertAccount
        const mine = makeEvent({ accountId: owner })
        yield* events.append([mine, makeEvent({ accountId: stranger })])
        yield* events.append([])
        expect((yield* events.list(owner)).map((e) => e.id)).toEqual([mine.id])
      }))
  })
}
