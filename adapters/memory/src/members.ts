/** List memberships in memory: one table of memberships per list, and the member repository over it. Filters, counts
 *  and order come from core's suppression rules (isSuppressedMember), matchesSegment, compareMembers and slicePage, the rules the SQL
 *  backends translate. Memberships of a deleted contact go in the same step as the contact. */
import {
  type AccountId, compareContactMemberships, compareMembers, type ContactMembership, dynamicMemberId, type Contact, type ContactId, type ListId, type ListMembership, matchesSegment,
  type MemberId, type MemberPage, type MemberQuery, type MemberRecord, type MemberRepository, isSuppressedMember,
  type SegmentRules, slicePage,
} from "@mailroom/core"
import { Option } from "effect"
import { type ContactTable, contactResource } from "./contact-table.js"
import type { MemoryDb, MemoryTable } from "./db.js"
import type { ListTable } from "./lists.js"

/** What the consent tables know of a member's address: its account-level suppression and whether it opted out of the
 *  list's topic. */
export type AddressFacts = (accountId: AccountId, listId: string, email: string) => Pick<MemberRecord, "suppression" | "optedOutOfTopic">

export interface MembershipTable {
  /** The memberships of the list, current and removed, in no particular order. */
  readonly rowsOf: (listId: string) => ReadonlyArray<ListMembership>
  readonly find: (listId: string, contactId: string) => ListMembership | undefined
  readonly put: (membership: ListMembership) => void
  readonly remove: (listId: string, contactId: ContactId) => void
}

export const makeMembershipTable = (db: MemoryDb): MembershipTable => {
  const lists = db.table<string, MemoryTable<ContactId, ListMembership>>()
  const rowsOf = (listId: string) => lists.get(listId)
  db.onDelete(contactResource, (accountId, contactIds) => {
    for (const rows of lists.values()) {
      for (const contactId of contactIds) {
        if (rows.get(contactId as ContactId)?.accountId === accountId) rows.delete(contactId as ContactId)
      }
    }
  })
  return {
    rowsOf: (listId) => [...(rowsOf(listId)?.values() ?? [])],
    find: (listId, contactId) => rowsOf(listId)?.get(contactId as ContactId),
    put: (membership) => {
      let rows = rowsOf(membership.listId)
      if (rows === undefined) {
        rows = db.table<ContactId, ListMembership>()
        lists.set(membership.listId, rows)
      }
      rows.set(membership.contactId, membership)
    },
    remove: (listId, contactId) => {
      rowsOf(listId)?.delete(contactId)
    },
  }
}

const copyMembership = (membership: ListMembership): ListMembership => ({
  ...membership,
  addedAt: new Date(membership.addedAt.getTime()),
  removedAt: membership.removedAt === null ? null : new Date(membership.removedAt.getTime()),
})

const memberContact = (contact: Contact): MemberRecord["contact"] => ({
  id: contact.id,
  email: contact.email,
  firstName: contact.firstName,
  lastName: contact.lastName,
  status: contact.status,
  subscribedAt: new Date(contact.subscribedAt.getTime()),
  createdAt: new Date(contact.createdAt.getTime()),
})

/** The account's contacts that `rules` match at `now`: the members of a DYNAMIC list. */
export const matchingContacts = (
  contacts: ContactTable,
  accountId: AccountId,
  rules: SegmentRules,
  now: Date,
): ReadonlyArray<Contact> => contacts.rowsOf(accountId).filter((contact) => matchesSegment(contact, rules, now))

/** The current memberships of a list (a removed one is history, not a member). Memberships of deleted contacts are
 *  gone already: the table drops them when the contact is deleted. */
export const currentMemberships = (memberships: MembershipTable, listId: string): ReadonlyArray<ListMembership> =>
  memberships.rowsOf(listId).filter((membership) => membership.removedAt === null)

/** Counts over every member, then the page of the filter. */
const pageOf = (records: ReadonlyArray<MemberRecord>, query: MemberQuery): MemberPage => {
  const flagged = records.map((record) => ({ record, suppressed: isSuppressedMember(record) }))
  const suppressed = flagged.filter((member) => member.suppressed).length
  const selected = flagged
    .filter((member) => query.filter === "all" || member.suppressed === (query.filter === "suppressed"))
    .map((member) => member.record)
    .sort(compareMembers)
  return {
    members: slicePage(selected, query),
    counts: { total: records.length, active: records.length - suppressed, suppressed },
  }
}

