/** CSV import: reads the file, then writes every new contact and list membership in one transaction. Spec: audience
 *  "POST /contacts/import", rules 8 and 9. An import records consent source `import`, clears no suppression and
 *  appends no events: CSV imports fire no webhooks. */
import { Effect, Option } from "effect"
import type { Account } from "../domain/account.js"
import { type Contact, type ContactId, newContact } from "../domain/contact.js"
import {
  type CsvFile, decodeImportRequest, type ImportOptions, type ImportRequest, type ImportResult,
  type ImportRow, planImport,
} from "../domain/csv-import.js"
import { newMembers } from "../domain/member.js"
import { readCsvFile } from "../internal/csv-reader.js"
import type { EmailAddress } from "../domain/email.js"
import { ImportRejected } from "../errors.js"
import { activeRoom } from "../internal/active-room.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { serviceMethod } from "./tracing.js"
import { currentDate } from "../internal/time.js"
import { nextTurn } from "../internal/next-turn.js"

/** Addresses looked up, contacts inserted and memberships added per store call. A driver like better-sqlite3 runs a
 *  call's statements synchronously, so one batch is also the longest stretch the import holds the event loop. */
export const importWriteBatch = 250

/** `write` applied to `items` in batches of `importWriteBatch`, with a turn of the event loop after each; answers the
 *  results of every batch, in order. The turn lets other requests run between the batches of an import. */
const inBatches = <A, B, E>(items: ReadonlyArray<A>, write: (batch: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>, E>) =>
  Effect.forEach(
    Array.from({ length: Math.ceil(items.length / importWriteBatch) }, (_, i) =>
      items.slice(i * importWriteBatch, (i + 1) * importWriteBatch)),
    (batch) => Effect.zipLeft(write(batch), nextTurn),
  ).pipe(Effect.map((results) => results.flat()))

export class Imports extends Effect.Service<Imports>()("@mailroom/core/Imports", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const method = yield* serviceMethod
    const ids = yield* Ids
    const now = currentDate

    /** A new contact from a row: ACTIVE, source CSV_IMPORT, consent source `import` recorded now, with the import's tags. */
    const contactFrom = (account: Account, row: ImportRow, tags: ReadonlyArray<string>, at: Date): Contact => {
      const id = ids.make("contact", at) as ContactId
      return newContact({ id, accountId: account.id, email: row.email, at }, {
        firstName: row.firstName,
        lastName: row.lastName,
        phone: row.phone,
        source: "CSV_IMPORT",
        consentSource: "import",
        consentAt: at,
        tags: tags.map((tag) => ({ id: ids.make("tag", at), contactId: id, tag })),
      })
    }

    /** The list the import fills: one of the account's STATIC lists. */
    const targetList = (account: Account, listId: string) =>
      store.lists.findById(account.id, listId).pipe(Effect.flatMap(Option.match({
        onNone: () => Effect.fail(new ImportRejected({ reason: "LIST_NOT_FOUND", detail: `list ${listId} was not found` })),
        onSome: (list) => list.type === "DYNAMIC"
          ? Effect.fail(new ImportRejected({
            reason: "INVALID_REQUEST",
            detail: `list ${listId} is DYNAMIC: its members follow its segment rules; import into a STATIC list`,
          }))
          : Effect.succeed(list),
      })))

    const existingContacts = (account: Account, emails: ReadonlyArray<EmailAddress>) =>
      inBatches(emails, (batch) => store.contacts.findByEmails(account.id, batch))

    /** Everything the import writes, in one transaction: the new contacts, then the memberships. */
    const write = method("Imports.write")(function* (account: Account, options: ImportOptions, file: CsvFile) {
      const list = options.listId === undefined ? undefined : yield* targetList(account, options.listId)
      const at = yield* now
      const room = yield* activeRoom(store, account)
      // Under a plan's cap, the addresses already taken must be known before choosing the rows that fit. Without a cap
      // they are not looked up first: the INSERT's ON CONFLICT passes over them, and they are handled below like
      // addresses a concurrent writer took.
      const existing = room === undefined
        ? []
        : yield* existingContacts(account, [...new Set(file.rows.map((row) => row.email))])
      const plan = planImport(file, new Set<string>(existing.map((contact) => contact.email)), room)

      const inserted = yield* inBatches(plan.create, (rows) =>
        store.contacts.insertMany(rows.map((row) => contactFrom(account, row, options.tags, at))))
      // A row not inserted holds an address already taken (by an existing contact, or by a concurrent writer between
      // the read and the insert): it counts as skipped, and its contact still joins the list as an existing one.
      const insertedEmails = new Set<string>(inserted.map((contact) => contact.email))
      const raced = plan.create.filter((row) => !insertedEmails.has(row.email)).map((row) => row.email)
      const racedContacts = list === undefined ? [] : yield* existingContacts(account, raced)

      const members = [...inserted, ...existing, ...racedContacts].map((contact) => contact.id)
      const added = list === undefined
        ? []
        : yield* inBatches(newMembers(members, () => ids.make("member", at)), (batch) =>
          store.members.addCurrent(account.id, list.id, batch, at))
      return {
        imported: inserted.length,
        skipped: plan.skipped + raced.length,
        addedToList: added.length,
        errors: plan.errors,
      } satisfies ImportResult
    }, store.transaction)

    /** POST /contacts/import. Fails with ImportRejected (invalid, list not found, too large) when the request or the file is refused as
     *  a whole; nothing is written then. Rows refused one by one are reported in `errors`. */
    const importCsv = method("Imports.importCsv")(function* (account: Account, request: ImportRequest) {
      const options = yield* decodeImportRequest(request)
      const file = yield* readCsvFile(options.content, options.mappings)
      return yield* write(account, options, file)
    })

    return { importCsv } as const
  }),
}) {}
