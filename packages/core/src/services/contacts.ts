/** The contacts API: create, read, update, delete, tags, bulk and export. Spec: audience "Contacts", rules 8 and 9.
 *  Direct contact edits record no consent evidence, add no list memberships and append no events (rule 9). Every
 *  method decodes its input with core's schemas, so an Effect host, the Promise facade and an HTTP client meet the
 *  same limits and the same VALIDATION_ERROR. */
import { Chunk, Effect, Either, Option, Stream } from "effect"
import { type Account, planLimits } from "../domain/account.js"
import {
  type Contact, type ContactFilter, type ContactId, type ContactStatus, type ContactTag, CreateContactInput,
  type CustomField, mergeTags, moveStatus, newContact, TagsInput, UpdateContactInput,
} from "../domain/contact.js"
import {
  BulkCreateInput, BulkDeleteInput, ContactFilterParams, type ContactFilterInput, type ContactListInput,
  ContactListOptions, TagParam,
} from "../domain/contact-query.js"
import { decodeInput } from "../validation.js"
import {
  DuplicateContact, FreeTierContactLimit, ResourceNotFound, type StoreError, type ValidationFailed,
} from "../errors.js"
import { activeRoom } from "../internal/active-room.js"
import { sentFields } from "../internal/patch.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { orNotFound } from "../internal/found.js"
import { serviceMethod } from "./tracing.js"
import { currentDate } from "../internal/time.js"

export interface BulkCreateResult {
  readonly created: number
  readonly skipped: number
  readonly errors: ReadonlyArray<{ readonly email: string; readonly error: string }>
}

/** Contacts read per round trip while exporting. */
const exportPageSize = 500