export const makeMemberRepository = (
  db: MemoryDb,
  memberships: MembershipTable,
  lists: ListTable,
  contacts: ContactTable,
  addressFacts: AddressFacts,
): MemberRepository => {
  /** Applies `change` to the current memberships of the account's contacts among `contactIds`; answers their ids. */
  const changeCurrent = (
    accountId: AccountId,
    listId: string,
    contactIds: ReadonlyArray<ContactId>,
    change: (membership: ListMembership) => void,
  ) =>
    db.atomic(() => {
      if (lists.find(accountId, listId) === undefined) return []
      return [...new Set(contactIds)].filter((contactId) => {
        const membership = memberships.find(listId, contactId)
        if (membership === undefined || membership.accountId !== accountId || membership.removedAt !== null) return false
        change(membership)
        return true
      })
    })

  /** Makes the contact a current member of the list (a new row with `id`, or its removed row restored with a new
   *  addedAt); false when it is one already. Account and existence checks are the caller's. */
  const join = (accountId: AccountId, listId: ListId, contactId: ContactId, id: MemberId, at: Date) => {
    const existing = memberships.find(listId, contactId)
    if (existing !== undefined && existing.removedAt === null) return false
    memberships.put(existing === undefined
      ? { id, accountId, listId, contactId, addedAt: new Date(at.getTime()), removedAt: null }
      : { ...existing, addedAt: new Date(at.getTime()), removedAt: null })
    return true
  }

  const addToLists: MemberRepository["addToLists"] = (accountId, contactId, memberships, at) =>
    db.atomic(() => {
      if (contacts.find(accountId, contactId) === undefined) return []
      const seen = new Set<string>()
      return memberships.filter(({ listId }) => !seen.has(listId) && seen.add(listId) !== undefined)
        .filter((membership) => {
          const list = lists.find(accountId, membership.listId)
          return list !== undefined && join(accountId, list.id, contactId, membership.id, at)
        })
        .map((membership) => membership.listId)
    })

  return {
    page: (accountId, listId, query) =>
      db.atomic(() => {
        const records = lists.find(accountId, listId) === undefined ? [] : memberships.rowsOf(listId).flatMap((membership) => {
          const contact = contacts.find(accountId, membership.contactId)
          if (contact === undefined) return []
          return [{
            id: membership.id,
            contactId: contact.id,
            contact: memberContact(contact),
            addedAt: new Date(membership.addedAt.getTime()),
            removedAt: membership.removedAt === null ? null : new Date(membership.removedAt.getTime()),
            ...addressFacts(accountId, listId, contact.email),
          }]
        })
        return pageOf(records, query)
      }),

    pageMatching: (accountId, listId, rules, query, now) =>
      db.atomic(() =>
        pageOf(matchingContacts(contacts, accountId, rules, now).map((contact) => ({
          id: dynamicMemberId(listId, contact.id),
          contactId: contact.id,
          contact: memberContact(contact),
          addedAt: new Date(contact.createdAt.getTime()),
          removedAt: null,
          ...addressFacts(accountId, listId, contact.email),
        })), query)),

    find: (accountId, listId, contactId) =>
      db.atomic(() => {
        const membership = memberships.find(listId, contactId)
        return membership === undefined || membership.accountId !== accountId
          ? Option.none()
          : Option.some(copyMembership(membership))
      }),

    ofContact: (accountId, contactId) =>
      db.atomic(() =>
        lists.rowsOf(accountId).flatMap((list): ReadonlyArray<ContactMembership> => {
          const membership = memberships.find(list.id, contactId)
          return membership === undefined || membership.accountId !== accountId
            ? []
            : [{ membership: copyMembership(membership), listName: list.name, suppressionGroupId: list.suppressionGroupId }]
        }).sort(compareContactMemberships)),

    addCurrent: (accountId, listId, members, at) =>
      db.atomic(() => {
        const list = lists.find(accountId, listId)
        if (list === undefined) return []
        const seen = new Set<ContactId>()
        return members.filter(({ contactId }) => !seen.has(contactId) && seen.add(contactId) !== undefined)
          .filter((member) => contacts.find(accountId, member.contactId) !== undefined && join(accountId, list.id, member.contactId, member.id, at))
          .map((member) => member.contactId)
      }),

    addToLists,

    // Nothing to plan in memory: the general case serves a new contact as well.
    addNewContactToLists: addToLists,

    remove: (accountId, listId, contactIds) =>
      changeCurrent(accountId, listId, contactIds, (membership) => memberships.remove(listId, membership.contactId)),

    markRemoved: (accountId, listId, contactIds, at) =>
      changeCurrent(accountId, listId, contactIds, (membership) =>
        memberships.put({ ...membership, removedAt: new Date(at.getTime()) })),
  }
}
