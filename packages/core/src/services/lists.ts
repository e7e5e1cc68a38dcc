/** The contact lists API: lists, their members and dynamic segments. Spec: audience "Contact lists", rules 2, 6 and 9,
 *  and the list rows of "Moves made by other operations". Member changes append list.member_* events in the same
 *  transaction as the change. */
import { Effect, Option } from "effect"
import type { Account } from "../domain/account.js"
import { type Contact, type ContactId, newContact } from "../domain/contact.js"
import type { EmailAddress } from "../domain/email.js"
import {
  checkSegmentRules, type ContactList, CreateListInput, type ListId, type ListQueryInput, ListQueryOptions,
  type ListWithCount, UpdateListInput,
} from "../domain/list.js"
import {
  AddMembersInput, type BlockedReason, createMissingBlock, type ListMember, type MemberCounts, memberEvent,
  type MemberQuery, type MemberQueryInput, MemberQueryOptions, newMembers, RemoveMembersInput, toListMember,
} from "../domain/member.js"
import { decodeInput } from "../validation.js"
import type { SegmentRules } from "../domain/segment.js"
import { suppressionBehind, type SuppressionReason } from "../domain/suppression.js"
import { ListNotFound, NotAMember, type StoreError, TopicNotFound, ValidationFailed } from "../errors.js"
import { activeRoom } from "../internal/active-room.js"
import { sentFields } from "../internal/patch.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { orFailWith } from "../internal/found.js"
import { serviceMethod } from "./tracing.js"
import { currentDate } from "../internal/time.js"

/** The topic of a tagged list as the single-list read shows it. */
export interface ListTopic {
  readonly id: string
  readonly name: string
  readonly publicLabel: string | null
}

/** A list as GET /contacts/lists/{id} answers it. */
export interface ListDetails extends ListWithCount {
  /** `_count.members`: membership rows, removed ones included (the `counts.total` of GET members). */
  readonly memberRows: number
  readonly suppressionGroup: ListTopic | null
}

export interface ListsPage {
  readonly lists: ReadonlyArray<ListWithCount>
  readonly total: number
}

export interface MembersPage {
  readonly members: ReadonlyArray<ListMember>
  readonly counts: MemberCounts
  /** Members matching the filter, over all pages. */
  readonly total: number
}

export interface AddMembersResult {
  /** Members added or restored by this call. */
  readonly added: number
  readonly alreadyMembers: number
  /** Ids unknown in the account (foreign ones included) and, without createMissing, unknown addresses. */
  readonly notFound: ReadonlyArray<string>
  readonly blocked: ReadonlyArray<{ readonly email: string; readonly reason: BlockedReason }>
  /** Contacts created through createMissing. */
  readonly created: number
}

const unique = <A>(items: ReadonlyArray<A> | undefined): ReadonlyArray<A> => [...new Set(items ?? [])]

