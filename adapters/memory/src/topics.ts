/** Topics and their opt-outs in memory: one table of topics per account and one table of opt-outs per topic, and the
 *  topic repository over them. Order and paging come from core's compareTopicsForDisplay, compareTopicsByCreation,
 *  matchesTopicQuery and slicePage. Deleting a topic drops its opt-outs in the same step. */
import {
  type AccountId, compareTopicsByCreation, compareTopicsForDisplay, DuplicateTopic, type EmailAddress,
  matchesTopicQuery, slicePage, type Topic, type TopicId, type TopicOptOut, type TopicRepository,
} from "@mailroom/core"
import { Either, Option } from "effect"
import type { MemoryDb, MemoryTable } from "./db.js"

export interface TopicTable {
  readonly find: (accountId: AccountId, id: string) => Topic | undefined
  readonly rowsOf: (accountId: AccountId) => ReadonlyArray<Topic>
  /** Whether the address opted out of the account's topic. */
  readonly isOptedOut: (accountId: AccountId, id: string, email: string) => boolean
  readonly optOutsOf: (id: string) => ReadonlyArray<TopicOptOut>
  readonly topics: MemoryTable<AccountId, MemoryTable<TopicId, Topic>>
  readonly optOuts: MemoryTable<TopicId, MemoryTable<string, TopicOptOut>>
}

const copyTopic = (topic: Topic): Topic =>
  ({ ...topic, createdAt: new Date(topic.createdAt.getTime()), updatedAt: new Date(topic.updatedAt.getTime()) })

export const makeTopicTable = (db: MemoryDb): TopicTable => {
  const topics = db.table<AccountId, MemoryTable<TopicId, Topic>>()
  const optOuts = db.table<TopicId, MemoryTable<string, TopicOptOut>>()
  const find = (accountId: AccountId, id: string) => topics.get(accountId)?.get(id as TopicId)
  return {
    find,
    rowsOf: (accountId) => [...(topics.get(accountId)?.values() ?? [])],
    isOptedOut: (accountId, id, email) => find(accountId, id) !== undefined && optOuts.get(id as TopicId)?.has(email) === true,
    optOutsOf: (id) => [...(optOuts.get(id as TopicId)?.values() ?? [])],
    topics,
    optOuts,
  }
}

export const makeTopicRepository = (db: MemoryDb, table: TopicTable): TopicRepository => {
  const rowsOf = (accountId: AccountId) => {
    let rows = table.topics.get(accountId)
    if (rows === undefined) {
      rows = db.table<TopicId, Topic>()
      table.topics.set(accountId, rows)
    }
    return rows
  }
  const nameTaken = (topic: Topic) =>
    table.rowsOf(topic.accountId).some((other) => other.name === topic.name && other.id !== topic.id)
  const optOutsOf = (id: TopicId) => {
    let rows = table.optOuts.get(id)
    if (rows === undefined) {
      rows = db.table<string, TopicOptOut>()
      table.optOuts.set(id, rows)
    }
    return rows
  }
  const sortedOptOuts = (id: TopicId) =>
    [...table.optOutsOf(id)].sort((a, b) =>
      b.createdAt.getTime() - a.createdAt.getTime() || (a.email < b.email ? -1 : a.email > b.email ? 1 : 0))

  return {
    insert: (topic) =>
      db.atomicEither(() => {
        if (nameTaken(topic)) return Either.left(new DuplicateTopic({ name: topic.name }))
        rowsOf(topic.accountId).set(topic.id, copyTopic(topic))
        return Either.void
      }),

    update: (topic) =>
      db.atomicEither(() => {
        const current = table.find(topic.accountId, topic.id)
        if (current === undefined) return Either.right(false)
        if (nameTaken(topic)) return Either.left(new DuplicateTopic({ name: topic.name }))
        rowsOf(topic.accountId).set(topic.id, copyTopic({ ...topic, createdAt: current.createdAt }))
        return Either.right(true)
      }),

    findById: (accountId, id) => db.atomic(() => Option.map(Option.fromNullable(table.find(accountId, id)), copyTopic)),

    findByIds: (accountId, ids) =>
      db.atomic(() => [...new Set(ids)].flatMap((id) => {
        const topic = table.find(accountId, id)
        return topic === undefined ? [] : [copyTopic(topic)]
      })),

    all: (accountId) => db.atomic(() => [...table.rowsOf(accountId)].sort(compareTopicsForDisplay).map(copyTopic)),

    list: (accountId, query) =>
      db.atomic(() => {
        const selected = [...table.rowsOf(accountId)].filter((topic) => matchesTopicQuery(topic, query))
          .sort(query.published ? compareTopicsForDisplay : compareTopicsByCreation)
        return {
          topics: slicePage(selected, query).map((topic) => ({ topic: copyTopic(topic), optOuts: table.optOutsOf(topic.id).length })),
          total: selected.length,
        }
      }),

    countOptOuts: (accountId, id) =>
      db.atomic(() => table.find(accountId, id) === undefined ? 0 : table.optOutsOf(id).length),

    delete: (accountId, id) =>
      db.atomic(() => {
        if (table.find(accountId, id) === undefined) return false
        table.topics.get(accountId)!.delete(id)
        table.optOuts.delete(id)
        return true
      }),

    optOuts: (accountId, id, page) =>
      db.atomic(() => {
        const rows = table.find(accountId, id) === undefined ? [] : sortedOptOuts(id)
        return { optOuts: slicePage(rows, page).map((row) => ({ ...row, createdAt: new Date(row.createdAt.getTime()) })), total: rows.length }
      }),

    optOut: (accountId, id, email: EmailAddress, at) =>
      db.atomic(() => {
        if (table.find(accountId, id) === undefined) return false
        const rows = optOutsOf(id)
        if (rows.has(email)) return false
        rows.set(email, { email, createdAt: new Date(at.getTime()) })
        return true
      }),

    optOutMany: (accountId, id, emails, at) =>
      db.atomic(() => {
        if (table.find(accountId, id) === undefined) return 0
        const rows = optOutsOf(id)
        let added = 0
        for (const email of new Set(emails)) {
          if (rows.has(email)) continue
          rows.set(email, { email, createdAt: new Date(at.getTime()) })
          added++
        }
        return added
      }),

    optInMany: (accountId, id, emails) =>
      db.atomic(() => table.find(accountId, id) === undefined
        ? 0
        : [...new Set(emails)].filter((email) => table.optOuts.get(id)?.delete(email) ?? false).length),

    optIn: (accountId, id, email) =>
      db.atomic(() => table.find(accountId, id) !== undefined && (table.optOuts.get(id)?.delete(email) ?? false)),

    optedOut: (accountId, email) =>
      db.atomic(() => table.rowsOf(accountId).filter((topic) => table.optOuts.get(topic.id)?.has(email) === true)
        .map((topic) => topic.id)),
  }
}
