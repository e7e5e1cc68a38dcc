/** The contacts, contact_tags and contact_custom_fields tables behind `Store.contacts`. Writes are set-based and reads
 *  fetch tags and custom fields for all contacts at once, so the number of statements never grows with the number of
 *  contacts. */
import { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import {
  type AccountId, type Contact, type ContactRepository, DuplicateContact, offsetOf, StoreError, type Suppression,
} from "@mailroom/core"
import { Effect, Option, Schema } from "effect"
import { contactFilter, contactOrder } from "./contact-query.js"
import { type ContactRow, contactRow, decodeContactRows, fieldRow, scalarColumns, tagRow, withChildren } from "./contact-rows.js"
import { chunksOf, forEachChunk, insertRows, maxInList } from "./internal/batch.js"
import { IntegerColumn } from "./internal/columns.js"
import { isUniqueViolation, orStoreError, storeError, type UniqueConstraint } from "./internal/errors.js"
import { suppressionFromRow, SuppressionRow } from "./suppressions.js"

const accountEmailKey: UniqueConstraint = {
  name: "contacts_account_email_key",
  table: "contacts",
  columns: ["account_id", "email"],
}

/** Fails with DuplicateContact when the address is taken, with StoreError for anything else. */
const refuseDuplicate = (operation: string, email: string) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, DuplicateContact | StoreError, R> =>
  Effect.mapError(effect, (error) =>
    error instanceof DuplicateContact ? error
    : isUniqueViolation(error, accountEmailKey) ? new DuplicateContact({ email })
    : storeError(operation)(error))

const decodeSuppressionRows = Schema.decodeUnknown(Schema.Array(SuppressionRow))
const decodeCount = Schema.decodeUnknown(Schema.Array(Schema.Struct({ count: IntegerColumn })))
const decodeTagCounts = Schema.decodeUnknown(Schema.Array(Schema.Struct({ name: Schema.String, count: IntegerColumn })))

/** The Postgres type of a contacts column, for the arrays of `insertByColumns`. */
const pgColumnType = (column: string) => column === "metadata" ? "json" : column.endsWith("_at") ? "bigint" : "text"

/** Postgres: new contacts as one INSERT … SELECT FROM unnest(…), one array parameter per column, skipping taken
 *  addresses and answering the ids written. Postgres parses and plans this in a fraction of the time a VALUES list of
 *  one parameter per cell takes (1,000 contacts: about 20 parameters instead of 22,000), and it needs no chunks. */
const insertByColumns = (sql: SqlClient.SqlClient, rows: ReadonlyArray<Record<string, unknown>>) => {
  const columns = Object.keys(rows[0]!)
  const arrays = columns.map((column, i) => `$${i + 1}::${pgColumnType(column)}[]`).join(", ")
  return sql.unsafe<{ readonly id: string }>(
    `INSERT INTO contacts (${columns.map((column) => `"${column}"`).join(", ")}) SELECT * FROM unnest(${arrays})
      ON CONFLICT (account_id, email) DO NOTHING RETURNING id`,
    columns.map((column) => rows.map((row) => row[column])),
  )
}

/** The first contact of each address (per account), in input order. */
const firstPerAddress = (contacts: ReadonlyArray<Contact>): ReadonlyArray<Contact> => {
  const seen = new Set<string>()
  return contacts.filter((contact) => {
    const key = `${contact.accountId}\n${contact.email}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

export const makeContactRepository = (sql: SqlClient.SqlClient): ContactRepository => {
  const complete = (accountId: AccountId) => (rows: ReadonlyArray<ContactRow>) => withChildren(sql, accountId, rows)

  /** The account's contacts (alias `c`) matching `where`, completed with tags and custom fields. */
  const select = (accountId: AccountId, where: Fragment) =>
    sql`SELECT c.* FROM contacts c WHERE c.account_id = ${accountId} AND ${where}`.pipe(
      Effect.flatMap(decodeContactRows),
      Effect.flatMap(complete(accountId)),
    )

  /** The account's contacts whose `column` is among `values`, chunked under the parameter limit. */
  const selectIn = (accountId: AccountId, column: "id" | "email", values: ReadonlyArray<string>) =>
    Effect.forEach(chunksOf([...new Set(values)], maxInList), (chunk) =>
      sql`SELECT c.* FROM contacts c WHERE c.account_id = ${accountId} AND ${sql.literal(`c.${column}`)} IN ${sql.in(chunk)}`.pipe(
        Effect.flatMap(decodeContactRows),
      )).pipe(Effect.flatMap((chunks) => complete(accountId)(chunks.flat())))

  const insertChildren = (contacts: ReadonlyArray<Contact>) =>
    Effect.zipRight(
      insertRows(sql, "contact_tags", contacts.flatMap((contact) => contact.tags.map((tag) => tagRow(contact, tag))),
        sql.literal("ON CONFLICT (contact_id, tag) DO NOTHING")),
      insertRows(sql, "contact_custom_fields",
        contacts.flatMap((contact) => contact.customFields.map((field) => fieldRow(contact, field))),
        sql.literal("ON CONFLICT (contact_id, key) DO NOTHING")),
    )

  /** The text of the one-contact INSERT depends only on the dialect, so it is compiled once, from the first contact,
   *  and then sent with each contact's values: compiling the row helper builds several kB of strings per call. */
  let insertText: string | undefined
  const insertOne = (contact: Contact) => {
    const row = contactRow(contact)
    insertText ??= sql`INSERT INTO contacts ${sql.insert(row)}
      ON CONFLICT (account_id, email) DO NOTHING RETURNING id`.compile()[0]
    return sql.unsafe<{ readonly id: string }>(insertText, Object.values(row))
  }

  /** Runs `effect` only when the contact belongs to the account, in one transaction with the check. */
  const whenOwned = <A, E, R>(accountId: AccountId, contactId: string, effect: Effect.Effect<A, E, R>) =>
    sql.withTransaction(Effect.gen(function* () {
      const owned = yield* sql`SELECT 1 AS owned FROM contacts WHERE account_id = ${accountId} AND id = ${contactId}`
      if (owned.length > 0) yield* effect
    }))

  /** A failed statement aborts a whole Postgres transaction. Inside a caller's transaction, a statement that may hit
   *  the address constraint runs under a savepoint, so the caller can handle DuplicateContact and go on. SQLite only
   *  undoes the failed statement, so it needs none. */
  const recoverable = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    sql.onDialectOrElse({
      pg: () =>
        Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (transaction) =>
          Option.isSome(transaction) ? sql.withTransaction(effect) : effect),
      orElse: () => effect,
    })

  return {
    // ON CONFLICT rather than a caught violation: nothing is written, and a surrounding transaction stays usable.
    // Without tags or custom fields this is one statement, with no transaction of its own.
    insert: (contact) => {
      const inserted = insertOne(contact).pipe(
        Effect.flatMap((rows) => rows.length > 0 ? Effect.void : Effect.fail(new DuplicateContact({ email: contact.email }))),
      )
      const hasChildren = contact.tags.length > 0 || contact.customFields.length > 0
      return (hasChildren ? sql.withTransaction(Effect.zipRight(inserted, insertChildren([contact]))) : inserted).pipe(
        refuseDuplicate("contacts.insert", contact.email),
      )
    },

    insertMany: (contacts) => {
      const candidates = firstPerAddress(contacts)
      if (candidates.length === 0) return Effect.succeed([])
      const write = Effect.gen(function* () {
        const rows = candidates.map(contactRow)
        const returned: ReadonlyArray<{ readonly [column: string]: unknown }> = yield* sql.onDialectOrElse({
          pg: () => insertByColumns(sql, rows),
          orElse: () => insertRows(sql, "contacts", rows, sql.literal("ON CONFLICT (account_id, email) DO NOTHING RETURNING id")),
        })
        const insertedIds = new Set(returned.map((row) => row["id"]))
        const inserted = candidates.filter((contact) => insertedIds.has(contact.id))
        yield* insertChildren(inserted)
        return inserted
      })
      // Without tags or custom fields the contacts are all there is to write, and insertRows makes its chunks one
      // transaction: no transaction (or savepoint, inside the caller's) around it, which would cost two round trips.
      const hasChildren = candidates.some((contact) => contact.tags.length > 0 || contact.customFields.length > 0)
      return (hasChildren ? sql.withTransaction(write) : write).pipe(orStoreError("contacts.insertMany"))
    },

    // With an expected status, the WHERE clause is the compare-and-set: on Postgres, an UPDATE that meets a row a
    // concurrent transaction is changing waits for it to end, then checks the condition again on the row it left.
    update: (contact, options) =>
      recoverable(sql`UPDATE contacts SET ${sql.update(scalarColumns(contact))}
        WHERE account_id = ${contact.accountId} AND id = ${contact.id}${options?.expectedStatus === undefined
          ? sql.literal("")
          : sql` AND status = ${options.expectedStatus}`}
        RETURNING id`).pipe(
        Effect.map((rows) => rows.length > 0),
        refuseDuplicate("contacts.update", contact.email),
      ),

    replaceCustomFields: (accountId, contactId, fields) =>
      whenOwned(accountId, contactId, Effect.zipRight(
        sql`DELETE FROM contact_custom_fields WHERE account_id = ${accountId} AND contact_id = ${contactId}`,
        insertRows(sql, "contact_custom_fields", fields.map((field) => fieldRow({ id: contactId, accountId }, field)),
          sql.literal("ON CONFLICT (contact_id, key) DO NOTHING")),
      )).pipe(orStoreError("contacts.replaceCustomFields")),

    addTags: (accountId, contactId, tags) =>
      whenOwned(accountId, contactId,
        insertRows(sql, "contact_tags", tags.map((tag) => tagRow({ id: contactId, accountId }, tag)),
          sql.literal("ON CONFLICT (contact_id, tag) DO NOTHING"))).pipe(orStoreError("contacts.addTags")),

    removeTag: (accountId, contactId, tag) =>
      sql`DELETE FROM contact_tags WHERE account_id = ${accountId} AND contact_id = ${contactId} AND tag = ${tag}
        RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), orStoreError("contacts.removeTag")),

    findById: (accountId, id) =>
      select(accountId, sql`c.id = ${id}`).pipe(Effect.map((found) => Option.fromNullable(found[0])),
        orStoreError("contacts.findById")),

    findByEmail: (accountId, email) =>
      select(accountId, sql`c.email = ${email}`).pipe(Effect.map((found) => Option.fromNullable(found[0])),
        orStoreError("contacts.findByEmail")),

    // One row per list found (at least one): the contact's columns and the suppression's (prefixed s_), each null
    // when absent, the same on every row, and the id of one of the account's lists among `listIds` (l_id).
    findAddress: (accountId, email, listIds = []) =>
      sql`SELECT c.*, s.id AS s_id, s.reason AS s_reason, s.details AS s_details, s.created_at AS s_created_at,
          s.updated_at AS s_updated_at${listIds.length === 0 ? sql.literal("") : sql`, l.id AS l_id`}
        FROM (SELECT 1 AS one) address
        LEFT JOIN contacts c ON c.account_id = ${accountId} AND c.email = ${email}
        LEFT JOIN suppressions s ON s.account_id = ${accountId} AND s.email = ${email}${listIds.length === 0
          ? sql.literal("")
          : sql` LEFT JOIN contact_lists l ON l.account_id = ${accountId} AND l.id IN ${sql.in([...new Set(listIds)])}`}`.pipe(
        Effect.flatMap((rows) => {
          const row = rows[0]
          const listIds = rows.flatMap((found) => typeof found.l_id === "string" ? [found.l_id] : [])
          const hasContact = row?.id !== null && row?.id !== undefined
          const hasSuppression = row?.s_id !== null && row?.s_id !== undefined
          // A new address (the common case of a subscribe) has neither: nothing to decode.
          if (!hasContact && !hasSuppression) {
            return Effect.succeed({ contact: Option.none<Contact>(), suppression: Option.none<Suppression>(), listIds })
          }
          const contact = !hasContact
            ? Effect.succeed(Option.none<Contact>())
            : decodeContactRows([row]).pipe(Effect.flatMap(complete(accountId)), Effect.map((found) => Option.fromNullable(found[0])))
          const suppression = !hasSuppression
            ? Effect.succeed(Option.none<Suppression>())
            : decodeSuppressionRows([{
              id: row.s_id, account_id: accountId, email, reason: row.s_reason, details: row.s_details,
              created_at: row.s_created_at, updated_at: row.s_updated_at,
            }]).pipe(Effect.map((found) => Option.map(Option.fromNullable(found[0]), suppressionFromRow)))
          return Effect.map(Effect.all({ contact, suppression }), (found) => ({ ...found, listIds }))
        }),
        orStoreError("contacts.findAddress"),
      ),

    findByEmails: (accountId, emails) => selectIn(accountId, "email", emails).pipe(orStoreError("contacts.findByEmails")),

    findByIds: (accountId, ids) => selectIn(accountId, "id", ids).pipe(orStoreError("contacts.findByIds")),

    list: (accountId, query) => {
      const where = contactFilter(sql, accountId, query)
      const page = sql`SELECT c.* FROM contacts c WHERE ${where} ${contactOrder(sql, query.sortBy, query.sortOrder)}
        LIMIT ${query.limit} OFFSET ${offsetOf(query)}`.pipe(Effect.flatMap(decodeContactRows),
        Effect.flatMap(complete(accountId)))
      const total = sql`SELECT COUNT(*) AS count FROM contacts c WHERE ${where}`.pipe(Effect.flatMap(decodeCount))
      return Effect.all({ contacts: page, counted: total }, { concurrency: 2 }).pipe(
        Effect.map(({ contacts, counted }) => ({ contacts, total: counted[0]?.count ?? 0 })),
        orStoreError("contacts.list"),
      )
    },

    listAfter: (accountId, filter, afterId, size) =>
      sql`SELECT c.* FROM contacts c WHERE ${contactFilter(sql, accountId, filter)}
        ${afterId === undefined ? sql.literal("") : sql`AND c.id > ${afterId}`}
        ORDER BY c.id ASC LIMIT ${size}`.pipe(
        Effect.flatMap(decodeContactRows),
        Effect.flatMap(complete(accountId)),
        orStoreError("contacts.listAfter"),
      ),

    // Tags, custom fields and list memberships go with the contact through ON DELETE CASCADE.
    delete: (accountId, id) =>
      sql`DELETE FROM contacts WHERE account_id = ${accountId} AND id = ${id} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        orStoreError("contacts.delete"),
      ),

    deleteMany: (accountId, ids) =>
      forEachChunk(sql, [...new Set(ids)], maxInList, (chunk) =>
        sql`DELETE FROM contacts WHERE account_id = ${accountId} AND ${sql.in("id", chunk)} RETURNING id`).pipe(
        Effect.map((rows) => rows.length),
        orStoreError("contacts.deleteMany"),
      ),

    countActive: (accountId) =>
      sql`SELECT COUNT(*) AS count FROM contacts WHERE account_id = ${accountId} AND status = 'ACTIVE'`.pipe(
        Effect.flatMap(decodeCount),
        Effect.map((rows) => rows[0]?.count ?? 0),
        orStoreError("contacts.countActive"),
      ),

    tagCounts: (accountId) =>
      sql`SELECT tag AS name, COUNT(*) AS count FROM contact_tags WHERE account_id = ${accountId}
        GROUP BY tag ORDER BY tag`.pipe(Effect.flatMap(decodeTagCounts), orStoreError("contacts.tagCounts")),
  }
}
