/** Account-level suppressions in memory: one table per account keyed by address, and the suppression repository over
 *  it. Filters, order and the send-time eligibility answer come from core (matchesSuppressionQuery,
 *  compareSuppressions, ineligibility): the rules the SQL backends compile. Suppressions outlive contacts (rule 8). */
import {
  type AccountId, compareSuppressions, type EmailAddress, type IneligibleReason, ineligibility, matchesSuppressionQuery,
  slicePage, splitEligibility, type Suppression, type SuppressionRepository,
} from "@mailroom/core"
import { Option } from "effect"
import type { ContactTable } from "./contact-table.js"
import type { MemoryDb, MemoryTable } from "./db.js"
import type { TopicTable } from "./topics.js"

export interface SuppressionTable {
  readonly find: (accountId: AccountId, email: string) => Suppression | undefined
}

export const copySuppression = (suppression: Suppression): Suppression => ({
  ...suppression,
  details: suppression.details === null ? null : structuredClone(suppression.details),
  createdAt: new Date(suppression.createdAt.getTime()),
  updatedAt: new Date(suppression.updatedAt.getTime()),
})

export const makeSuppressionStore = (db: MemoryDb, contacts: ContactTable, topics: TopicTable) => {
  const accounts = db.table<AccountId, MemoryTable<string, Suppression>>()
  const rowsOf = (accountId: AccountId) => {
    let rows = accounts.get(accountId)
    if (rows === undefined) {
      rows = db.table<string, Suppression>()
      accounts.set(accountId, rows)
    }
    return rows
  }
  const find = (accountId: AccountId, email: string) => accounts.get(accountId)?.get(email)

  const put = (suppression: Suppression) => {
    const current = find(suppression.accountId, suppression.email)
    const stored = current === undefined
      ? copySuppression(suppression)
      : copySuppression({ ...current, reason: suppression.reason, details: suppression.details, updatedAt: suppression.updatedAt })
    rowsOf(suppression.accountId).set(suppression.email, stored)
    return { suppression: copySuppression(stored), created: current === undefined }
  }

  const repository: SuppressionRepository = {
    findByEmail: (accountId, email) => db.atomic(() => Option.map(Option.fromNullable(find(accountId, email)), copySuppression)),

    put: (suppression) => db.atomic(() => put(suppression)),

    insertIfAbsent: (suppression) =>
      db.atomic(() => {
        if (find(suppression.accountId, suppression.email) !== undefined) return false
        rowsOf(suppression.accountId).set(suppression.email, copySuppression(suppression))
        return true
      }),

    putMany: (suppressions) =>
      db.atomic(() => {
        let added = 0
        let updated = 0
        const seen = new Set<string>()
        for (const suppression of suppressions) {
          if (seen.has(suppression.email)) continue
          seen.add(suppression.email)
          const current = find(suppression.accountId, suppression.email)
          if (current !== undefined && current.reason === suppression.reason) continue
          put(suppression)
          if (current === undefined) added++
          else updated++
        }
        return { added, updated }
      }),

    delete: (accountId, email) => db.atomic(() => accounts.get(accountId)?.delete(email) ?? false),

    deleteMany: (accountId, emails) =>
      db.atomic(() => [...new Set(emails)].filter((email) => accounts.get(accountId)?.delete(email) ?? false).length),

    list: (accountId, query) =>
      db.atomic(() => {
        const selected = [...(accounts.get(accountId)?.values() ?? [])]
          .filter((suppression) => matchesSuppressionQuery(suppression, query))
          .sort(compareSuppressions)
        return { suppressions: slicePage(selected, query).map(copySuppression), total: selected.length }
      }),

    eligibility: (accountId, scope, addresses: ReadonlyArray<EmailAddress>) =>
      db.atomic(() => {
        const reasons = new Map<string, IneligibleReason>()
        for (const email of new Set(addresses)) {
          const reason = ineligibility(scope, {
            contactStatus: contacts.findByEmail(accountId, email)?.status ?? null,
            suppression: find(accountId, email)?.reason ?? null,
            optedOut: scope.topicId !== null && topics.isOptedOut(accountId, scope.topicId, email),
          })
          if (reason !== undefined) reasons.set(email, reason)
        }
        return splitEligibility(addresses, reasons)
      }),
  }
  return { repository, table: { find } satisfies SuppressionTable }
}
