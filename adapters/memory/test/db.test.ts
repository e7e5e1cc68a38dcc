import { describe, expect, it } from "@effect/vitest"
import type { AccountId } from "@mailroom/core"
import { Deferred, Effect, Either, Exit, Fiber, Option } from "effect"
import { makeMemoryDb, type MemoryTable } from "../src/db.js"

describe("memory tables", () => {
  it.scoped("a failed transaction puts back replaced, deleted and added rows, in tables made inside it too", () =>
    Effect.gen(function* () {
      const db = yield* makeMemoryDb
      const outer = db.table<string, MemoryTable<string, string>>()
      const plain = db.table<string, string>()
      yield* db.atomic(() => {
        plain.set("kept", "original")
        plain.set("gone", "original")
      })
      const exit = yield* Effect.exit(db.transaction(Effect.gen(function* () {
        yield* db.atomic(() => {
          plain.set("kept", "changed")
          plain.delete("gone")
          plain.set("added", "new")
          const inner = db.table<string, string>()
          inner.set("x", "y")
          outer.set("nested", inner)
        })
        return yield* Effect.fail("refused")
      })))
      expect(Exit.isFailure(exit)).toBe(true)
      expect([plain.get("kept"), plain.get("gone"), plain.has("added"), plain.size]).toEqual(["original", "original", false, 2])
      expect(outer.has("nested")).toBe(false)
    }))

  it.scoped("a refused step undoes its own writes, while the transaction that catches the refusal commits the rest", () =>
    Effect.gen(function* () {
      const db = yield* makeMemoryDb
      const rows = db.table<string, number>()
      const refusal = yield* db.transaction(Effect.gen(function* () {
        yield* db.atomic(() => rows.set("before", 1))
        const refused = yield* Effect.flip(db.atomicEither(() => {
          rows.set("during", 2)
          rows.delete("before")
          return Either.left("no")
        }))
        yield* db.atomic(() => rows.set("after", 3))
        return refused
      }))
      expect(refusal).toBe("no")
      expect([rows.get("before"), rows.has("during"), rows.get("after")]).toEqual([1, false, 3])
    }))

  it.scoped("a step outside the transaction waits for it, so it neither reads uncommitted rows nor is rolled back", () =>
    Effect.gen(function* () {
      const db = yield* makeMemoryDb
      const rows = db.table<string, string>()
      yield* db.atomic(() => rows.set("k", "committed"))
      const started = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const writer = yield* Effect.fork(db.transaction(Effect.gen(function* () {
        yield* db.atomic(() => rows.set("k", "uncommitted"))
        yield* Deferred.succeed(started, undefined)
        yield* Deferred.await(gate)
        return yield* Effect.fail("rolled back")
      })))
      yield* Deferred.await(started)
      const reader = yield* Effect.fork(db.atomic(() => rows.get("k")))
      const beside = yield* Effect.fork(db.atomic(() => rows.set("other", "beside")))
      yield* Effect.repeatN(Effect.yieldNow(), 20)
      expect(Option.isNone(yield* Fiber.poll(reader))).toBe(true)
      yield* Deferred.succeed(gate, undefined)
      expect(Exit.isFailure(yield* Fiber.await(writer))).toBe(true)
      expect(yield* Fiber.join(reader)).toBe("committed")
      yield* Fiber.join(beside)
      expect(rows.get("other")).toBe("beside")
    }))

  it.scopedLive("fibers forked inside a transaction join it instead of waiting for it", () =>
    Effect.gen(function* () {
      const db = yield* makeMemoryDb
      const rows = db.table<string, number>()
      yield* db.transaction(Effect.all(
        [db.atomic(() => rows.set("a", 1)), db.transaction(db.atomic(() => rows.set("b", 2)))],
        { concurrency: "unbounded" },
      )).pipe(Effect.timeoutFail({ duration: "1 second", onTimeout: () => "deadlocked" }))
      expect([rows.get("a"), rows.get("b")]).toEqual([1, 2])
    }))

  it.scoped("two databases keep separate transactions", () =>
    Effect.gen(function* () {
      const first = yield* makeMemoryDb
      const second = yield* makeMemoryDb
      const rows = second.table<string, number>()
      yield* first.transaction(Effect.gen(function* () {
        yield* Effect.exit(second.transaction(Effect.gen(function* () {
          yield* second.atomic(() => rows.set("a", 1))
          return yield* Effect.fail("refused")
        })))
      }))
      expect(rows.has("a")).toBe(false)
    }))

  it.scoped("delete hooks hear of deleted ids only when there are some", () =>
    Effect.gen(function* () {
      const db = yield* makeMemoryDb
      const account = "acc_1" as AccountId
      const heard: Array<[string, ReadonlyArray<string>]> = []
      db.onDelete("thing", (accountId, ids) => heard.push([accountId, ids]))
      db.deleted("thing", account, [])
      db.deleted("thing", account, ["a", "b"])
      db.deleted("other", account, ["c"])
      expect(heard).toEqual([["acc_1", ["a", "b"]]])
    }))
})
