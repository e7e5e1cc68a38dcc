/** The outbox relay on Postgres, in a scratch database: the shared contract, then what only Postgres can show: an
 *  event whose transaction commits after a later one is never skipped, and two instances relay each event once. */
import { describe, expect, it } from "@effect/vitest"
import { type Account, type DomainEvent, Store } from "@mailroom/core"
import { eventRelaySuite, findTestPostgres, passedCursorSuite, makeAccount, makeEvent, uniqueText } from "@mailroom/testing"
import { type Context, Effect, Layer } from "effect"
import pg from "pg"
import { MailroomPostgres } from "../src/index.js"
import { scratchDatabase } from "./scratch-database.js"
import { countSentQueries } from "./sent-queries.js"

const url = await findTestPostgres()

/** A driver connection of the test's own to `database`, closed with the test's scope. */
const rawClient = (database: string) => {
  const client = new pg.Client({ connectionString: database })
  return Effect.as(Effect.acquireRelease(Effect.promise(() => client.connect()), () => Effect.promise(() => client.end())), client)
}

/** Runs `test` on a Store over a scratch database of its own, with an account inserted. */
const withScratchAccount = <A, E, R>(
  test: (testbed: { readonly store: Context.Tag.Service<typeof Store>; readonly account: Account; readonly database: string }) => Effect.Effect<A, E, R>,
) =>
  Effect.flatMap(scratchDatabase(url!), (database) => Effect.gen(function* () {
    const store = yield* Store
    const account = makeAccount()
    yield* store.accounts.insert(account)
    return yield* test({ store, account, database })
  }).pipe(Effect.provide(MailroomPostgres.layer({ url: database }))))

const scratchStore = () => Layer.unwrapScoped(Effect.map(scratchDatabase(url!), (database) => MailroomPostgres.layer({ url: database })))

