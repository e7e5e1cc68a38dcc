/** The outbox relay contract (Store.events.relay, and the Background relay loop over it): every backend runs it against
 *  a database of its own, since a consumer sees the events of every account. Each test starts its consumer at the
 *  head of the outbox, so events of earlier tests do not reach it. */
import { expect, it } from "@effect/vitest"
import {
  Background, BackgroundConfig, deliveryIdFor, type DomainEvent, IdsLive, JobQueue, Mailer, Store, StoreError, type WebhookDelivery,
  webhookEnvelope,
} from "@mailroom/core"
import { type Context, Deferred, Duration, Effect, Exit, Layer, Option, Queue, Ref, Scope, TestClock, TestServices } from "effect"
import { makeAccount, makeContact, makeEvent, makeWebhookEndpoint, uniqueText } from "./fixtures.js"

const noop = () => Effect.void

/** Events as webhook fan-out takes them: each with its request body (webhookEnvelope). */
const asFanOut = (events: ReadonlyArray<DomainEvent>) =>
  events.map((event) => ({ id: event.id, accountId: event.accountId, type: event.type, payload: JSON.stringify(webhookEnvelope(event)) }))

/** A consumer name no other test uses, with its cursor moved past every event already in the outbox. */
const freshConsumer = Effect.gen(function* () {
  const store = yield* Store
  const name = uniqueText("consumer")
  while ((yield* store.events.relay(name, 1000, noop)) > 0) { /* drain */ }
  return name
})

const insertAccount = Effect.gen(function* () {
  const store = yield* Store
  const account = makeAccount()
  yield* store.accounts.insert(account)
  return account.id
})

const ids = (events: ReadonlyArray<DomainEvent>) => events.map((event) => event.id)

/** A JobQueue that refuses every call: the relay tests start no worker. */
const noJobs = Layer.succeed(JobQueue, {
  enqueue: () => Effect.die(new Error("not implemented")),
  enqueueAll: () => Effect.die(new Error("not implemented")),
  work: () => Effect.die(new Error("not implemented")),
})
/** A Mailer that refuses every call: the relay tests send nothing. */
const noMail = Layer.succeed(Mailer, { send: () => Effect.die(new Error("not implemented")) })

/** What a test of the Background relay starts from: an account, a consumer name no other test uses, and a queue for
 *  the ids of the events it receives. */
const relayTestbed = Effect.gen(function* () {
  const accountId = yield* insertAccount
  const name = yield* freshConsumer
  const received = yield* Queue.unbounded<string>()
  return { store: yield* Store, background: yield* Background, accountId, name, received }
})

/** Starts the registered Background work with the relay's reads of consumer `name` counted, and lets the relay catch
 *  up and start waiting; closing `scope` stops the work. */
const startCountingReads = (store: Context.Tag.Service<typeof Store>, background: Background, name: string) =>
  Effect.gen(function* () {
    const reads = yield* Ref.make(0)
    const counted = Store.of({
      ...store,
      events: {
        ...store.events,
        relay: (consumer, limit, handle, types) =>
          Effect.zipRight(consumer === name ? Ref.update(reads, (n) => n + 1) : Effect.void, store.events.relay(consumer, limit, handle, types)),
      },
    })
    const scope = yield* Scope.make()
    yield* Scope.extend(Effect.provideService(background.start, Store, counted), scope)
    yield* Effect.sleep("300 millis")
    return { reads, scope }
  })

/** Runs a test of the Background relay live, with what its work may use (no jobs, no mail). */
const withBackground = <A, E, R>(test: Effect.Effect<A, E, R>) =>
  TestServices.provideLive(test).pipe(Effect.provide(Layer.mergeAll(Background.Default, noJobs, noMail, IdsLive)))

