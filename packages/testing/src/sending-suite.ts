/** Scenario tests of the sending services that stand on their own (the monthly quota and Idempotency-Key), run by
 *  every backend package against its own Store layer. Time comes from TestClock. */
import { expect, it } from "@effect/vitest"
import {
  Accounts, Idempotency, IdsLive, type Plan, Quota, requestFingerprint, servicesLayer, Store,
} from "@mailroom/core"
import { Effect, Layer, Ref, TestClock } from "effect"
import { testTemplateEngine } from "./template-engine.js"

const freshAccount = (plan: Plan) =>
  Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "sending suite", plan })).pipe(Effect.map(({ account }) => account))

/** Sets the test clock to an instant (TestClock only moves forward from 0, and every test starts at 0). */
const setNow = (iso: string) => TestClock.setTime(new Date(iso).getTime())

export const sendingSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  it.layer(Layer.provideMerge(servicesLayer, Layer.mergeAll(storeLayer, IdsLive, testTemplateEngine)), { timeout: "60 seconds" })(
    `Sending services (${backend})`,
    (it) => {
      it.effect.each([
        ["free", 3_000], ["starter", 5_000], ["micro", 20_000], ["pro", 50_000], ["scale", 150_000],
      ] as const)("the %s plan sends %i recipients a month and refuses one more, naming the reset date", ([plan, limit]) =>
        Effect.gen(function* () {
          yield* setNow("2026-03-31T23:59:59Z")
          const quota = yield* Quota
          const account = yield* freshAccount(plan)
          yield* quota.reserve(account, limit - 1)
          yield* quota.reserve(account, 1)
          const error = yield* Effect.flip(quota.reserve(account, 1))
          expect(error._tag).toBe("QuotaExceeded")
          if (error._tag !== "QuotaExceeded") return
          expect(error.code).toBe("QUOTA_EXCEEDED")
          expect(error).toMatchObject({ limit, used: limit, requested: 1 })
          expect(error.resetsAt.toISOString()).toBe("2026-04-01T00:00:00.000Z")
          expect(error.message).toContain("2026-04-01")
          expect(yield* quota.usage(account)).toEqual({
            period: "2026-03", used: limit, limit, resetsAt: new Date("2026-04-01T00:00:00.000Z"),
          })
        }))

      it.effect("the counter resets on the 1st of the month, UTC", () =>
        Effect.gen(function* () {
          yield* setNow("2026-12-31T23:59:59.999Z")
          const quota = yield* Quota
          const account = yield* freshAccount("free")
          yield* quota.reserve(account, 3_000)
          expect((yield* Effect.flip(quota.reserve(account, 1)))._tag).toBe("QuotaExceeded")
          yield* TestClock.adjust("1 millis")
          yield* quota.reserve(account, 3_000)
          expect(yield* quota.usage(account)).toMatchObject({ period: "2027-01", used: 3_000, resetsAt: new Date("2027-02-01T00:00:00Z") })
        }))

      it.effect("a refused reservation reserves nothing, and a smaller one still fits", () =>
        Effect.gen(function* () {
          yield* setNow("2026-05-10T12:00:00Z")
          const quota = yield* Quota
          const account = yield* freshAccount("free")
          yield* quota.reserve(account, 2_990)
          expect((yield* Effect.flip(quota.reserve(account, 11)))._tag).toBe("QuotaExceeded")
          yield* quota.reserve(account, 10)
          expect((yield* quota.usage(account)).used).toBe(3_000)
        }))

      it.effect("enterprise has no quota", () =>
        Effect.gen(function* () {
          const quota = yield* Quota
          const account = yield* freshAccount("enterprise")
          yield* quota.reserve(account, 1_000_000)
          expect(yield* quota.usage(account)).toMatchObject({ used: 1_000_000, limit: null })
        }))

      it.effect("concurrent sends never overshoot the quota, each reserving in its own transaction", () =>
        Effect.gen(function* () {
          yield* setNow("2026-06-01T08:00:00Z")
          const quota = yield* Quota
          const store = yield* Store
          const account = yield* freshAccount("free")
          yield* quota.reserve(account, 2_950)
          const results = yield* Effect.forEach(Array.from({ length: 30 }, () => 3), (count) =>
            Effect.either(store.transaction(quota.reserve(account, count))), { concurrency: "unbounded" })
          const accepted = results.filter((r) => r._tag === "Right").length
          expect(accepted).toBe(16)
          expect((yield* quota.usage(account)).used).toBe(2_998)
        }))

      it.effect("a reservation rolls back with the send that made it", () =>
        Effect.gen(function* () {
          const quota = yield* Quota
          const store = yield* Store
          const account = yield* freshAccount("free")
          yield* Effect.flip(store.transaction(Effect.zipRight(quota.reserve(account, 5), Effect.fail("later refusal"))))
          expect((yield* quota.usage(account)).used).toBe(0)
        }))

      it.effect("a repeat with the same key and body answers the first response without running again", () =>
        Effect.gen(function* () {
          const idempotency = yield* Idempotency
          const account = yield* freshAccount("pro")
          const runs = yield* Ref.make(0)
          const work = Effect.map(Ref.updateAndGet(runs, (n) => n + 1), (n) => ({ status: 200, body: { success: true, data: { id: `msg_${n}` } } }))
          const request = { key: "order-1042", route: "send", bodyHash: requestFingerprint({ to: ["a@example.org"], subject: "s" }) }
          const first = yield* idempotency.run(account.id, request, work)
          const again = yield* idempotency.run(account.id, { ...request, bodyHash: requestFingerprint({ subject: "s", to: ["a@example.org"] }) }, work)
          expect(first).toEqual({ status: 200, body: { success: true, data: { id: "msg_1" } }, replayed: false })
          expect(again).toEqual({ status: 200, body: { success: true, data: { id: "msg_1" } }, replayed: true })
          expect(yield* Ref.get(runs)).toBe(1)
          const other = yield* freshAccount("pro")
          expect((yield* idempotency.run(other.id, request, work)).replayed).toBe(false)
        }))

      it.effect("the same key with another body or on another route is refused with 409 and runs nothing", () =>
        Effect.gen(function* () {
          const idempotency = yield* Idempotency
          const account = yield* freshAccount("pro")
          const runs = yield* Ref.make(0)
          const work = Effect.as(Ref.update(runs, (n) => n + 1), { status: 200, body: {} })
          yield* idempotency.run(account.id, { key: "k", route: "send", bodyHash: requestFingerprint({ a: 1 }) }, work)
          const otherBody = yield* Effect.flip(idempotency.run(account.id, { key: "k", route: "send", bodyHash: requestFingerprint({ a: 2 }) }, work))
          expect(otherBody).toMatchObject({ _tag: "IdempotencyKeyReused", code: "IDEMPOTENCY_KEY_REUSED", key: "k" })
          const otherRoute = yield* Effect.flip(idempotency.run(account.id, { key: "k", route: "batch", bodyHash: requestFingerprint({ a: 1 }) }, work))
          expect(otherRoute._tag).toBe("IdempotencyKeyReused")
          expect(yield* Ref.get(runs)).toBe(1)
        }))

      it.effect("a failed request stores nothing, and a key expires after 24 hours", () =>
        Effect.gen(function* () {
          yield* setNow("2026-07-01T00:00:00Z")
          const idempotency = yield* Idempotency
          const account = yield* freshAccount("pro")
          const request = { key: "k2", route: "send", bodyHash: requestFingerprint({ a: 1 }) }
          expect(yield* Effect.flip(idempotency.run(account.id, request, Effect.fail("invalid" as const)))).toBe("invalid")
          const ok = { status: 200, body: { n: 1 } }
          expect((yield* idempotency.run(account.id, request, Effect.succeed(ok))).replayed).toBe(false)
          yield* TestClock.adjust("23 hours")
          expect((yield* idempotency.run(account.id, { ...request, bodyHash: requestFingerprint({ a: 1 }) }, Effect.succeed({ status: 200, body: { n: 2 } }))).body).toEqual({ n: 1 })
          yield* TestClock.adjust("1 hours")
          expect(yield* idempotency.run(account.id, { ...request, bodyHash: requestFingerprint({ b: 9 }) }, Effect.succeed({ status: 200, body: { n: 3 } })))
            .toEqual({ status: 200, body: { n: 3 }, replayed: false })
        }))

      it.effect("of concurrent requests with one key the work commits once and the others answer its response", () =>
        Effect.gen(function* () {
          const idempotency = yield* Idempotency
          const store = yield* Store
          const account = yield* freshAccount("pro")
          const request = { key: "race", route: "send", bodyHash: requestFingerprint({ a: 1 }) }
          const work = (n: number) =>
            Effect.gen(function* () {
              yield* store.quota.reserve(account.id, "2099-01", 1, null)
              return { status: 200, body: { n } }
            })
          const answers = yield* Effect.forEach(Array.from({ length: 6 }, (_, n) => n), (n) =>
            idempotency.run(account.id, request, work(n)), { concurrency: "unbounded" })
          const firsts = answers.filter((a) => !a.replayed)
          expect(firsts).toHaveLength(1)
          expect(new Set(answers.map((a) => JSON.stringify(a.body)))).toEqual(new Set([JSON.stringify(firsts[0]!.body)]))
          // The losers' work rolled back with their transactions: one reservation stands.
          expect(yield* store.quota.used(account.id, "2099-01")).toBe(1)
        }))
    },
  )
