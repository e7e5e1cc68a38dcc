/** Store contract: accounts, API keys, application credentials, settings and ping. */
import { describe, expect } from "@effect/vitest"
import { Store } from "@mailroom/core"
import { Effect, Exit, Option } from "effect"
import { makeAccount, makeApiKey, makeAppCredential, uniqueText } from "../fixtures.js"
import { at, insertAccount, type StoreTester } from "./support.js"

/** A row with its creation time as epoch milliseconds, so rows compare across backends. */
const withTime = <A extends { readonly createdAt: Date }>(row: A) => ({ ...row, createdAt: row.createdAt.getTime() })

export const accountTests = (it: StoreTester) => {
  describe("accounts", () => {
    it.effect("findById answers an inserted account with every field, null fields included", () =>
      Effect.gen(function* () {
        const { accounts } = yield* Store
        const full = makeAccount({ name: "Acme", plan: "pro", ownerEmail: "ops@acme.example", createdAt: at(5) })
        const bare = makeAccount({ name: null, ownerEmail: null })
        yield* accounts.insert(full)
        yield* accounts.insert(bare)
        expect((yield* accounts.findById(full.id)).pipe(Option.map(withTime))).toEqual(Option.some(withTime(full)))
        expect((yield* accounts.findById(bare.id)).pipe(Option.map(withTime))).toEqual(Option.some(withTime(bare)))
      }))

    it.effect("findById answers none for an unknown id", () =>
      Effect.gen(function* () {
        const { accounts } = yield* Store
        expect(Option.isNone(yield* accounts.findById(makeAccount().id))).toBe(true)
      }))

    it.effect("update replaces name, plan and ownerEmail and keeps createdAt", () =>
      Effect.gen(function* () {
        const { accounts } = yield* Store
        const account = makeAccount({ name: "Before", plan: "free", ownerEmail: "a@example.com", createdAt: at(1) })
        yield* accounts.insert(account)
        yield* accounts.update({ ...account, name: null, plan: "scale", ownerEmail: "b@example.com", createdAt: at(99) })
        const stored = Option.getOrThrow(yield* accounts.findById(account.id))
        expect(stored.name).toBeNull()
        expect(stored.plan).toBe("scale")
        expect(stored.ownerEmail).toBe("b@example.com")
        expect(stored.createdAt.getTime()).toBe(at(1).getTime())
      }))

    it.effect("update of an unknown id writes nothing", () =>
      Effect.gen(function* () {
        const { accounts } = yield* Store
        const ghost = makeAccount()
        yield* accounts.update(ghost)
        expect(Option.isNone(yield* accounts.findById(ghost.id))).toBe(true)
      }))

    it.effect("lock inside a transaction lets the transaction go on writing", () =>
      Effect.gen(function* () {
        const store = yield* Store
        const account = makeAccount({ plan: "free" })
        yield* store.accounts.insert(account)
        yield* store.transaction(Effect.gen(function* () {
          yield* store.accounts.lock(account.id)
          yield* store.accounts.update({ ...account, plan: "micro" })
        }))
        expect(Option.getOrThrow(yield* store.accounts.findById(account.id)).plan).toBe("micro")
      }))
  })

  describe("apiKeys", () => {
    it.effect("findByHash answers the stored key with scopes and mode, and none for an unknown hash", () =>
      Effect.gen(function* () {
        const { apiKeys } = yield* Store
        const accountId = yield* insertAccount
        const key = makeApiKey({ accountId, name: null, mode: "test", scopes: ["emails:send", "analytics:read"] })
        yield* apiKeys.insert(key)
        const found = Option.getOrThrow(yield* apiKeys.findByHash(key.hash))
        expect({ ...found, createdAt: found.createdAt.getTime() }).toEqual({ ...key, createdAt: key.createdAt.getTime() })
        expect(Option.isNone(yield* apiKeys.findByHash(uniqueText("hash")))).toBe(true)
      }))

    it.effect("revoke marks the key revoked at the given time, and revoking twice still answers true", () =>
      Effect.gen(function* () {
        const { apiKeys } = yield* Store
        const accountId = yield* insertAccount
        const key = makeApiKey({ accountId })
        yield* apiKeys.insert(key)
        expect(yield* apiKeys.revoke(accountId, key.id, at(60))).toBe(true)
        expect(Option.getOrThrow(yield* apiKeys.findByHash(key.hash)).revokedAt?.getTime()).toBe(at(60).getTime())
        expect(yield* apiKeys.revoke(accountId, key.id, at(120))).toBe(true)
        expect(Option.getOrThrow(yield* apiKeys.findByHash(key.hash)).revokedAt).not.toBeNull()
      }))

    it.effect("revoke answers false for another account's key and leaves it active, and false for an unknown id", () =>
      Effect.gen(function* () {
        const { apiKeys } = yield* Store
        const owner = yield* insertAccount
        const stranger = yield* insertAccount
        const key = makeApiKey({ accountId: owner })
        yield* apiKeys.insert(key)
        expect(yield* apiKeys.revoke(stranger, key.id, at(60))).toBe(false)
        expect(Option.getOrThrow(yield* apiKeys.findByHash(key.hash)).revokedAt).toBeNull()
        expect(yield* apiKeys.revoke(owner, makeApiKey({ accountId: owner }).id, at(60))).toBe(false)
      }))
  })

  describe("appCredentials", () => {
    it.effect("findByHash answers the stored credential, and none for an unknown hash", () =>
      Effect.gen(function* () {
        const { appCredentials } = yield* Store
        const accountId = yield* insertAccount
        const credential = makeAppCredential({ accountId, allowedSenders: ["a@example.com", "b@example.com"] })
        yield* appCredentials.insert(credential)
        expect((yield* appCredentials.findByHash(credential.hash)).pipe(Option.map(withTime)))
          .toEqual(Option.some(withTime(credential)))
        expect(Option.isNone(yield* appCredentials.findByHash(uniqueText("hash")))).toBe(true)
      }))
  })

  describe("settings", () => {
    it.effect("getOrInsert keeps the first value and answers it to every later call", () =>
      Effect.gen(function* () {
        const { settings } = yield* Store
        const key = uniqueText("setting")
        expect(yield* settings.getOrInsert(key, "first")).toBe("first")
        expect(yield* settings.getOrInsert(key, "second")).toBe("first")
        expect(yield* settings.getOrInsert(uniqueText("setting"), "other")).toBe("other")
      }))
  })

  describe("ping", () => {
    it.effect("succeeds while the store is up", () =>
      Effect.gen(function* () {
        const store = yield* Store
        expect(Exit.isSuccess(yield* Effect.exit(store.ping))).toBe(true)
      }))
  })
}