export class Lists extends Effect.Service<Lists>()("@mailroom/core/Lists", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const method = yield* serviceMethod
    const ids = yield* Ids
    const now = currentDate

    /** The one place a list's topic is checked and described: a topic id must be one of the account's topics
     *  (TOPIC_NOT_FOUND otherwise, another account's included); the single-list read describes it. */
    const checkTopic = (account: Account, suppressionGroupId: string | null): Effect.Effect<void, TopicNotFound | StoreError> =>
      suppressionGroupId === null
        ? Effect.void
        : Effect.flatMap(store.topics.findById(account.id, suppressionGroupId), (topic) =>
          Option.isNone(topic) ? Effect.fail(new TopicNotFound({ topicId: suppressionGroupId })) : Effect.void)
    const describeTopic = (account: Account, suppressionGroupId: string | null): Effect.Effect<ListTopic | null, StoreError> =>
      suppressionGroupId === null
        ? Effect.succeed(null)
        : Effect.map(store.topics.findById(account.id, suppressionGroupId), (topic) =>
          Option.match(topic, {
            onNone: () => null,
            onSome: ({ id, name, publicLabel }) => ({ id, name, publicLabel }),
          }))

    const find = (account: Account, id: string, options?: { readonly forUpdate?: boolean }) =>
      store.lists.findById(account.id, id, options).pipe(orFailWith(() => new ListNotFound({ listId: id })))

    /** The list, refusing a DYNAMIC one: its members follow its rules and are never added or removed by hand. */
    const findStatic = (account: Account, id: string) =>
      Effect.flatMap(find(account, id), (list) =>
        list.type === "DYNAMIC"
          ? Effect.fail(new ValidationFailed({
            detail: `list ${list.id} is DYNAMIC: its members are the contacts matching its segmentRules and cannot be added or removed`,
          }))
          : Effect.succeed(list))

    const details = (account: Account, list: ContactList, at: Date) =>
      Effect.gen(function* () {
        const counts = yield* store.lists.countMembers(account.id, list, at)
        const suppressionGroup = yield* describeTopic(account, list.suppressionGroupId)
        return { list, contactCount: counts.current, memberRows: counts.all, suppressionGroup } satisfies ListDetails
      })

    const list = method("Lists.list")(function* (account: Account, input: ListQueryInput = {}) {
      const query = yield* decodeInput(ListQueryOptions, input)
      const page = yield* store.lists.list(account.id, query, yield* now)
      return page satisfies ListsPage
    })

    const get = method("Lists.get")(function* (account: Account, id: string) {
      return yield* details(account, yield* find(account, id), yield* now)
    })

    const create = method("Lists.create")(function* (account: Account, fields: typeof CreateListInput.Encoded) {
      const input = yield* decodeInput(CreateListInput, fields)
      const type = input.type ?? "STATIC"
      const segmentRules = yield* checkSegmentRules(type, input.segmentRules ?? null)
      const suppressionGroupId = input.suppressionGroupId ?? null
      yield* checkTopic(account, suppressionGroupId)
      const at = yield* now
      const created: ContactList = {
        id: ids.make("list", at) as ListId,
        accountId: account.id,
        name: input.name,
        description: input.description ?? null,
        type,
        segmentRules,
        suppressionGroupId,
        trackingEnabled: input.trackingEnabled ?? true,
        isArchived: false,
        createdAt: at,
        updatedAt: at,
        lastSyncedAt: null,
      }
      yield* store.lists.insert(created)
      return yield* details(account, created, at)
    }, store.transaction)

    /** The list, locked until the transaction ends: its writers read it, change some fields and write it back whole, so
     *  a second writer must read it only once the first one's change is in. */
    const findForUpdate = (account: Account, id: string) => find(account, id, { forUpdate: true })

    /** PATCH: only sent fields change. A DYNAMIC list keeps rules (null is refused) and a STATIC one takes none. */
    const update = method("Lists.update")(function* (account: Account, id: string, fields: typeof UpdateListInput.Encoded) {
      const input = yield* decodeInput(UpdateListInput, fields)
      const current = yield* findForUpdate(account, id)
      const segmentRules = input.segmentRules === undefined
        ? current.segmentRules
        : yield* checkSegmentRules(current.type, input.segmentRules)
      if (input.suppressionGroupId !== undefined) yield* checkTopic(account, input.suppressionGroupId)
      const at = yield* now
      const next: ContactList = {
        ...current,
        ...sentFields(input, ["name", "description", "isArchived", "suppressionGroupId", "trackingEnabled"]),
        segmentRules,
        updatedAt: at,
      }
      yield* store.lists.update(next)
      return yield* details(account, next, at)
    }, store.transaction)

    /** DELETE archives: the list and its memberships stay, with isArchived true. Archiving twice is no error. */
    const archive = method("Lists.archive")(function* (account: Account, id: string) {
      const current = yield* findForUpdate(account, id)
      if (current.isArchived) return
      yield* store.lists.update({ ...current, isArchived: true, updatedAt: yield* now })
    }, store.transaction)

    /** The members of a DYNAMIC list: its rules evaluated now, which stamps the list's lastSyncedAt. */
    const evaluate = (account: Account, listId: ListId, rules: SegmentRules, query: MemberQuery) =>
      Effect.gen(function* () {
        const at = yield* now
        const page = yield* store.members.pageMatching(account.id, listId, rules, query, at)
        yield* store.lists.markSynced(account.id, listId, at)
        return page
      })

    /** GET members. A DYNAMIC list is evaluated on every read. */
    const members = method("Lists.members")(function* (account: Account, id: string, input: MemberQueryInput = {}) {
      const query = yield* decodeInput(MemberQueryOptions, input)
      const current = yield* find(account, id)
      const page = current.segmentRules === null
        ? yield* store.members.page(account.id, current.id, query)
        : yield* evaluate(account, current.id, current.segmentRules, query)
      const total = query.filter === "all" ? page.counts.total : page.counts[query.filter]
      return { members: page.members.map(toListMember), counts: page.counts, total } satisfies MembersPage
    })

    /** A contact made by createMissing: ACTIVE, source API, no consent evidence (none was given). */
    const missingContact = (account: Account, email: EmailAddress, at: Date): Contact =>
      newContact({ id: ids.make("contact", at) as ContactId, accountId: account.id, email, at })

    /** The account's contacts among `contactIds` and among `emails`, skipping the round trip for an empty list. */
    const contactsByIds = (account: Account, contactIds: ReadonlyArray<string>) =>
      contactIds.length === 0 ? Effect.succeed([]) : store.contacts.findByIds(account.id, contactIds)
    const contactsByEmails = (account: Account, emails: ReadonlyArray<EmailAddress>) =>
      emails.length === 0 ? Effect.succeed([]) : store.contacts.findByEmails(account.id, emails)

    /** The account-level suppression of each of `emails` that has one, read in one set-based call. */
    const suppressionsOf = (account: Account, emails: ReadonlyArray<EmailAddress>) =>
      emails.length === 0
        ? Effect.succeed(new Map<EmailAddress, SuppressionReason>())
        : Effect.map(store.suppressions.eligibility(account.id, { kind: "marketing", topicId: null }, emails), ({ dropped }) =>
          new Map(dropped.flatMap(({ email, reason }) => {
            const suppression = suppressionBehind(reason)
            return suppression === null ? [] : [[email, suppression] as const]
          })))

    const appendMemberEvents = (
      type: "list.member_added" | "list.member_removed",
      account: Account,
      listId: ListId,
      contacts: ReadonlyArray<Contact>,
      at: Date,
    ) =>
      store.events.append(contacts.map((contact) => memberEvent(type, {
        id: ids.make("event", at),
        accountId: account.id,
        listId,
        contactId: contact.id,
        email: contact.email,
        source: "API",
        occurredAt: at,
      })))

    /** POST members. Contacts named by id, and existing addresses without createMissing, are added as they are
     *  (send-time suppression still skips them). With createMissing, unknown addresses become ACTIVE contacts (within
     *  the Free cap), except those with an account-level suppression, and contacts that unsubscribed, bounced,
     *  complained or were cleaned are refused: as the Subscriptions API would refuse them, with its codes. */
    const addMembers = method("Lists.addMembers")(function* (account: Account, id: string, fields: typeof AddMembersInput.Encoded) {
      const input = yield* decodeInput(AddMembersInput, fields)
      const target = yield* findStatic(account, id)
      const at = yield* now
      const contactIds = unique(input.contactIds)
      const emails = unique(input.emails)
      const createMissing = input.createMissing ?? false

      const candidates = new Map<ContactId, Contact>()
      const notFound: Array<string> = []
      const blocked: Array<{ email: string; reason: BlockedReason }> = []

      const named = yield* contactsByIds(account, contactIds)
      for (const contact of named) candidates.set(contact.id, contact)
      const foundIds = new Set<string>(candidates.keys())
      for (const contactId of contactIds) if (!foundIds.has(contactId)) notFound.push(contactId)

      const byEmail = new Map((yield* contactsByEmails(account, emails)).map((c) => [c.email as string, c]))
      const unknown: Array<EmailAddress> = []
      // An existing contact is judged by its status alone: the spec adds existing contacts as they are and leaves
      // their suppressions to send time.
      const admit = (contact: Contact) => {
        if (candidates.has(contact.id)) return
        const reason = createMissing ? createMissingBlock(contact.email, { contactStatus: contact.status, suppression: null }) : undefined
        if (reason === undefined) candidates.set(contact.id, contact)
        else blocked.push({ email: contact.email, reason })
      }
      for (const email of emails) {
        const contact = byEmail.get(email)
        if (contact !== undefined) admit(contact)
        else if (createMissing) unknown.push(email)
        else notFound.push(email)
      }

      // An address that is no contact yet is refused for its suppression, as the Subscriptions API refuses it.
      const suppressed = yield* suppressionsOf(account, unknown)
      const missing: Array<EmailAddress> = []
      for (const email of unknown) {
        const reason = createMissingBlock(email, { contactStatus: null, suppression: suppressed.get(email) ?? null })
        if (reason === undefined) missing.push(email)
        else blocked.push({ email, reason })
      }

      let created = 0
      if (missing.length > 0) {
        const room = (yield* activeRoom(store, account))?.room ?? Number.POSITIVE_INFINITY
        const creatable = missing.slice(0, room)
        for (const email of missing.slice(creatable.length)) blocked.push({ email, reason: "FREE_TIER_CONTACT_LIMIT" })
        const inserted = yield* store.contacts.insertMany(creatable.map((email) => missingContact(account, email, at)))
        created = inserted.length
        for (const contact of inserted) candidates.set(contact.id, contact)
        // A concurrent writer may have created some of these addresses between the read and the insert.
        const insertedEmails = new Set<string>(inserted.map((contact) => contact.email))
        const raced = creatable.filter((email) => !insertedEmails.has(email))
        if (raced.length > 0) for (const contact of yield* contactsByEmails(account, raced)) admit(contact)
      }

      const fresh = newMembers([...candidates.keys()], () => ids.make("member", at))
      const added = new Set<string>(yield* store.members.addCurrent(account.id, target.id, fresh, at))
      const addedContacts = [...candidates.values()].filter((contact) => added.has(contact.id))
      yield* appendMemberEvents("list.member_added", account, target.id, addedContacts, at)
      return {
        added: addedContacts.length,
        alreadyMembers: candidates.size - addedContacts.length,
        notFound,
        blocked,
        created,
      } satisfies AddMembersResult
    }, store.transaction)

    /** DELETE members: removal by the list owner deletes the current memberships (no unsubscribe, no history: rule 2).
     *  Fails with NotAMember when none of the named contacts is a current member; nothing changes then. */
    const removeMembers = method("Lists.removeMembers")(function* (account: Account, id: string, fields: typeof RemoveMembersInput.Encoded) {
      const input = yield* decodeInput(RemoveMembersInput, fields)
      const target = yield* findStatic(account, id)
      const named = new Map<ContactId, Contact>()
      for (const contact of yield* contactsByIds(account, unique(input.contactIds))) named.set(contact.id, contact)
      for (const contact of yield* contactsByEmails(account, unique(input.emails))) named.set(contact.id, contact)
      const removed = new Set<string>(yield* store.members.remove(account.id, target.id, [...named.keys()]))
      if (removed.size === 0) return yield* Effect.fail(new NotAMember({ listId: target.id }))
      const removedContacts = [...named.values()].filter((contact) => removed.has(contact.id))
      yield* appendMemberEvents("list.member_removed", account, target.id, removedContacts, yield* now)
      return { removed: removedContacts.length }
    }, store.transaction)

    return { list, get, create, update, archive, members, addMembers, removeMembers } as const
  }),
}) {}
