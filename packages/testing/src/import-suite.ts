/** Scenario tests of CSV import (the Imports service), run by every backend package against its own Store layer.
 *  Spec: audience "POST /contacts/import", rules 8 and 9, and the Free plan's cap. Each test makes its own account. */
import { expect, it } from "@effect/vitest"
import {
  type Account, Accounts, type Contact, type ContactList, type EmailAddress, IdsLive, type ImportRequest, Imports,
  importWriteBatch, type ListId, type Plan, servicesLayer, Store, StoreError,
} from "@mailroom/core"
import { Effect, Layer, Option, TestClock } from "effect"
import { fixtureTime, makeContact, uniqueText, makeMembers } from "./fixtures.js"
import { testTemplateEngine } from "./template-engine.js"

const mappings = JSON.stringify([
  { csvColumn: "Email", field: "email" },
  { csvColumn: "First", field: "firstName" },
  { csvColumn: "Last", field: "lastName" },
  { csvColumn: "Phone", field: "phone" },
])
const header = "Email,First,Last,Phone\n"

const request = (csv: string, extra: Partial<ImportRequest> = {}): ImportRequest =>
  ({ file: { name: "contacts.csv", content: csv }, mappings, ...extra })

/** `count` rows of fresh addresses under one prefix, so that no other test shares them. */
const rowsOf = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${i}@example.com,Name${i},,\n`).join("")

const freshAccount = (plan: Plan = "pro") =>
  Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "import suite", plan })).pipe(
    Effect.map(({ account }) => account),
  )

const newList = (account: Account, overrides: Partial<ContactList> = {}) =>
  Effect.gen(function* () {
    const store = yield* Store
    const list: ContactList = {
      id: uniqueText("lst") as ListId,
      accountId: account.id,
      name: "Imported",
      description: null,
      type: "STATIC",
      segmentRules: null,
      suppressionGroupId: null,
      trackingEnabled: true,
      isArchived: false,
      createdAt: fixtureTime,
      updatedAt: fixtureTime,
      lastSyncedAt: null,
      ...overrides,
    }
    yield* store.lists.insert(list)
    return list
  })

const importCsv = (account: Account, csv: string, extra: Partial<ImportRequest> = {}) =>
  Effect.flatMap(Imports, (imports) => imports.importCsv(account, request(csv, extra)))

const contactsOf = (account: Account, addresses: ReadonlyArray<string>) =>
  Effect.flatMap(Store, (store) => store.contacts.findByEmails(account.id, addresses as ReadonlyArray<EmailAddress>))

const byEmail = (contacts: ReadonlyArray<Contact>, address: string): Contact => {
  const found = contacts.find((contact) => contact.email === address)
  if (found === undefined) throw new Error(`no contact ${address}`)
  return found
}

const isMember = (account: Account, list: ContactList, contact: Contact) =>
  Effect.flatMap(Store, (store) => store.members.find(account.id, list.id, contact.id)).pipe(
    Effect.map(Option.match({ onNone: () => false, onSome: (membership) => membership.removedAt === null })),
  )

export const importSuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  it.layer(Layer.provideMerge(servicesLayer, Layer.mergeAll(storeLayer, IdsLive, testTemplateEngine)), { timeout: "60 seconds" })(
    `CSV import (${backend})`,
    (it) => {
      it.effect("new addresses become ACTIVE contacts from CSV_IMPORT with consent source import, recorded now", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(fixtureTime.getTime())
          const account = yield* freshAccount()
          const result = yield* importCsv(account, `${header}  Ada@Example.COM ,Ada,Lovelace,+1 415 555 0123\nbob@example.com,,,\n`, {
            tags: "Imported, spring-2024",
          })
          expect(result).toEqual({ imported: 2, skipped: 0, addedToList: 0, errors: [] })
          const created = yield* contactsOf(account, ["ada@example.com", "bob@example.com"])
          const [ada, bob] = [byEmail(created, "ada@example.com"), byEmail(created, "bob@example.com")]
          expect(ada).toMatchObject({
            firstName: "Ada", lastName: "Lovelace", phone: "+14155550123", status: "ACTIVE", source: "CSV_IMPORT",
            consentSource: "import", consentAt: fixtureTime, subscribedAt: fixtureTime, createdAt: fixtureTime,
            confirmedAt: null, unsubscribedAt: null, consentIp: null, consentText: null,
          })
          expect(ada.tags.map((t) => t.tag).sort()).toEqual(["imported", "spring-2024"])
          expect([bob.firstName, bob.lastName, bob.phone]).toEqual([null, null, null])
        }))

      it.effect("cells that look like formulas are stored exactly as given", () =>
        Effect.gen(function* () {
          const account = yield* freshAccount()
          yield* importCsv(account, `${header}=1+2@example.com,"=HYPERLINK(""http://x.example"")",@SUM(A1),\n`)
          const [contact] = yield* contactsOf(account, ["=1+2@example.com"])
          expect([contact?.firstName, contact?.lastName]).toEqual(["=HYPERLINK(\"http://x.example\")", "@SUM(A1)"])
        }))

      it.effect("existing addresses are skipped and not updated, whatever their status", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const account = yield* freshAccount()
          const kept = makeContact({ accountId: account.id, email: "kept@example.com", firstName: "Original", tags: ["old"] })
          const gone = makeContact({ accountId: account.id, email: "gone@example.com", status: "UNSUBSCRIBED" })
          yield* store.contacts.insertMany([kept, gone])
          const result = yield* importCsv(account, `${header}KEPT@example.com,Changed,,\ngone@example.com,X,,\nnew@example.com,N,,\n`, {
            tags: "fresh",
          })
          expect(result).toEqual({ imported: 1, skipped: 2, addedToList: 0, errors: [] })
          const after = yield* contactsOf(account, ["kept@example.com", "gone@example.com", "new@example.com"])
          expect(byEmail(after, "kept@example.com")).toMatchObject({ firstName: "Original", source: "API", consentSource: null })
          expect(byEmail(after, "kept@example.com").tags.map((t) => t.tag)).toEqual(["old"])
          expect(byEmail(after, "gone@example.com").status).toBe("UNSUBSCRIBED")
          expect(byEmail(after, "new@example.com").tags.map((t) => t.tag)).toEqual(["fresh"])
        }))

      it.effect("an address repeated in the file is created from its first row and later rows are skipped", () =>
        Effect.gen(function* () {
          const account = yield* freshAccount()
          const result = yield* importCsv(account, `${header}dup@example.com,First,,\nDUP@example.com,Second,,\ndup@example.com,Third,,\n`)
          expect(result).toEqual({ imported: 1, skipped: 2, addedToList: 0, errors: [] })
          expect((yield* contactsOf(account, ["dup@example.com"])).map((c) => c.firstName)).toEqual(["First"])
        }))

      it.effect("an address of another account is new in this one", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const [mine, theirs] = [yield* freshAccount(), yield* freshAccount()]
          yield* store.contacts.insert(makeContact({ accountId: theirs.id, email: "shared@example.com" }))
          expect((yield* importCsv(mine, `${header}shared@example.com,,,\n`)).imported).toBe(1)
        }))

      it.effect("rejected rows are reported one by one, in row order, while the valid rows are imported", () =>
        Effect.gen(function* () {
          const account = yield* freshAccount()
          const result = yield* importCsv(account,
            `${header}ok1@example.com,,,\nbad address@example.com,,,\nok2@example.com,,\n,,,\nok3@example.com,,,555\n`)
          expect(result.imported).toBe(1)
          expect(result.errors).toEqual([
            "row 3: \"bad address@example.com\" is not a valid email address (must not contain spaces or control characters)",
            "row 4: expected 4 cells, found 3",
            "row 5: the email cell is empty",
            "row 6: phone \"555\" is not an E.164 number such as +14155550123",
          ])
        }))

      it.effect("a header-only file imports nothing", () =>
        Effect.gen(function* () {
          const account = yield* freshAccount()
          expect(yield* importCsv(account, header)).toEqual({ imported: 0, skipped: 0, addedToList: 0, errors: [] })
        }))

      it.effect("with listId, imported contacts and existing ones found in the file become current members", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const account = yield* freshAccount()
          const list = yield* newList(account)
          const [member, outsider, removed] = [
            makeContact({ accountId: account.id, email: "member@example.com" }),
            makeContact({ accountId: account.id, email: "outsider@example.com", status: "BOUNCED" }),
            makeContact({ accountId: account.id, email: "removed@example.com" }),
          ]
          yield* store.contacts.insertMany([member, outsider, removed])
          yield* store.members.addCurrent(account.id, list.id, makeMembers([member.id, removed.id]), fixtureTime)
          yield* store.members.markRemoved(account.id, list.id, [removed.id], fixtureTime)
          const result = yield* importCsv(account,
            `${header}member@example.com,,,\noutsider@example.com,,,\nremoved@example.com,,,\nnew@example.com,,,\n`,
            { listId: list.id })
          // outsider and new are added, removed is restored; member already was one.
          expect(result).toEqual({ imported: 1, skipped: 3, addedToList: 3, errors: [] })
          const after = yield* contactsOf(account, ["outsider@example.com", "new@example.com"])
          for (const contact of [member, outsider, removed, byEmail(after, "new@example.com")]) {
            expect(yield* isMember(account, list, contact)).toBe(true)
          }
          // Joining the list changes nothing else: a bounced contact stays bounced, and send-time filtering skips it.
          expect(byEmail(after, "outsider@example.com").status).toBe("BOUNCED")
          const again = yield* importCsv(account, `${header}new@example.com,,,\n`, { listId: list.id })
          expect(again).toEqual({ imported: 0, skipped: 1, addedToList: 0, errors: [] })
        }))

      it.effect("a listId that is not one of the account's lists answers 404 and writes nothing", () =>
        Effect.gen(function* () {
          const [account, other] = [yield* freshAccount(), yield* freshAccount()]
          const foreign = yield* newList(other)
          for (const listId of [foreign.id, "lst_unknown"]) {
            const error = yield* Effect.flip(importCsv(account, `${header}nobody@example.com,,,\n`, { listId }))
            expect(error._tag === "ImportRejected" && [error.reason, error.detail]).toEqual(["LIST_NOT_FOUND", `list ${listId} was not found`])
          }
          expect(yield* contactsOf(account, ["nobody@example.com"])).toEqual([])
        }))

      it.effect("a DYNAMIC list cannot be filled by an import", () =>
        Effect.gen(function* () {
          const account = yield* freshAccount()
          const list = yield* newList(account, {
            type: "DYNAMIC",
            segmentRules: { all: [{ field: "email", operator: "endsWith", value: "@example.com" }] },
          })
          const error = yield* Effect.flip(importCsv(account, `${header}x@example.com,,,\n`, { listId: list.id }))
          expect(error._tag === "ImportRejected" && error.reason).toBe("INVALID_REQUEST")
          expect(yield* contactsOf(account, ["x@example.com"])).toEqual([])
        }))

      it.effect("a Free account fills up to 100 active contacts; further new rows are rejected with a message", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const account = yield* freshAccount("free")
          yield* store.contacts.insertMany([
            ...Array.from({ length: 97 }, () => makeContact({ accountId: account.id })),
            makeContact({ accountId: account.id, email: "old@example.com" }),
            makeContact({ accountId: account.id, status: "UNSUBSCRIBED" }),
          ])
          const list = yield* newList(account)
          const result = yield* importCsv(account,
            `${header}a@example.com,,,\nold@example.com,,,\nb@example.com,,,\nc@example.com,,,\nd@example.com,,,\n`,
            { listId: list.id })
          expect(result).toEqual({
            imported: 2,
            skipped: 1,
            addedToList: 3,
            errors: [
              "row 5: c@example.com was not imported: a Free account holds at most 100 active contacts",
              "row 6: d@example.com was not imported: a Free account holds at most 100 active contacts",
            ],
          })
          expect(yield* store.contacts.countActive(account.id)).toBe(100)
          expect(yield* contactsOf(account, ["c@example.com", "d@example.com"])).toEqual([])
        }))

      it.effect("an import appends no events and fires no webhooks (rule 9)", () =>
        Effect.gen(function* () {
          const store = yield* Store
          const account = yield* freshAccount()
          const list = yield* newList(account)
          yield* importCsv(account, `${header}${rowsOf(uniqueText("quiet"), 3)}`, { listId: list.id })
          expect(yield* store.events.list(account.id)).toEqual([])
        }))

      it.effect("a file refused as a whole writes nothing", () =>
        Effect.gen(function* () {
          const account = yield* freshAccount()
          const error = yield* Effect.flip(importCsv(account, `${header}first@example.com,,,\nsecond@example.com,"open,,\n`))
          expect(error._tag === "ImportRejected" && error.detail).toBe("malformed CSV on line 3: a quoted field starts here and is never closed")
          expect(yield* contactsOf(account, ["first@example.com"])).toEqual([])
        }))

      it.effect("1,000 rows are imported in several batches within one transaction", () =>
        Effect.gen(function* () {
          const account = yield* freshAccount()
          const prefix = uniqueText("bulk")
          const result = yield* importCsv(account, `${header}${rowsOf(prefix, 1_000)}`)
          expect(result).toEqual({ imported: 1_000, skipped: 0, addedToList: 0, errors: [] })
          const addresses = Array.from({ length: 1_000 }, (_, i) => `${prefix}-${i}@example.com`)
          expect((yield* contactsOf(account, addresses)).length).toBe(1_000)
        }))

      /** The service over a Store whose insertMany works once, then fails as `failure` says. */
      const importWithFailingInsert = (account: Account, csv: string, failure: "error" | "defect") =>
        Effect.gen(function* () {
          const store = yield* Store
          let calls = 0
          const failing = {
            ...store,
            contacts: {
              ...store.contacts,
              insertMany: (contacts: ReadonlyArray<Contact>) => {
                calls++
                if (calls === 1) return store.contacts.insertMany(contacts)
                return failure === "error"
                  ? Effect.fail(new StoreError({ operation: "contacts.insertMany", cause: "connection lost" }))
                  : Effect.die(new Error("process crashed mid-import"))
              },
            },
          }
          const exit = yield* Effect.exit(Effect.flatMap(Imports, (imports) => imports.importCsv(account, request(csv))).pipe(
            Effect.provide(Imports.Default.pipe(Layer.provide(Layer.succeed(Store, failing)))),
          ))
          return { exit, calls }
        })

      for (const failure of ["error", "defect"] as const) {
        it.effect(`a store ${failure} after the first batch of inserts leaves no contact of the file behind`, () =>
          Effect.gen(function* () {
            const account = yield* freshAccount()
            const prefix = uniqueText("atomic")
            const count = importWriteBatch * 2 + 10
            const { exit, calls } = yield* importWithFailingInsert(account, `${header}${rowsOf(prefix, count)}`, failure)
            expect(exit._tag).toBe("Failure")
            expect(calls).toBe(2)
            const addresses = Array.from({ length: count }, (_, i) => `${prefix}-${i}@example.com`)
            expect(yield* contactsOf(account, addresses)).toEqual([])
            const store = yield* Store
            expect(yield* store.contacts.countActive(account.id)).toBe(0)
          }))
      }
    },
  )
