/** The facade's background work: workers and outbox consumers that services register with Background start on
 *  ready() (or the first request) and stop on close(), which lets a running job finish first; on SQLite a job left
 *  pending by one Mailroom is run by the next one on the same file. */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Background, CommitDurability, defineJob, type DomainEvent, type EventConsumer, JobQueue, Store } from "@mailroom/core"
import { makeAccount, makeEvent } from "@mailroom/testing"
import { Deferred, Effect, Schema } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { createMailroom, type Mailroom } from "../src/index.js"

const directory = mkdtempSync(join(tmpdir(), "mailroom-background-"))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

const note = defineJob("test.note", Schema.Struct({ text: Schema.String }))

const inMailroom = <A, E>(mailroom: Mailroom, effect: Effect.Effect<A, E, Background | JobQueue | Store>) =>
  mailroom.runtime.runPromise(effect)

describe.each(["memory:", `sqlite:${join(directory, "a.sqlite")}`])("background work on %s", (database) => {
  it("starts registered workers and consumers on ready(), and close() lets the running job finish", async () => {
    const mailroom = createMailroom({ database, shutdownGraceMillis: 5_000 })
    const handled: Array<string> = []
    const relayed: Array<string> = []
    const started = Effect.runSync(Deferred.make<void>())
    await inMailroom(mailroom, Effect.gen(function* () {
      const background = yield* Background
      yield* background.work(note, ({ text }) =>
        Effect.gen(function* () {
          yield* Deferred.succeed(started, undefined)
          yield* Effect.sleep("1500 millis")
          handled.push(text)
        }))
      yield* background.consume({
        name: "test-consumer",
        handle: (events: ReadonlyArray<DomainEvent>) => Effect.sync(() => { relayed.push(...events.map((e) => e.id)) }),
      })
    }))
    await mailroom.ready()
    const event = await inMailroom(mailroom, Effect.gen(function* () {
      const store = yield* Store
      const account = makeAccount()
      yield* store.accounts.insert(account)
      const event = makeEvent({ accountId: account.id })
      yield* store.events.append([event])
      yield* (yield* JobQueue).enqueue(note, { text: "hello" })
      return event
    }))
    for (let i = 0; i < 250 && !relayed.includes(event.id); i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(relayed).toContain(event.id)
    await Effect.runPromise(Deferred.await(started))
    // The job is running: close() waits for it.
    expect(handled).toEqual([])
    await mailroom.close()
    expect(handled).toEqual(["hello"])
  })

  it("background work commits with relaxed durability (redone when undone); work outside it commits in full", async () => {
    const mailroom = createMailroom({ database })
    const durabilities: Array<string> = []
    const ran = Effect.runSync(Deferred.make<void>())
    await inMailroom(mailroom, Effect.gen(function* () {
      const background = yield* Background
      yield* background.work(note, () =>
        Effect.flatMap(CommitDurability, (durability) => Effect.zipRight(Effect.sync(() => { durabilities.push(`job ${durability}`) }), Deferred.succeed(ran, undefined))))
      yield* background.consume({
        name: "test-durability",
        handle: () => Effect.flatMap(CommitDurability, (durability) => Effect.sync(() => { durabilities.push(`relay ${durability}`) })),
      })
    }))
    await mailroom.ready()
    const outside = await inMailroom(mailroom, Effect.gen(function* () {
      const store = yield* Store
      const account = makeAccount()
      yield* store.accounts.insert(account)
      yield* store.transaction(store.events.append([makeEvent({ accountId: account.id })]))
      yield* (yield* JobQueue).enqueue(note, { text: "durability" })
      return yield* CommitDurability
    }))
    await Effect.runPromise(Deferred.await(ran).pipe(Effect.timeout("10 seconds")))
    for (let i = 0; i < 250 && !durabilities.some((d) => d.startsWith("relay")); i++) await new Promise((resolve) => setTimeout(resolve, 20))
    await mailroom.close()
    expect(outside).toBe("full")
    expect([...new Set(durabilities)].sort()).toEqual(["job relaxed", "relay relaxed"])
  })

  /** Relays `count` events, committed before the work starts, to `consumer` on a database of its own (the relay starts
   *  from the oldest event, and the tests above leave some), until `done` holds (at most 5 seconds). */
  const relayBacklog = async (file: string, count: number, consumer: EventConsumer, done: () => boolean) => {
    const mailroom = createMailroom({ database: database === "memory:" ? database : `sqlite:${join(directory, file)}` })
    await inMailroom(mailroom, Effect.flatMap(Background, (background) => background.consume(consumer)))
    await inMailroom(mailroom, Effect.gen(function* () {
      const store = yield* Store
      const account = makeAccount()
      yield* store.accounts.insert(account)
      yield* store.transaction(store.events.append(Array.from({ length: count }, () => makeEvent({ accountId: account.id }))))
    }))
    await mailroom.ready()
    for (let i = 0; i < 250 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 20))
    await mailroom.close()
  }

  it("a relay working through a backlog lets the I/O that waits run between its batches", async () => {
    // Each batch notes itself; the first one also asks for a turn of the event loop (an answer arriving, say).
    const marks: Array<string> = []
    const backlog = 500
    await relayBacklog("backlog.sqlite", backlog, {
      name: "test-backlog",
      handle: (events: ReadonlyArray<DomainEvent>) => Effect.sync(() => {
        if (marks.length === 0) setImmediate(() => marks.push("io"))
        marks.push(`batch of ${events.length}`)
      }),
    }, () => marks.filter((mark) => mark.startsWith("batch")).length >= backlog / 100)
    // Five full batches (the relay's batch size is 100); the I/O ran right after the first, not once the backlog was done.
    expect(marks.filter((mark) => mark.startsWith("batch"))).toEqual(Array.from({ length: backlog / 100 }, () => "batch of 100"))
    expect(marks.indexOf("io")).toBe(1)
  })

  it("a consumer that names its batch size gets batches of that size", async () => {
    const batches: Array<number> = []
    await relayBacklog("batch-size.sqlite", 600, {
      name: "test-batch-size",
      batchSize: 250,
      handle: (events) => Effect.sync(() => { batches.push(events.length) }),
    }, () => batches.reduce((a, b) => a + b, 0) >= 600)
    expect(batches).toEqual([250, 250, 100])
  })
})

describe("background work on a SQLite file across restarts", () => {
  it("a job enqueued by one Mailroom that closed before running it is run by the next Mailroom on the file", async () => {
    const database = `sqlite:${join(directory, "restart.sqlite")}`
    const first = createMailroom({ database, backgroundWork: false })
    await first.ready()
    await inMailroom(first, Effect.flatMap(JobQueue, (queue) => queue.enqueue(note, { text: "after restart" })))
    await first.close()

    const second = createMailroom({ database })
    const done = Effect.runSync(Deferred.make<string>())
    await inMailroom(second, Effect.flatMap(Background, (background) =>
      background.work(note, ({ text }) => Deferred.succeed(done, text))))
    await second.ready()
    const text = await Effect.runPromise(Deferred.await(done).pipe(Effect.timeout("10 seconds")))
    await second.close()
    expect(text).toBe("after restart")
  })
})