/** The same, with a relay that polls once a minute: whatever it relays sooner, a wake-up brought. */
const withMinutePoll = <A, E, R>(test: Effect.Effect<A, E, R>) =>
  withBackground(test).pipe(
    Effect.provideService(BackgroundConfig, { relayBatchSize: 100, relayPollInterval: Duration.minutes(1), relayMaxBackoff: Duration.seconds(30) }),
  )

/** A relayTestbed whose consumer takes `email.queued` only, started with its relay's reads counted (see
 *  startCountingReads); `before` is the count once it caught up. */
const startTypedConsumerCounted = Effect.gen(function* () {
  const { store, background, accountId, name, received } = yield* relayTestbed
  yield* background.consume({ name, types: ["email.queued"], handle: (events) => Queue.offerAll(received, ids(events)) })
  const { reads, scope } = yield* startCountingReads(store, background, name)
  return { store, accountId, name, received, reads, before: yield* Ref.get(reads), scope }
})

export const eventRelaySuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  it.layer(storeLayer, { timeout: "60 seconds" })(`Event relay (${backend})`, (it) => {
    it.effect("offers committed events once each, in the order they were appended, in batches of at most `limit`", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const consumer = yield* freshConsumer
        const accountId = yield* insertAccount
        const other = yield* insertAccount
        const appended = [
          makeEvent({ accountId, type: "contact.subscribed" }),
          makeEvent({ accountId: other, type: "list.member_added" }),
          makeEvent({ accountId, type: "contact.unsubscribed", details: { reason: "asked", nested: { n: 1 } } }),
        ]
        yield* store.events.append(appended.slice(0, 2))
        yield* store.transaction(store.events.append(appended.slice(2)))
        const batches: Array<ReadonlyArray<DomainEvent>> = []
        const collect = (events: ReadonlyArray<DomainEvent>) => Effect.sync(() => { batches.push(events) })
        expect(yield* store.events.relay(consumer, 2, collect)).toBe(2)
        expect(yield* store.events.relay(consumer, 2, collect)).toBe(1)
        expect(yield* store.events.relay(consumer, 2, collect)).toBe(0)
        expect(batches.map(ids)).toEqual([[appended[0]!.id, appended[1]!.id], [appended[2]!.id]])
        const relayed = batches.flat()[2]!
        expect({ ...relayed, occurredAt: relayed.occurredAt.getTime() }).toEqual({ ...appended[2]!, occurredAt: appended[2]!.occurredAt.getTime() })
      }))

    it.effect("a batch whose handler fails is offered again, whole, and the cursor does not move", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const consumer = yield* freshConsumer
        const accountId = yield* insertAccount
        const appended = [makeEvent({ accountId }), makeEvent({ accountId })]
        yield* store.events.append(appended)
        const failure = yield* Effect.flip(store.events.relay(consumer, 10, () => Effect.fail(new StoreError({ operation: "test", cause: "down" }))))
        expect(failure._tag).toBe("StoreError")
        const seen: Array<string> = []
        expect(yield* store.events.relay(consumer, 10, (events) => Effect.sync(() => { seen.push(...ids(events)) }))).toBe(2)
        expect(seen).toEqual(ids(appended))
      }))

    it.effect("the handler's Store writes commit with the cursor, and roll back with a failure", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const consumer = yield* freshConsumer
        const accountId = yield* insertAccount
        yield* store.events.append([makeEvent({ accountId })])
        const kept = makeContact({ accountId })
        const dropped = makeContact({ accountId })
        yield* Effect.flip(store.events.relay(consumer, 10, () =>
          Effect.zipRight(store.contacts.insert(dropped), Effect.fail(new StoreError({ operation: "test", cause: "after write" })))))
        expect((yield* store.contacts.findById(accountId, dropped.id))._tag).toBe("None")
        expect(yield* store.events.relay(consumer, 10, () => store.contacts.insert(kept))).toBe(1)
        expect((yield* store.contacts.findById(accountId, kept.id))._tag).toBe("Some")
      }))

    it.effect("events of a rolled-back transaction are never offered", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const consumer = yield* freshConsumer
        const accountId = yield* insertAccount
        const lost = makeEvent({ accountId })
        const kept = makeEvent({ accountId })
        yield* Effect.exit(store.transaction(Effect.zipRight(store.events.append([lost]), Effect.fail("rolled back"))))
        yield* store.events.append([kept])
        const seen: Array<string> = []
        yield* store.events.relay(consumer, 10, (events) => Effect.sync(() => { seen.push(...ids(events)) }))
        expect(seen).toEqual([kept.id])
      }))

    it.effect("webhook fan-out of each relayed batch: one delivery per event and active endpoint of its account subscribed to its type, the body core's envelope", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const consumer = yield* freshConsumer
        const accountId = yield* insertAccount
        const other = yield* insertAccount
        const endpoint = makeWebhookEndpoint({ accountId, events: ["contact.subscribed", "email.delivered"] })
        const disabled = makeWebhookEndpoint({ accountId, events: ["contact.subscribed"], active: false })
        const elsewhere = makeWebhookEndpoint({ accountId: other, events: ["contact.subscribed"] })
        for (const one of [endpoint, disabled, elsewhere]) yield* store.webhooks.insertEndpoint(one)
        const appended = [
          makeEvent({ accountId, type: "contact.subscribed", recipient: "ada@example.com", details: { contactId: "ct_1", nested: { n: 1 } } }),
          makeEvent({ accountId, type: "list.member_added" }),
          makeEvent({ accountId: other, type: "contact.subscribed" }),
          makeEvent({ accountId, type: "email.delivered", recipient: "bo@example.com", details: { messageId: "msg_1", subject: "Hi", size: 3 } }),
        ]
        yield* store.transaction(store.events.append(appended))
        const at = new Date(1_700_000_000_000)
        const batches: Array<number> = []
        const made: Array<ReadonlyArray<WebhookDelivery>> = []
        const fanOut = (events: ReadonlyArray<DomainEvent>) =>
          Effect.map(store.webhooks.fanOut(asFanOut(events), at), (deliveries) => {
            batches.push(events.length)
            made.push(deliveries)
          })
        expect(yield* store.events.relay(consumer, 3, fanOut)).toBe(3)
        expect(yield* store.events.relay(consumer, 3, fanOut)).toBe(1)
        expect(yield* store.events.relay(consumer, 3, fanOut)).toBe(0)
        expect(batches).toEqual([3, 1])
        // One delivery per (event, active endpoint of its account subscribed to its type), the body core's envelope.
        const expected = (event: DomainEvent, endpointId: string) => ({
          id: deliveryIdFor(event.id, endpointId), accountId: event.accountId, endpointId, eventId: event.id, eventType: event.type,
          kind: "event", status: "pending", attempts: 0, createdAt: at,
        })
        expect(made.map((batch) => batch.map((delivery) => delivery.id))).toEqual([
          [deliveryIdFor(appended[0]!.id, endpoint.id), deliveryIdFor(appended[2]!.id, elsewhere.id)],
          [deliveryIdFor(appended[3]!.id, endpoint.id)],
        ])
        const byId = new Map(made.flat().map((delivery) => [delivery.id as string, delivery]))
        for (const [event, endpointId] of [[appended[0]!, endpoint.id], [appended[2]!, elsewhere.id], [appended[3]!, endpoint.id]] as const) {
          const delivery = byId.get(deliveryIdFor(event.id, endpointId))!
          expect(delivery).toMatchObject(expected(event, endpointId))
          expect(JSON.parse(delivery.payload)).toEqual(webhookEnvelope(event))
          expect(Option.getOrThrow(yield* store.webhooks.findDelivery(event.accountId, delivery.id))).toMatchObject({ status: "pending", payload: delivery.payload })
        }
      }))

    it.effect("a batch whose fan-out handler fails is offered again, whole; fan-out of the same batch twice makes nothing new", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const consumer = yield* freshConsumer
        const accountId = yield* insertAccount
        yield* store.webhooks.insertEndpoint(makeWebhookEndpoint({ accountId, events: ["contact.subscribed"] }))
        const appended = [makeEvent({ accountId, type: "contact.subscribed" }), makeEvent({ accountId, type: "contact.subscribed" })]
        yield* store.events.append(appended)
        const at = new Date(1_700_000_000_000)
        // The fan-out committed, and the handler failed after it: neither the deliveries nor the cursor move.
        const failure = yield* Effect.flip(store.events.relay(consumer, 10, (events) =>
          Effect.zipRight(store.webhooks.fanOut(asFanOut(events), at), Effect.fail(new StoreError({ operation: "test", cause: "down" })))))
        expect(failure._tag).toBe("StoreError")
        const made: Array<number> = []
        const fanOutTwice = (events: ReadonlyArray<DomainEvent>) =>
          Effect.gen(function* () {
            made.push((yield* store.webhooks.fanOut(asFanOut(events), at)).length)
            made.push((yield* store.webhooks.fanOut(asFanOut(events), at)).length)
          })
        expect(yield* store.events.relay(consumer, 10, fanOutTwice)).toBe(2)
        expect(made).toEqual([2, 0])
      }))

    it.effect("a consumer of some types gets only those, in order; its cursor moves past the others, counted", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const consumer = yield* freshConsumer
        const accountId = yield* insertAccount
        const appended = [
          makeEvent({ accountId, type: "contact.subscribed" }),
          makeEvent({ accountId, type: "list.member_added" }),
          makeEvent({ accountId, type: "contact.subscribed", details: { nested: { n: 2 } } }),
          makeEvent({ accountId, type: "contact.unsubscribed" }),
          makeEvent({ accountId, type: "list.member_added" }),
        ]
        yield* store.events.append(appended.slice(0, 4))
        yield* store.transaction(store.events.append(appended.slice(4)))
        const batches: Array<ReadonlyArray<DomainEvent>> = []
        const collect = (events: ReadonlyArray<DomainEvent>) => Effect.sync(() => { batches.push(events) })
        const types = ["contact.subscribed", "contact.unsubscribed"] as const
        expect(yield* store.events.relay(consumer, 3, collect, types)).toBe(3)
        expect(yield* store.events.relay(consumer, 3, collect, types)).toBe(2)
        expect(yield* store.events.relay(consumer, 3, collect, types)).toBe(0)
        expect(batches.map(ids)).toEqual([[appended[0]!.id, appended[2]!.id], [appended[3]!.id]])
        const relayed = batches[0]![1]!
        expect({ ...relayed, occurredAt: relayed.occurredAt.getTime() }).toEqual({ ...appended[2]!, occurredAt: appended[2]!.occurredAt.getTime() })

        // A batch with none of its types is not handed to it; the cursor moves past it all the same.
        yield* store.events.append([makeEvent({ accountId, type: "list.member_added" }), makeEvent({ accountId, type: "list.member_added" })])
        expect(yield* store.events.relay(consumer, 10, collect, types)).toBe(2)
        expect(yield* store.events.relay(consumer, 10, collect, types)).toBe(0)
        expect(batches).toHaveLength(2)
        // Events of none of its types are passed at once, beyond its batch size (up to relayPassWindow).
        yield* store.events.append(Array.from({ length: 25 }, () => makeEvent({ accountId, type: "list.member_added" })))
        expect(yield* store.events.relay(consumer, 10, collect, types)).toBe(25)
        expect(batches).toHaveLength(2)
        // A window that holds one of its types goes by batches of its size again.
        const later = makeEvent({ accountId, type: "contact.subscribed" })
        yield* store.events.append([...Array.from({ length: 15 }, () => makeEvent({ accountId, type: "list.member_added" })), later])
        expect(yield* store.events.relay(consumer, 10, collect, types)).toBe(10)
        expect(batches).toHaveLength(2)
        expect(yield* store.events.relay(consumer, 10, collect, types)).toBe(6)
        expect(batches.map(ids).at(-1)).toEqual([later.id])
        // A failing handler moves nothing: the batch is offered again, whole.
        const next = makeEvent({ accountId, type: "contact.unsubscribed" })
        yield* store.events.append([makeEvent({ accountId, type: "list.member_added" }), next])
        yield* Effect.flip(store.events.relay(consumer, 10, () => Effect.fail(new StoreError({ operation: "test", cause: "down" })), types))
        expect(yield* store.events.relay(consumer, 10, collect, types)).toBe(2)
        expect(batches.map(ids).at(-1)).toEqual([next.id])
      }))

    it.effect("each consumer has its own cursor", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const first = yield* freshConsumer
        const second = yield* freshConsumer
        const accountId = yield* insertAccount
        const event = makeEvent({ accountId })
        yield* store.events.append([event])
        expect(yield* store.events.relay(first, 10, noop)).toBe(1)
        expect(yield* store.events.relay(first, 10, noop)).toBe(0)
        const seen: Array<string> = []
        expect(yield* store.events.relay(second, 10, (events) => Effect.sync(() => { seen.push(...ids(events)) }))).toBe(1)
        expect(seen).toEqual([event.id])
      }))

    it.effect("Background relays to every registered consumer until its scope closes, retrying a failed batch", () =>
      withBackground(Effect.gen(function* () {
        const { store, background, accountId, name, received } = yield* relayTestbed
        const failures = yield* Ref.make(0)
        yield* background.consume({
          name,
          handle: (events) =>
            Effect.gen(function* () {
              // The first batch fails once: it must come again, whole.
              if ((yield* Ref.getAndUpdate(failures, (n) => n + 1)) === 0) {
                return yield* Effect.fail(new StoreError({ operation: "test", cause: "first batch fails" }))
              }
              yield* Queue.offerAll(received, ids(events))
            }),
        })
        const appended = [makeEvent({ accountId }), makeEvent({ accountId }), makeEvent({ accountId })]
        yield* store.events.append(appended.slice(0, 2))
        const scope = yield* Scope.make()
        yield* Scope.extend(background.start, scope)
        const firstTwo = yield* Effect.all([Queue.take(received), Queue.take(received)]).pipe(Effect.timeout("10 seconds"))
        expect(firstTwo).toEqual(ids(appended.slice(0, 2)))
        yield* store.events.append(appended.slice(2))
        expect(yield* Queue.take(received).pipe(Effect.timeout("10 seconds"))).toBe(appended[2]!.id)
        yield* Scope.close(scope, Exit.void)
        // Stopped: later events wait for the next start.
        const later = makeEvent({ accountId })
        yield* store.events.append([later])
        yield* Effect.sleep("600 millis")
        expect((yield* Queue.takeAll(received)).length).toBe(0)
        const seen: Array<string> = []
        expect(yield* store.events.relay(name, 10, (events) => Effect.sync(() => { seen.push(...ids(events)) }))).toBe(1)
        expect(seen).toEqual([later.id])
      })))

    it.effect("the wait for new events completes when a transaction that appended events commits, not before", () =>
      TestServices.provideLive(Effect.scoped(Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* insertAccount
        const wait = yield* store.events.appended()
        const done = yield* Deferred.make<void>()
        yield* Effect.forkScoped(Effect.zipRight(wait, Deferred.succeed(done, undefined)))
        // A rolled-back append, and a transaction that appends nothing, do not wake it.
        yield* Effect.exit(store.transaction(Effect.zipRight(store.events.append([makeEvent({ accountId })]), Effect.fail("rolled back"))))
        yield* store.transaction(store.events.list(accountId))
        yield* Effect.sleep("100 millis")
        expect(yield* Deferred.isDone(done)).toBe(false)
        // Inside the transaction the event is not committed yet: the wait goes on until the commit.
        yield* store.transaction(Effect.gen(function* () {
          yield* store.events.append([makeEvent({ accountId })])
          yield* Effect.sleep("50 millis")
          expect(yield* Deferred.isDone(done)).toBe(false)
        }))
        yield* Deferred.await(done).pipe(Effect.timeout("2 seconds"))
        // An append outside a transaction wakes a wait taken before it.
        const next = yield* store.events.appended()
        yield* store.events.append([makeEvent({ accountId })])
        yield* next.pipe(Effect.timeout("2 seconds"))
      }))))

    it.effect("a wait for events of some types completes only when events of one of those types commit", () =>
      TestServices.provideLive(Effect.scoped(Effect.gen(function* () {
        const store = yield* Store
        const accountId = yield* insertAccount
        const typed = yield* store.events.appended(["email.queued", "contact.unsubscribed"])
        const any = yield* store.events.appended()
        const done = yield* Deferred.make<void>()
        yield* Effect.forkScoped(Effect.zipRight(typed, Deferred.succeed(done, undefined)))
        // Events of other types wake a wait for any type, not this one.
        yield* store.transaction(store.events.append([makeEvent({ accountId, type: "list.member_added" })]))
        yield* any.pipe(Effect.timeout("2 seconds"))
        yield* Effect.sleep("100 millis")
        expect(yield* Deferred.isDone(done)).toBe(false)
        // A transaction whose events include one of its types wakes it, once committed.
        yield* store.transaction(store.events.append([
          makeEvent({ accountId, type: "list.member_added" }),
          makeEvent({ accountId, type: "contact.unsubscribed" }),
        ]))
        yield* Deferred.await(done).pipe(Effect.timeout("2 seconds"))
        // So does an append of one of its types outside a transaction.
        const next = yield* store.events.appended(["email.queued"])
        yield* store.events.append([makeEvent({ accountId, type: "email.queued" })])
        yield* next.pipe(Effect.timeout("2 seconds"))
      }))))

    it.effect("a commit of events wakes the Background relay at once, long before its poll", () =>
      withMinutePoll(Effect.gen(function* () {
        const { store, background, accountId, name, received } = yield* relayTestbed
        yield* background.consume({ name, handle: (events) => Queue.offerAll(received, ids(events)) })
        const scope = yield* Scope.make()
        yield* Scope.extend(background.start, scope)
        // Let the relay catch up and start waiting.
        yield* Effect.sleep("300 millis")
        for (let round = 0; round < 3; round++) {
          const event = makeEvent({ accountId })
          const started = Date.now()
          yield* store.transaction(store.events.append([event]))
          expect(yield* Queue.take(received).pipe(Effect.timeout("5 seconds"))).toBe(event.id)
          // The poll is a minute: only the wake-up can have brought it this soon.
          expect(Date.now() - started).toBeLessThan(5_000)
        }
        yield* Scope.close(scope, Exit.void)
      })))

    it.effect("a commit of other events leaves a Background consumer of some types asleep; one of its types wakes it", () =>
      withMinutePoll(Effect.gen(function* () {
        const { store, accountId, received, reads, before, scope } = yield* startTypedConsumerCounted
        for (let round = 0; round < 3; round++) {
          yield* store.transaction(store.events.append([makeEvent({ accountId, type: "list.member_added" })]))
        }
        yield* Effect.sleep("300 millis")
        // The poll is a minute: a read now would have been a wake-up.
        expect(yield* Ref.get(reads)).toBe(before)
        const event = makeEvent({ accountId, type: "email.queued" })
        yield* store.transaction(store.events.append([makeEvent({ accountId, type: "list.member_added" }), event]))
        expect(yield* Queue.take(received).pipe(Effect.timeout("5 seconds"))).toBe(event.id)
        expect(yield* Ref.get(reads)).toBeGreaterThan(before)
        yield* Scope.close(scope, Exit.void)
      })))

    it.effect("a Background consumer of some types that passes fewer other events than a pass window has caught up: it reads no more until woken", () =>
      withMinutePoll(Effect.gen(function* () {
        const { store, accountId, name, received, reads, before, scope } = yield* startTypedConsumerCounted
        // One of its types, then 250 others, in one commit: a batch of 100 (its batch size) with its event, then the
        // 150 others passed at once, fewer than a pass window (5,000): the end of what was committed.
        const event = makeEvent({ accountId, type: "email.queued" })
        yield* store.transaction(store.events.append([event, ...Array.from({ length: 250 }, () => makeEvent({ accountId, type: "list.member_added" }))]))
        expect(yield* Queue.take(received).pipe(Effect.timeout("5 seconds"))).toBe(event.id)
        yield* Effect.sleep("500 millis")
        // The batch and the pass, and no read after them: the poll is a minute.
        expect((yield* Ref.get(reads)) - before).toBe(2)
        expect(yield* Queue.size(received)).toBe(0)
        // Every event is behind its cursor: a relay now finds nothing.
        expect(yield* store.events.relay(name, 100, noop, ["email.queued"])).toBe(0)
        yield* Scope.close(scope, Exit.void)
      })))
  })

