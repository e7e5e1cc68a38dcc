/** The accounts table behind `Store.accounts`. */
import type { SqlClient } from "@effect/sql"
import { SqlSchema } from "@effect/sql"
import { type Account, AccountId, type AccountRepository, Plan } from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { EpochMillis, toMillis } from "./internal/columns.js"
import { orStoreError } from "./internal/errors.js"

const AccountRow = Schema.Struct({
  id: AccountId,
  name: Schema.NullOr(Schema.String),
  plan: Plan,
  owner_email: Schema.NullOr(Schema.String),
  created_at: EpochMillis,
})

const toAccount = (row: typeof AccountRow.Type): Account => ({
  id: row.id,
  name: row.name,
  plan: row.plan,
  ownerEmail: row.owner_email,
  createdAt: row.created_at,
})

export const makeAccountRepository = (sql: SqlClient.SqlClient): AccountRepository => {
  const findById = SqlSchema.findOne({
    Request: AccountId,
    Result: AccountRow,
    execute: (id) => sql`SELECT id, name, plan, owner_email, created_at FROM accounts WHERE id = ${id}`,
  })

  return {
    insert: (account) =>
      sql`INSERT INTO accounts ${sql.insert({
        id: account.id,
        name: account.name,
        plan: account.plan,
        owner_email: account.ownerEmail,
        created_at: toMillis(account.createdAt),
      })}`.pipe(Effect.asVoid, orStoreError("accounts.insert")),

    findById: (id) => findById(id).pipe(Effect.map((row) => Option.map(row, toAccount)), orStoreError("accounts.findById")),

    update: (account) =>
      sql`UPDATE accounts SET name = ${account.name}, plan = ${account.plan}, owner_email = ${account.ownerEmail}
        WHERE id = ${account.id}`.pipe(Effect.asVoid, orStoreError("accounts.update")),

    // Postgres: the row lock makes a second locker of the account wait until this transaction ends. NO KEY UPDATE
    // rather than UPDATE: it still excludes other lockers, but not the key-share locks that foreign-key checks take
    // when other transactions insert rows of the account. SQLite runs one write transaction at a time already.
    lock: (id) =>
      sql.onDialectOrElse({
        pg: () => sql`SELECT id FROM accounts WHERE id = ${id} FOR NO KEY UPDATE`.pipe(Effect.asVoid),
        orElse: () => Effect.void,
      }).pipe(orStoreError("accounts.lock")),
  }
}