export class Contacts extends Effect.Service<Contacts>()("@mailroom/core/Contacts", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const method = yield* serviceMethod
    const ids = yield* Ids
    const now = currentDate

    const find = (account: Account, id: string) =>
      store.contacts.findById(account.id, id as ContactId).pipe(orNotFound("contact", id))

    /** How many more ACTIVE contacts the account may gain; Infinity when its plan has no cap. */
    const roomFor = (account: Account) =>
      Effect.map(activeRoom(store, account), (cap) => cap?.room ?? Number.POSITIVE_INFINITY)

    const freeTierLimit = (account: Account) => new FreeTierContactLimit({ limit: planLimits[account.plan].activeContacts ?? 0 })

    const tagsFor = (contactId: ContactId, names: ReadonlyArray<string>, at: Date): ReadonlyArray<ContactTag> =>
      names.map((tag) => ({ id: ids.make("tag", at), contactId, tag }))

    const customFieldsFor = (contactId: ContactId, fields: Readonly<Record<string, string>>, at: Date): ReadonlyArray<CustomField> =>
      Object.entries(fields).map(([key, value]) => ({ id: ids.make("customField", at), contactId, key, value }))

    /** A new contact from POST /contacts fields: status ACTIVE and source API unless given; no consent evidence. */
    const contactFrom = (account: Account, input: CreateContactInput, at: Date): Contact => {
      const id = ids.make("contact", at) as ContactId
      const status = input.status ?? "ACTIVE"
      return newContact({ id, accountId: account.id, email: input.email, at }, {
        firstName: input.firstName ?? null,
        lastName: input.lastName ?? null,
        phone: input.phone ?? null,
        metadata: input.metadata ?? null,
        source: input.source ?? "API",
        status,
        unsubscribedAt: status === "UNSUBSCRIBED" ? at : null,
        tags: tagsFor(id, [...new Set(input.tags ?? [])], at),
        customFields: customFieldsFor(id, input.customFields ?? {}, at),
      })
    }

    /** GET /contacts: one page, page 1 of 100 by createdAt desc unless the query says otherwise. */
    const list = method("Contacts.list")(function* (account: Account, input: ContactListInput = {}) {
      const query = yield* decodeInput(ContactListOptions, input)
      return yield* store.contacts.list(account.id, query)
    })

    const get = method("Contacts.get")(function* (account: Account, id: string) {
      return yield* find(account, id)
    })

    const create = method("Contacts.create")(function* (account: Account, fields: typeof CreateContactInput.Encoded) {
      const input = yield* decodeInput(CreateContactInput, fields)
      const contact = contactFrom(account, input, yield* now)
      const capped = contact.status === "ACTIVE" && planLimits[account.plan].activeContacts !== null
      const insert = Effect.gen(function* () {
        if (capped && (yield* roomFor(account)) < 1) return yield* Effect.fail(freeTierLimit(account))
        yield* store.contacts.insert(contact)
        return contact
      })
      // A contact without tags or custom fields is one INSERT, atomic on its own; the rest needs a transaction.
      const singleStatement = !capped && contact.tags.length === 0 && contact.customFields.length === 0
      return yield* (singleStatement ? insert : store.transaction(insert))
    })

    /** Timestamps that follow a status move: leaving for UNSUBSCRIBED stamps unsubscribedAt, returning to ACTIVE from
     *  UNSUBSCRIBED or PENDING stamps subscribedAt ("time the contact (re)subscribed"). */
    const stampMove = (contact: Contact, to: ContactStatus, at: Date): Partial<Contact> =>
      contact.status === to ? {}
      : to === "UNSUBSCRIBED" ? { status: to, unsubscribedAt: at }
      : to === "ACTIVE" && (contact.status === "UNSUBSCRIBED" || contact.status === "PENDING")
        ? { status: to, subscribedAt: at }
        : { status: to }

    /** PATCH /contacts/{id}: the status move is decided from the stored status and written only while the contact
     *  still has it (a compare-and-set, store.contacts.update's `expectedStatus`). A concurrent move that committed
     *  in between makes the write miss; the move is then decided again from the status it left, so that every
     *  history of concurrent moves is one that some order of them allows (a move after COMPLAINED is refused). Each
     *  try is a transaction of its own: a missed write may still hold the contact's row lock (Postgres), and a try
     *  that went on to lock the account (a move to ACTIVE under a cap) could then deadlock with one that holds it. */
    const update = method("Contacts.update")(function* (account: Account, id: string, fields: typeof UpdateContactInput.Encoded) {
      const input = yield* decodeInput(UpdateContactInput, fields)
      for (;;) {
        const written = yield* store.transaction(updateOnce(account, id, input))
        if (Option.isSome(written)) return written.value
      }
    })

    /** One try of `update`: none when the status changed between the read and the write. */
    const updateOnce = (account: Account, id: string, input: UpdateContactInput) => Effect.gen(function* () {
      const current = yield* find(account, id)
      const at = yield* now
      const status = input.status === undefined ? current.status : yield* Either.match(moveStatus(current.status, input.status), {
        onLeft: (error) => Effect.fail(error),
        onRight: (to) => Effect.succeed(to),
      })
      if (status === "ACTIVE" && current.status !== "ACTIVE" && (yield* roomFor(account)) < 1) {
        return yield* Effect.fail(freeTierLimit(account))
      }
      const next: Contact = {
        ...current,
        ...sentFields(input, ["email", "firstName", "lastName", "phone", "metadata", "source"]),
        ...stampMove(current, status, at),
        ...(input.customFields !== undefined ? { customFields: customFieldsFor(current.id, input.customFields, at) } : {}),
        updatedAt: at,
      }
      if (!(yield* store.contacts.update(next, { expectedStatus: current.status }))) return Option.none<Contact>()
      if (input.customFields !== undefined) yield* store.contacts.replaceCustomFields(account.id, current.id, next.customFields)
      return Option.some(next)
    })

    const remove = method("Contacts.delete")(function* (account: Account, id: string) {
      const deleted = yield* store.contacts.delete(account.id, id as ContactId)
      if (!deleted) return yield* Effect.fail(new ResourceNotFound({ resource: "contact", id }))
    }, store.transaction)

    const addTags = method("Contacts.addTags")(function* (account: Account, id: string, names: ReadonlyArray<string>) {
      const { tags } = yield* decodeInput(TagsInput, { tags: names })
      const current = yield* find(account, id)
      const existing = current.tags.map((t) => t.tag)
      const merged = yield* Either.match(mergeTags(existing, tags), {
        onLeft: (error) => Effect.fail(error),
        onRight: (all) => Effect.succeed(all),
      })
      const added = merged.filter((tag) => !existing.includes(tag))
      yield* store.contacts.addTags(account.id, current.id, tagsFor(current.id, added, yield* now))
      return yield* find(account, id)
    }, store.transaction)

    const removeTag = method("Contacts.removeTag")(function* (account: Account, id: string, name: string) {
      const { tag } = yield* decodeInput(TagParam, { tag: name })
      const current = yield* find(account, id)
      const removed = yield* store.contacts.removeTag(account.id, current.id, tag)
      if (!removed) return yield* Effect.fail(new ResourceNotFound({ resource: "tag", id: tag }))
      return yield* find(account, id)
    }, store.transaction)

    const tags = method("Contacts.tags")(function* (account: Account) {
      const counts = yield* store.contacts.tagCounts(account.id)
      // Tag definitions (colour, shared definition) are not created through this API: every tag is a plain name.
      return counts.map(({ name, count }) => ({ name, count, color: null, definitionId: null }))
    })

    /** POST /contacts/bulk: creates new addresses, never updates existing ones; set-based writes. */
    const bulkCreate = method("Contacts.bulkCreate")(function* (account: Account, fields: typeof BulkCreateInput.Encoded) {
      const input = yield* decodeInput(BulkCreateInput, fields)
      const at = yield* now
      const errors: Array<{ email: string; error: string }> = []
      let skipped = 0
      /** An address sent twice, or already taken: skipped, or an error when the caller asked for them. */
      const duplicate = (email: string) => {
        if (input.skipDuplicates) skipped++
        else errors.push({ email, error: new DuplicateContact({ email }).message })
      }
      const seen = new Set<string>()
      const fresh: Array<CreateContactInput> = []
      for (const item of input.contacts) {
        if (seen.has(item.email)) duplicate(item.email)
        else {
          seen.add(item.email)
          fresh.push(item)
        }
      }
      /** Inserts `candidates`; the store skips the addresses already taken (by an earlier contact or a concurrent
       *  writer) and answers the contacts it wrote. */
      const insert = (candidates: ReadonlyArray<Contact>) =>
        Effect.map(store.contacts.insertMany(candidates), (inserted): BulkCreateResult => {
          const written = new Set(inserted.map((contact) => contact.email))
          for (const contact of candidates) if (!written.has(contact.email)) duplicate(contact.email)
          return { created: inserted.length, skipped, errors }
        })
      // Without a cap on ACTIVE contacts the insert alone tells the taken addresses apart: one statement, atomic on its
      // own (the store makes its chunks and child rows one transaction), with no read before it.
      if (planLimits[account.plan].activeContacts === null) {
        return yield* insert(fresh.map((item) => contactFrom(account, item, at)))
      }
      // With a cap, the addresses already taken are read first so that only new ACTIVE contacts use up the room, in one
      // transaction with the account locked.
      return yield* store.transaction(Effect.gen(function* () {
        const existing = new Set((yield* store.contacts.findByEmails(account.id, fresh.map((c) => c.email))).map((c) => c.email))
        let room = yield* roomFor(account)
        const candidates: Array<Contact> = []
        for (const item of fresh) {
          if (existing.has(item.email)) {
            duplicate(item.email)
            continue
          }
          const contact = contactFrom(account, item, at)
          if (contact.status === "ACTIVE") {
            if (room < 1) {
              errors.push({ email: item.email, error: freeTierLimit(account).message })
              continue
            }
            room--
          }
          candidates.push(contact)
        }
        return yield* insert(candidates)
      }))
    })

    const bulkDelete = method("Contacts.bulkDelete")(function* (account: Account, ids: ReadonlyArray<string>) {
      const { contactIds } = yield* decodeInput(BulkDeleteInput, { contactIds: ids })
      const deleted = yield* store.contacts.deleteMany(account.id, [...new Set(contactIds)])
      return { deleted, requested: contactIds.length }
    }, store.transaction)

    /** Every contact matching `filter`, ordered by id, read page by page so that memory stays flat. */
    const exportContacts = (account: Account, input: ContactFilterInput = {}): Stream.Stream<Contact, ValidationFailed | StoreError> =>
      Stream.unwrap(Effect.map(decodeInput(ContactFilterParams, input), (filter) => exportMatching(account, filter)))

    const exportMatching = (account: Account, filter: ContactFilter): Stream.Stream<Contact, StoreError> =>
      Stream.paginateChunkEffect(undefined as ContactId | undefined, (after) =>
        store.contacts.listAfter(account.id, filter, after, exportPageSize).pipe(
          Effect.map((page) => [
            Chunk.fromIterable(page),
            page.length < exportPageSize ? Option.none() : Option.some(page[page.length - 1]!.id),
          ] as const),
        ))

    return {
      list, get, create, update, delete: remove, addTags, removeTag, tags, bulkCreate, bulkDelete,
      export: exportContacts,
    } as const
  }),
}) {}
