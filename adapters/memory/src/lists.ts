/** Contact lists in memory: one table of lists per account, and the list repository over it. Filters and order come
 *  from core's matchesListQuery, compareLists and slicePage; contactCount from the membership table or, for a DYNAMIC
 *  list, from core's matchesSegment. */
import {
  type AccountId, compareLists, type ContactList, type ListId, type ListRepository, matchesListQuery, slicePage,
} from "@mailroom/core"
import { Option } from "effect"
import type { ContactTable } from "./contact-table.js"
import type { MemoryDb, MemoryTable } from "./db.js"
import { currentMemberships, matchingContacts, type MembershipTable } from "./members.js"

export interface ListTable {
  /** The account's list, or undefined (also for another account's id). */
  readonly find: (accountId: AccountId, id: string) => ContactList | undefined
  readonly rowsOf: (accountId: AccountId) => ReadonlyArray<ContactList>
  readonly put: (list: ContactList) => void
}

export const makeListTable = (db: MemoryDb): ListTable => {
  const accounts = db.table<AccountId, MemoryTable<ListId, ContactList>>()
  return {
    find: (accountId, id) => accounts.get(accountId)?.get(id as ListId),
    rowsOf: (accountId) => [...(accounts.get(accountId)?.values() ?? [])],
    put: (list) => {
      let rows = accounts.get(list.accountId)
      if (rows === undefined) {
        rows = db.table<ListId, ContactList>()
        accounts.set(list.accountId, rows)
      }
      rows.set(list.id, list)
    },
  }
}

const copyList = (list: ContactList): ContactList => ({
  ...list,
  segmentRules: list.segmentRules === null ? null : structuredClone(list.segmentRules),
  createdAt: new Date(list.createdAt.getTime()),
  updatedAt: new Date(list.updatedAt.getTime()),
  lastSyncedAt: list.lastSyncedAt === null ? null : new Date(list.lastSyncedAt.getTime()),
})

export const makeListRepository = (
  db: MemoryDb,
  lists: ListTable,
  memberships: MembershipTable,
  contacts: ContactTable,
): ListRepository => {
  const counts = (list: ContactList, now: Date) => {
    if (list.segmentRules !== null) {
      const matching = matchingContacts(contacts, list.accountId, list.segmentRules, now).length
      return { current: matching, all: matching }
    }
    return { current: currentMemberships(memberships, list.id).length, all: memberships.rowsOf(list.id).length }
  }

  return {
    insert: (list) => db.atomic(() => lists.put(copyList(list))),

    update: (list) =>
      db.atomic(() => {
        const current = lists.find(list.accountId, list.id)
        if (current === undefined) return false
        lists.put({ ...copyList(list), type: current.type, createdAt: current.createdAt })
        return true
      }),

    findById: (accountId, id) => db.atomic(() => Option.map(Option.fromNullable(lists.find(accountId, id)), copyList)),

    findByIds: (accountId, ids) =>
      db.atomic(() => [...new Set(ids)].flatMap((id) => {
        const list = lists.find(accountId, id)
        return list === undefined ? [] : [copyList(list)]
      })),

    list: (accountId, query, now) =>
      db.atomic(() => {
        const matching = lists.rowsOf(accountId).filter((list) => matchesListQuery(list, query)).sort(compareLists)
        return {
          lists: slicePage(matching, query).map((list) => ({ list: copyList(list), contactCount: counts(list, now).current })),
          total: matching.length,
        }
      }),

    countMembers: (accountId, list, now) =>
      db.atomic(() => {
        const stored = lists.find(accountId, list.id)
        return stored === undefined ? { current: 0, all: 0 } : counts({ ...stored, segmentRules: list.segmentRules }, now)
      }),

    markSynced: (accountId, id, at) =>
      db.atomic(() => {
        const current = lists.find(accountId, id)
        if (current !== undefined) lists.put({ ...current, lastSyncedAt: new Date(at.getTime()) })
      }),
  }
}
