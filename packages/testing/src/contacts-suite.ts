/** Scenario tests of the Accounts and Contacts services, run by every backend package against its own Store layer. */
import { expect, it } from "@effect/vitest"
import {
  Accounts, Contacts, type ContactStatus, type CreateContactInput, EmailAddress, IdsLive, type Plan, servicesLayer, Store,
  contactStatuses, allowedMoves,
} from "@mailroom/core"
import { Chunk, Clock, Deferred, Effect, Fiber, Layer, Schema, Stream } from "effect"
import { someSerialOrderAllows } from "./serial-history.js"
import { testTemplateEngine } from "./template-engine.js"

const email = (address: string) => Schema.decodeSync(EmailAddress)(address)
const input = (address: string, extra: Omit<CreateContactInput, "email"> = {}): CreateContactInput => ({ email: email(address), ...extra })

const query = { page: 1, limit: 1000, sortBy: "createdAt", sortOrder: "asc" } as const

/** A fresh account of `plan`, so that every test owns its data. */
const freshAccount = (plan: Plan = "pro") =>
  Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "suite", plan })).pipe(Effect.map(({ account }) => account))

export const contactsSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  it.layer(Layer.provideMerge(servicesLayer, Layer.mergeAll(storeLayer, IdsLive, testTemplateEngine)), { timeout: "60 seconds" })(
    `Contacts service (${backend})`,
    (it) => {
      it.effect("a revoked key and a changed plan take effect at once, even right after a cached lookup", () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts
          const { account, apiKey } = yield* accounts.create({ plan: "free" })
          const extra = yield* accounts.createApiKey(account.id, { scopes: ["contacts:read"], mode: "test" })
          expect((yield* accounts.authenticate(extra.key)).apiKey.scopes).toEqual(["contacts:read"])
          expect((yield* accounts.authenticate(apiKey)).account.plan).toBe("free")
          yield* accounts.update(account.id, { plan: "pro" })
          expect((yield* accounts.authenticate(apiKey)).account.plan).toBe("pro")
          yield* accounts.revokeApiKey(account.id, extra.apiKey.id)
          const error = yield* Effect.flip(accounts.authenticate(extra.key))
          expect(error._tag).toBe("InvalidCredentials")
          expect(error.message).toContain("revoked")
          expect((yield* Effect.flip(accounts.authenticate(undefined)))._tag).toBe("Unauthorized")
          expect((yield* Effect.flip(accounts.authenticate("svc_live_not-a-key")))._tag).toBe("InvalidCredentials")
          expect((yield* Effect.flip(accounts.authenticate("Basic abc")))._tag).toBe("InvalidCredentials")
          const other = yield* accounts.create({})
          expect((yield* Effect.flip(accounts.revokeApiKey(other.account.id, extra.apiKey.id)))._tag).toBe("ResourceNotFound")
        }))

      it.effect("cachedAuthentication knows only keys a lookup answered, until they expire, are revoked or change plan", () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts
          const { account, apiKey } = yield* accounts.create({ plan: "free" })
          // The service reads Effect's Clock (the test clock here); the caller passes the same time.
          const now = yield* Clock.currentTimeMillis
          expect(accounts.cachedAuthentication(apiKey, now)).toBeUndefined()
          yield* accounts.authenticate(apiKey)
          const cached = accounts.cachedAuthentication(apiKey, now)
          expect(cached?.account.id).toBe(account.id)
          expect(cached?.account.plan).toBe("free")
          expect(accounts.cachedAuthentication(`${apiKey}x`, now)).toBeUndefined()
          expect(accounts.cachedAuthentication(apiKey, now + 60_000)).toBeUndefined()
          yield* accounts.update(account.id, { plan: "pro" })
          expect(accounts.cachedAuthentication(apiKey, now)).toBeUndefined()
          expect((yield* accounts.authenticate(apiKey)).account.plan).toBe("pro")
          expect(accounts.cachedAuthentication(apiKey, now)?.account.plan).toBe("pro")
          const extra = yield* accounts.createApiKey(account.id, {})
          yield* accounts.authenticate(extra.key)
          expect(accounts.cachedAuthentication(extra.key, now)?.apiKey.id).toBe(extra.apiKey.id)
          yield* accounts.revokeApiKey(account.id, extra.apiKey.id)
          expect(accounts.cachedAuthentication(extra.key, now)).toBeUndefined()
        }))

      it.effect("requests that miss the key cache together wait for one lookup", () =>
        Effect.gen(function* () {
          const { apiKey } = yield* (yield* Accounts).create({ plan: "pro" })
          const gate = yield* Deferred.make<void>()
          let lookups = 0
          const slowLookups = Layer.effect(Store, Effect.map(Store, (store) => ({
            ...store,
            apiKeys: {
              ...store.apiKeys,
              findByHash: (hash: string) =>
                Effect.sync(() => lookups++).pipe(Effect.zipRight(Deferred.await(gate)), Effect.zipRight(store.apiKeys.findByHash(hash))),
            },
          })))
          yield* Effect.gen(function* () {
            const accounts = yield* Accounts
            const all = yield* Effect.fork(Effect.all(Array.from({ length: 20 }, () => accounts.authenticate(apiKey)), {
              concurrency: "unbounded",
            }))
            yield* Effect.yieldNow().pipe(Effect.repeatN(20))
            yield* Deferred.succeed(gate, undefined)
            expect(new Set((yield* Fiber.join(all)).map(({ apiKey }) => apiKey.id)).size).toBe(1)
            expect(lookups).toBe(1)
          }).pipe(Effect.provide(Accounts.Default.pipe(Layer.provide(slowLookups))))
        }))

      it.effect("a lookup that overlaps a revocation is not cached: the next request sees the revocation", () =>
        Effect.gen(function* () {
          const created = yield* (yield* Accounts).create({ plan: "pro" })
          const read = yield* Deferred.make<void>()
          const gate = yield* Deferred.make<void>()
          const slowLookups = Layer.effect(Store, Effect.map(Store, (store) => ({
            ...store,
            apiKeys: {
              ...store.apiKeys,
              // The row is read before the revocation commits; the answer arrives after it.
              findByHash: (hash: string) =>
                store.apiKeys.findByHash(hash).pipe(Effect.zipLeft(Deferred.succeed(read, undefined)), Effect.zipLeft(Deferred.await(gate))),
            },
          })))
          yield* Effect.gen(function* () {
            const accounts = yield* Accounts
            const { apiKey, key } = yield* accounts.createApiKey(created.account.id, {})
            const early = yield* Effect.fork(accounts.authenticate(key))
            yield* Deferred.await(read)
            yield* accounts.revokeApiKey(created.account.id, apiKey.id)
            yield* Deferred.succeed(gate, undefined)
            expect((yield* Fiber.join(early)).apiKey.id).toBe(apiKey.id)
            expect((yield* Effect.flip(accounts.authenticate(key)))._tag).toBe("InvalidCredentials")
          }).pipe(Effect.provide(Accounts.Default.pipe(Layer.provide(slowLookups))))
        }))

      it.effect("the signing secret is generated once and kept", () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts
          const first = yield* accounts.secret
          expect(first).toMatch(/^[0-9a-f]{64}$/)
          expect(yield* accounts.secret).toBe(first)
        }))

      it.effect("a created contact is ACTIVE with source API and no consent evidence unless told otherwise", () =>
        Effect.gen(function* () {
          const contacts = yield* Contacts
          const account = yield* freshAccount()
          const created = yield* contacts.create(account, input("Ada@Example.com", {
            firstName: "Ada", tags: ["vip", "beta"], customFields: { plan: "gold" },
          }))
          expect(created.status).toBe("ACTIVE")
          expect(created.source).toBe("API")
          expect(created.consentSource).toBeNull()
          const read = yield* contacts.get(account, created.id)
          expect(read.email).toBe("ada@example.com")
          expect(read.tags.map((t) => t.tag).sort()).toEqual(["beta", "vip"])
          expect(read.customFields.map((f) => [f.key, f.value])).toEqual([["plan", "gold"]])
        }))

      it.effect("a second contact with the same address is refused and nothing is written", () =>
        Effect.gen(function* () {
          const contacts = yield* Contacts
          const account = yield* freshAccount()
          yield* contacts.create(account, input("dup@example.com"))
          const error = yield* Effect.flip(contacts.create(account, input("dup@example.com", { firstName: "Other" })))
          expect(error._tag).toBe("DuplicateContact")
          const page = yield* contacts.list(account, query)
          expect(page.total).toBe(1)
          expect(page.contacts[0]!.firstName).toBeNull()
        }))

      it.effect("the same address may exist in two accounts, and each sees only its own", () =>
        Effect.gen(function* () {
          const contacts = yield* Contacts
          const first = yield* freshAccount()
          const second = yield* freshAccount()
          const mine = yield* contacts.create(first, input("shared@example.com"))
          yield* contacts.create(second, input("shared@example.com"))
          const attempts: ReadonlyArray<Effect.Effect<unknown, { readonly _tag: string }>> = [
            contacts.get(second, mine.id),
            contacts.update(second, mine.id, { firstName: "X" }),
            contacts.delete(second, mine.id),
            contacts.addTags(second, mine.id, ["x"]),
          ]
          for (const attempt of attempts) {
            const error = yield* Effect.flip(attempt)
            expect(error._tag).toBe("ResourceNotFound")
          }
          expect((yield* contacts.get(first, mine.id)).firstName).toBeNull()
        }))

      it.effect("a Free account holds at most 100 active contacts, while other statuses stay allowed", () =>
        Effect.gen(function* () {
          const contacts = yield* Contacts
          const account = yield* freshAccount("free")
          const result = yield* contacts.bulkCreate(account, {
            contacts: Array.from({ length: 100 }, (_, i) => input(`a${i}@example.com`)),
            skipDuplicates: true,
          })
          expect(result.created).toBe(100)
          const error = yield* Effect.flip(contacts.create(account, input("one-too-many@example.com")))
          expect(error._tag).toBe("FreeTierContactLimit")
          const pending = yield* contacts.create(account, input("pending@example.com", { status: "PENDING" }))
          const patch = yield* Effect.flip(contacts.update(account, pending.id, { status: "ACTIVE" }))
          expect(patch._tag).toBe("FreeTierContactLimit")
          expect((yield* contacts.get(account, pending.id)).status).toBe("PENDING")
          const bulk = yield* contacts.bulkCreate(account, { contacts: [input("late@example.com")], skipDuplicates: true })
          expect(bulk).toMatchObject({ created: 0, errors: [{ email: "late@example.com" }] })
          expect(bulk.errors[0]!.error).toContain("100 active contacts")
        }))

      it.effect("PATCH changes only the fields sent, and follows the status table exactly", () =>
        Effect.gen(function* () {
          const contacts = yield* Contacts
          const account = yield* freshAccount()
          for (const from of contactStatuses) {
            for (const to of contactStatuses) {
              const created = yield* contacts.create(account, input(`${from}-${to}@example.com`.toLowerCase(), {
                status: from, firstName: "Keep",
              }))
              const result = yield* Effect.either(contacts.update(account, created.id, { status: to }))
              const allowed = from === to || allowedMoves[from].includes(to)
              const after = yield* contacts.get(account, created.id)
              expect(result._tag === "Right", `${from} -> ${to}`).toBe(allowed)
              expect(after.status).toBe<ContactStatus>(allowed ? to : from)
              expect(after.firstName).toBe("Keep")
              if (result._tag === "Left") expect(result.left._tag).toBe("InvalidStatusTransition")
            }
          }
        }))

      it.effect("twenty concurrent status moves on one contact leave a history that some serial order allows", () =>
        Effect.gen(function* () {
          // The checker itself: COMPLAINED is terminal, BOUNCED is left only for ACTIVE.
          expect(someSerialOrderAllows("ACTIVE", ["COMPLAINED", "UNSUBSCRIBED"], "UNSUBSCRIBED")).toBe(false)
          expect(someSerialOrderAllows("ACTIVE", ["UNSUBSCRIBED", "COMPLAINED"], "COMPLAINED")).toBe(false)
          expect(someSerialOrderAllows("ACTIVE", ["UNSUBSCRIBED", "ACTIVE", "COMPLAINED"], "COMPLAINED")).toBe(true)
          expect(someSerialOrderAllows("ACTIVE", ["BOUNCED", "UNSUBSCRIBED"], "UNSUBSCRIBED")).toBe(false)
          const contacts = yield* Contacts
          const targets: ReadonlyArray<ContactStatus> = ["UNSUBSCRIBED", "BOUNCED", "ACTIVE", "COMPLAINED", "PENDING"]
          // Several rounds, each on a fresh contact: one round on a fast machine may happen to run its moves in turn.
          // On a Free account a move to ACTIVE also locks the account (its cap on ACTIVE contacts).
          for (let round = 0; round < 6; round++) {
            const account = yield* freshAccount(round % 2 === 0 ? "pro" : "free")
            const created = yield* contacts.create(account, input(`race-${round}@example.com`))
            const moves = Array.from({ length: 20 }, (_, i) => targets[i % targets.length]!)
            const results = yield* Effect.all(
              moves.map((to) => Effect.either(contacts.update(account, created.id, { status: to }))),
              { concurrency: "unbounded" },
            )
            const accepted = results.flatMap((result, i) => result._tag === "Right" ? [moves[i]!] : [])
            for (const result of results) if (result._tag === "Left") expect(result.left._tag).toBe("InvalidStatusTransition")
            const final = (yield* contacts.get(account, created.id)).status
            expect(someSerialOrderAllows("ACTIVE", accepted, final), `round ${round}: accepted ${accepted.join(" ")}, final ${final}`).toBe(true)
          }
        }))

      it.effect("unsubscribing through PATCH stamps unsubscribedAt; changing the address to a taken one is refused", () =>
        Effect.gen(function* () {
          const contacts = yield* Contacts
          const account = yield* freshAccount()
          const ada = yield* contacts.create(account, input("ada@example.com"))
          yield* contacts.create(account, input("bob@example.com"))
          const unsubscribed = yield* contacts.update(account, ada.id, { status: "UNSUBSCRIBED", lastName: "L" })
          expect(unsubscribed.unsubscribedAt).not.toBeNull()
          expect(unsubscribed.lastName).toBe("L")
          const error = yield* Effect.flip(contacts.update(account, ada.id, { email: email("bob@example.com") }))
          expect(error._tag).toBe("DuplicateContact")
          expect((yield* contacts.get(account, ada.id)).email).toBe("ada@example.com")
          const renamed = yield* contacts.update(account, ada.id, { email: email("ada2@example.com"), customFields: { a: "1" } })
          expect((yield* contacts.get(account, renamed.id)).customFields.map((f) => f.key)).toEqual(["a"])
        }))

      it.effect("direct contact edits append no events (rule 9)", () =>
        Effect.gen(function* () {
          const contacts = yield* Contacts
          const store = yield* Store
          const account = yield* freshAccount()
          const created = yield* contacts.create(account, input("quiet@example.com"))
          yield* contacts.update(account, created.id, { status: "UNSUBSCRIBED" })
          yield* contacts.bulkCreate(account, { contacts: [input("quiet2@example.com")], skipDuplicates: true })
          expect(yield* store.events.list(account.id)).toEqual([])
        }))

      it.effect("tags: existing ones are kept, more than 50 are refused without change, one can be removed", () =>
        Effect.gen(function* () {
          const contacts = yield* Contacts
          const account = yield* freshAccount()
          const created = yield* contacts.create(account, input("tags@example.com", { tags: ["a"] }))
          const tagged = yield* contacts.addTags(account, created.id, ["b", "a"])
          expect(tagged.tags.map((t) => t.tag).sort()).toEqual(["a", "b"])
          const tooMany = Array.from({ length: 49 }, (_, i) => `t${i}`)
          const error = yield* Effect.flip(contacts.addTags(account, created.id, tooMany))
          expect(error._tag).toBe("TagLimitExceeded")
          expect((yield* contacts.get(account, created.id)).tags).toHaveLength(2)
          const untagged = yield* contacts.removeTag(account, created.id, "a")
          expect(untagged.tags.map((t) => t.tag)).toEqual(["b"])
          expect((yield* Effect.flip(contacts.removeTag(account, created.id, "a")))._tag).toBe("ResourceNotFound")
          yield* contacts.create(account, input("tags2@example.com", { tags: ["b"] }))
          expect(yield* contacts.tags(account)).toEqual([{ name: "b", count: 2, color: null, definitionId: null }])
        }))

      // Pro has no cap on ACTIVE contacts (the insert alone finds the taken addresses); Free reads them first.
      it.effect.each(["pro", "free"] as const)("bulk create skips or reports duplicates, in the batch and in the account (%s)", (plan) =>
        Effect.gen(function* () {
          const contacts = yield* Contacts
          const account = yield* freshAccount(plan)
          yield* contacts.create(account, input("old@example.com"))
          const batch = [input("old@example.com"), input("new1@example.com"), input("new1@example.com"), input("new2@example.com")]
          const skipping = yield* contacts.bulkCreate(account, { contacts: batch, skipDuplicates: true })
          expect(skipping).toEqual({ created: 2, skipped: 2, errors: [] })
          const reporting = yield* contacts.bulkCreate(account, { contacts: [input("new1@example.com"), input("new3@example.com")], skipDuplicates: false })
          expect(reporting.created).toBe(1)
          expect(reporting.skipped).toBe(0)
          expect(reporting.errors).toEqual([{ email: "new1@example.com", error: expect.stringContaining("already exists") }])
          expect((yield* contacts.list(account, query)).total).toBe(4)
        }))

      it.effect("bulk delete ignores other accounts' ids and reports how many it deleted", () =>
        Effect.gen(function* () {
          const contacts = yield* Contacts
          const mine = yield* freshAccount()
          const theirs = yield* freshAccount()
          const a = yield* contacts.create(mine, input("a@example.com"))
          const b = yield* contacts.create(mine, input("b@example.com"))
          const foreign = yield* contacts.create(theirs, input("c@example.com"))
          expect(yield* contacts.bulkDelete(mine, [a.id, b.id, foreign.id, "ct_unknown"])).toEqual({ deleted: 2, requested: 4 })
          expect((yield* contacts.get(theirs, foreign.id)).email).toBe("c@example.com")
          expect((yield* Effect.flip(contacts.delete(mine, a.id)))._tag).toBe("ResourceNotFound")
        }))

      it.effect("export streams every matching contact across pages, in id order", () =>
        Effect.gen(function* () {
          const contacts = yield* Contacts
          const account = yield* freshAccount()
          const people = Array.from({ length: 1203 }, (_, i) =>
            input(`e${i}@example.com`, { status: i % 3 === 0 ? "UNSUBSCRIBED" : "ACTIVE" }))
          // A bulk create holds at most 1,000 contacts.
          for (const batch of [people.slice(0, 1000), people.slice(1000)]) {
            yield* contacts.bulkCreate(account, { contacts: batch, skipDuplicates: true })
          }
          const all = Chunk.toReadonlyArray(yield* Stream.runCollect(contacts.export(account, {})))
          expect(all).toHaveLength(1203)
          expect(all.map((c) => c.id)).toEqual([...all.map((c) => c.id)].sort())
          const unsubscribed = yield* Stream.runCount(contacts.export(account, { status: "UNSUBSCRIBED" }))
          expect(unsubscribed).toBe(401)
        }))
    },
  )