/** What a consumer of some types stores of its cursor, on a backend whose database several instances open (`open`
 *  gives a new instance over the same database each time: a process of its own). It passes windows holding none of its
 *  types without storing its cursor, and stores where it got to every 5 seconds, or with a batch of its types; an
 *  instance starting from the stored cursor reads the windows passed again, finds nothing in them, and gets each event
 *  of its types once. */
export const passedCursorSuite = <E>(backend: string, database: Effect.Effect<() => Layer.Layer<Store, E>, unknown, Scope.Scope>) =>
  it.scoped(`a consumer of some types stores the cursor it moved past other types every 5 seconds (${backend})`, () =>
    Effect.gen(function* () {
      const open = yield* database
      const consumer = uniqueText("typed")
      const types = ["contact.unsubscribed"] as const
      const seen: Array<string> = []
      const collect = (events: ReadonlyArray<DomainEvent>) => Effect.sync(() => { seen.push(...ids(events)) })
      const first = yield* Layer.build(open())
      const inFirst = <A, X>(effect: Effect.Effect<A, X, Store>) => Effect.provide(effect, first)
      /** A relay of a new instance: how many events lie after the stored cursor (none of them its types). */
      const elsewhere = Effect.scoped(Effect.flatMap(Layer.build(open()), (other) =>
        Effect.provide(Effect.flatMap(Store, (store) => store.events.relay(consumer, 100, collect, types)), other)))
      const relay = inFirst(Effect.flatMap(Store, (store) => store.events.relay(consumer, 100, collect, types)))
      const append = (...events: ReadonlyArray<DomainEvent>) => inFirst(Effect.flatMap(Store, (store) => store.events.append(events)))

      const accountId = yield* inFirst(insertAccount)
      const other = () => makeEvent({ accountId, type: "contact.subscribed" })
      yield* append(other(), other(), other())
      expect(yield* relay).toBe(3)
      // Passed by, not stored: another instance reads those three again.
      expect(yield* elsewhere).toBe(3)

      yield* TestClock.adjust(Duration.seconds(5))
      yield* append(other())
      expect(yield* relay).toBe(1)
      // Five seconds on, stored with the next window.
      expect(yield* elsewhere).toBe(0)

      const wanted = makeEvent({ accountId, type: "contact.unsubscribed" })
      yield* append(other(), wanted)
      expect(yield* relay).toBe(2)
      expect(seen).toEqual([wanted.id])
      // Stored with the batch of its types: handed out once.
      expect(yield* elsewhere).toBe(0)
      yield* append(other())
      expect(yield* relay).toBe(1)
      expect(yield* elsewhere).toBe(1)
      expect(seen).toEqual([wanted.id])
    }))
