/** Accounts in memory, keyed by id. */
import { type Account, type AccountId, type AccountRepository, StoreError } from "@mailroom/core"
import { Either, Option } from "effect"
import type { MemoryDb } from "./db.js"

const copyAccount = (account: Account): Account => ({ ...account, createdAt: new Date(account.createdAt.getTime()) })

export const makeAccountRepository = (db: MemoryDb): AccountRepository => {
  const accounts = db.table<AccountId, Account>()
  return {
    insert: (account) =>
      db.atomicEither(() => {
        if (accounts.has(account.id)) {
          return Either.left(new StoreError({ operation: "accounts.insert", cause: `account id ${account.id} is taken` }))
        }
        accounts.set(account.id, copyAccount(account))
        return Either.void
      }),

    findById: (id) => db.atomic(() => Option.fromNullable(accounts.get(id)).pipe(Option.map(copyAccount))),

    update: (account) =>
      db.atomic(() => {
        const current = accounts.get(account.id)
        if (current === undefined) return
        accounts.set(account.id, { ...current, name: account.name, plan: account.plan, ownerEmail: account.ownerEmail })
      }),

    // Every memory transaction already runs alone, so holding the account adds nothing.
    lock: () => db.atomic(() => undefined),
  }
}