describe.skipIf(url === undefined)("postgres", () => {
  eventRelaySuite("postgres", scratchStore())

  passedCursorSuite("postgres", Effect.map(scratchDatabase(url!), (database) => () => MailroomPostgres.layer({ url: database })))

  it.scopedLive.each([
    { consumer: "of every type", types: undefined },
    { consumer: "of some types", types: ["contact.subscribed", "contact.unsubscribed"] as const },
  ])("an event whose transaction commits late is relayed after it commits, before the events committed after it (a consumer $consumer)", ({ types }) =>
    withScratchAccount(({ store, account, database }) =>
      Effect.gen(function* () {
        const consumer = uniqueText("late")
        const early = makeEvent({ accountId: account.id, type: "contact.subscribed" })
        const later = makeEvent({ accountId: account.id, type: "contact.unsubscribed" })
        const seen: Array<string> = []
        const collect = (events: ReadonlyArray<DomainEvent>) => Effect.sync(() => { seen.push(...events.map((e) => e.id)) })

        // A transaction appends `early` (its seq is the lower one) and stays open while `later` commits.
        const client = yield* rawClient(database)
        yield* Effect.promise(async () => {
          await client.query("BEGIN")
          await client.query(
            "INSERT INTO events (id, account_id, type, recipient, details, occurred_at) VALUES ($1, $2, $3, NULL, '{}', 0)",
            [early.id, account.id, early.type],
          )
        })
        yield* store.events.append([later])
        const seqs = yield* Effect.promise(() => client.query("SELECT seq FROM events WHERE id = $1", [early.id]))
        expect(seqs.rows).toHaveLength(1)

        // While the early transaction runs, nothing after it may be handed out: it could still commit behind a cursor.
        expect(yield* store.events.relay(consumer, 10, collect, types)).toBe(0)
        yield* Effect.promise(() => client.query("COMMIT"))
        // A transaction of this database that ends while the relay reads (autovacuum's, say) holds it back one round.
        for (let round = 0; round < 100 && seen.length < 2; round++) {
          if ((yield* store.events.relay(consumer, 10, collect, types)) === 0) yield* Effect.sleep("50 millis")
        }
        expect(seen).toEqual([early.id, later.id])
      })))

  it.scopedLive("a transaction left open in another database on the server does not hold the relay back", () =>
    Effect.gen(function* () {
      const database = yield* scratchDatabase(url!)
      const elsewhere = yield* scratchDatabase(url!)
      // Another application's transaction: it has a transaction id (the server's ids are shared by every database)
      // and stays open for the whole test.
      const client = yield* rawClient(elsewhere)
      const opened = yield* Effect.promise(async () => {
        await client.query("BEGIN")
        return (await client.query<{ readonly xid: string }>("SELECT pg_current_xact_id()::text AS xid")).rows[0]!.xid
      })
      yield* Effect.gen(function* () {
        const store = yield* Store
        const account = makeAccount()
        yield* store.accounts.insert(account)
        const event = makeEvent({ accountId: account.id })
        yield* store.events.append([event])
        const seen: Array<string> = []
        const collect = (events: ReadonlyArray<DomainEvent>) => Effect.sync(() => { seen.push(...events.map((e) => e.id)) })
        for (let round = 0; round < 100 && seen.length < 1; round++) {
          if ((yield* store.events.relay(uniqueText("elsewhere"), 10, collect)) === 0) yield* Effect.sleep("50 millis")
        }
        expect(seen).toEqual([event.id])
        // The other transaction is still open, and older than the event's.
        const still = yield* Effect.promise(() => client.query<{ readonly xid: string }>("SELECT pg_current_xact_id()::text AS xid"))
        expect(still.rows[0]!.xid).toBe(opened)
        const [appended] = yield* Effect.promise(async () => {
          const own = new pg.Client({ connectionString: database })
          await own.connect()
          try {
            return (await own.query<{ readonly xid: string }>("SELECT xid::text AS xid FROM events WHERE id = $1", [event.id])).rows
          } finally {
            await own.end()
          }
        })
        expect(BigInt(appended!.xid)).toBeGreaterThan(BigInt(opened))
      }).pipe(Effect.provide(MailroomPostgres.layer({ url: database })))
      yield* Effect.promise(() => client.query("ROLLBACK"))
    }))

  // Transaction ids are read as text (64-bit): the order must be theirs as numbers, never as text, where "10" comes
  // before "9".
  it.scopedLive("events are relayed in the order of their transaction ids as numbers, whatever their number of digits", () =>
    withScratchAccount(({ store, account, database }) =>
      Effect.gen(function* () {
        // Written by transactions 10 (the lower seq) and 9, long committed: the relay hands out 9's event first.
        const ten = makeEvent({ accountId: account.id, type: "contact.subscribed" })
        const nine = makeEvent({ accountId: account.id, type: "contact.subscribed" })
        const client = yield* rawClient(database)
        const insert = (event: DomainEvent, xid: number) => Effect.promise(() => client.query(
          "INSERT INTO events (id, account_id, type, recipient, details, occurred_at, xid) VALUES ($1, $2, $3, NULL, '{}', 0, $4::text::xid8)",
          [event.id, account.id, event.type, String(xid)],
        ))
        yield* insert(ten, 10)
        yield* insert(nine, 9)
        const seqOf = (event: DomainEvent) =>
          Effect.promise(() => client.query<{ readonly seq: string }>("SELECT seq FROM events WHERE id = $1", [event.id])).pipe(
            Effect.map((result) => result.rows[0]!.seq))
        const cursorOf = (consumer: string) =>
          Effect.promise(() => client.query<{ readonly xid: string; readonly seq: string }>(
            "SELECT xid, seq FROM event_relay_cursors WHERE consumer = $1", [consumer])).pipe(Effect.map((result) => result.rows[0]))

        for (const types of [undefined, ["contact.subscribed"] as const]) {
          const seen: Array<string> = []
          const consumer = uniqueText("digits")
          for (let round = 0; round < 2; round++) {
            const handled = yield* store.events.relay(consumer, 1, (events) => Effect.sync(() => { seen.push(...events.map((e) => e.id)) }), types)
            expect(handled).toBe(1)
            // The cursor stops at each in turn.
            if (types === undefined) {
              const [xid, event] = round === 0 ? ["9", nine] as const : ["10", ten] as const
              expect(yield* cursorOf(consumer)).toEqual({ xid, seq: yield* seqOf(event) })
            }
          }
          expect(seen).toEqual([nine.id, ten.id])
        }
      })))

  it.scopedLive("two instances relaying to the same consumer at once hand out each event exactly once", () =>
    Effect.gen(function* () {
      const database = yield* scratchDatabase(url!)
      const instance = () => Layer.build(MailroomPostgres.layer({ url: database }))
      const first = yield* instance()
      const second = yield* instance()
      const store = (ctx: typeof first) => Effect.provide(Store, ctx)
      const a = yield* store(first)
      const b = yield* store(second)
      const account = makeAccount()
      yield* a.accounts.insert(account)
      const appended = Array.from({ length: 200 }, () => makeEvent({ accountId: account.id }))
      for (let i = 0; i < appended.length; i += 20) yield* a.events.append(appended.slice(i, i + 20))
      const seen: Array<string> = []
      const relayAll = (s: typeof a) =>
        Effect.gen(function* () {
          let idle = 0
          while (idle < 5) {
            const handled = yield* s.events.relay("shared", 7, (events) =>
              Effect.zipRight(Effect.sleep("2 millis"), Effect.sync(() => { seen.push(...events.map((e) => e.id)) })))
            idle = handled === 0 ? idle + 1 : 0
            if (handled === 0) yield* Effect.sleep("20 millis")
          }
        })
      yield* Effect.all([relayAll(a), relayAll(b)], { concurrency: 2 })
      expect(seen).toEqual(appended.map((e) => e.id))
    }))

  it.scopedLive("two instances taking windows of the same consumer at once cover each event exactly once, and never wait for each other", () =>
    Effect.gen(function* () {
      const database = yield* scratchDatabase(url!)
      const instance = () => Layer.build(MailroomPostgres.layer({ url: database }))
      const first = yield* instance()
      const second = yield* instance()
      const a = yield* Effect.provide(Store, first)
      const b = yield* Effect.provide(Store, second)
      const account = makeAccount()
      yield* a.accounts.insert(account)
      const appended = Array.from({ length: 600 }, () => makeEvent({ accountId: account.id }))
      for (let i = 0; i < appended.length; i += 50) yield* a.events.append(appended.slice(i, i + 50))
      const client = yield* rawClient(database)
      const last = yield* Effect.promise(() => client.query<{ readonly xid: string; readonly seq: string }>(
        "SELECT xid::text AS xid, seq FROM events WHERE id = $1", [appended.at(-1)!.id]))
      // Three consumers in turn, each over every event: the race it looks for happens in some runs, not all.
      for (const consumer of ["shared-window-1", "shared-window-2", "shared-window-3"]) {
        let covered = 0
        let overlapped = false
        let inside = 0
        const takeAll = (s: typeof a) =>
          Effect.gen(function* () {
            let idle = 0
            while (idle < 5) {
              // Short batches, taken back to back: a statement of one instance often starts just before the other's
              // commit, and reads the cursor as it was before that commit.
              const handled = yield* s.events.relay(consumer, 3, (events) =>
                Effect.gen(function* () {
                  if (inside > 0) overlapped = true
                  inside++
                  yield* Effect.yieldNow()
                  covered += events.length
                  inside--
                }))
              idle = handled === 0 ? idle + 1 : 0
              if (handled === 0) yield* Effect.sleep("1 millis")
            }
          })
        yield* Effect.all([takeAll(a), takeAll(b)], { concurrency: 2 })
        expect(covered).toBe(appended.length)
        expect(overlapped).toBe(false)
        const cursor = yield* Effect.promise(() => client.query<{ readonly xid: string; readonly seq: string }>(
          "SELECT xid, seq FROM event_relay_cursors WHERE consumer = $1", [consumer]))
        expect(cursor.rows[0]).toEqual(last.rows[0])
      }
    }))

  it.scopedLive("a consumer of some types passes a window without them in one statement, from the later of its stored cursor and the one it kept", () =>
    withScratchAccount(({ store, account }) =>
      Effect.gen(function* () {
        const consumer = uniqueText("pass")
        const other = () => makeEvent({ accountId: account.id, type: "contact.subscribed" })
        const seen: Array<string> = []
        const collect = (events: ReadonlyArray<DomainEvent>) => Effect.sync(() => { seen.push(...events.map((e) => e.id)) })
        const relay = store.events.relay(consumer, 100, collect, ["email.queued"])
        const sent = yield* countSentQueries
        yield* store.events.append([other(), other(), other()])
        expect(yield* relay).toBe(3)
        // The cursor stored is still the first (it is stored every 5 seconds): the next pass starts where this process
        // got to, and reads the stored cursor and the window's end in one statement.
        yield* store.events.append([other(), other()])
        const before = sent()
        expect(yield* relay).toBe(2)
        expect(sent() - before).toBe(1)
        expect(yield* relay).toBe(0)
        // A window with one of its types is handed out, after what was passed.
        const wanted = makeEvent({ accountId: account.id, type: "email.queued" })
        yield* store.events.append([other(), wanted])
        expect(yield* relay).toBe(2)
        expect(seen).toEqual([wanted.id])
      })))
})
