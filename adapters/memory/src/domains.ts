/** Sending domains in memory, keyed by id; a hostname is unique within its account. */
import {
  compareDomains, type Domain, type DomainId, DomainAlreadyExists, type DomainRepository, matchesDomainQuery, slicePage,
} from "@mailroom/core"
import { Effect, Option } from "effect"
import type { MemoryDb } from "./db.js"

const copyDate = (date: Date | null) => date === null ? null : new Date(date.getTime())

const copy = (domain: Domain): Domain => ({
  ...domain,
  records: structuredClone(domain.records),
  dkim: { ...domain.dkim },
  createdAt: new Date(domain.createdAt.getTime()),
  verifiedAt: copyDate(domain.verifiedAt),
  lastCheckedAt: copyDate(domain.lastCheckedAt),
  failingSince: copyDate(domain.failingSince),
})

export const makeDomainRepository = (db: MemoryDb): DomainRepository => {
  const rows = db.table<DomainId, Domain>()
  const find = (accountId: string, id: string) => {
    const row = rows.get(id as DomainId)
    return row?.accountId === accountId ? row : undefined
  }
  const ofAccount = (accountId: string) => [...rows.values()].filter((domain) => domain.accountId === accountId)
  return {
    insert: (domain) =>
      Effect.flatMap(
        db.atomic(() => {
          if (ofAccount(domain.accountId).some((other) => other.hostname === domain.hostname)) return false
          rows.set(domain.id, copy(domain))
          return true
        }),
        (inserted) => inserted ? Effect.void : Effect.fail(new DomainAlreadyExists({ hostname: domain.hostname })),
      ),
    update: (domain) => db.atomic(() => {
      const current = find(domain.accountId, domain.id)
      if (current === undefined) return false
      rows.set(domain.id, copy({
        ...current,
        status: domain.status,
        records: domain.records,
        spfValue: domain.spfValue,
        verifiedAt: domain.verifiedAt,
        lastCheckedAt: domain.lastCheckedAt,
        failingSince: domain.failingSince,
      }))
      return true
    }),
    findById: (accountId, id) => db.atomic(() => Option.map(Option.fromNullable(find(accountId, id)), copy)),
    findByHostname: (accountId, hostname) =>
      db.atomic(() => Option.map(Option.fromNullable(ofAccount(accountId).find((domain) => domain.hostname === hostname)), copy)),
    list: (accountId, query) => db.atomic(() => {
      const domains = ofAccount(accountId).filter((domain) => matchesDomainQuery(domain, query)).sort(compareDomains)
      return { domains: slicePage(domains, query).map(copy), total: domains.length }
    }),
    count: (accountId) => db.atomic(() => ofAccount(accountId).length),
    delete: (accountId, id) => db.atomic(() => find(accountId, id) !== undefined && rows.delete(id)),
    listForRecheck: (after, limit) => db.atomic(() =>
      [...rows.values()]
        .filter((domain) => domain.status !== "failed" && (after === undefined || domain.id > after))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, limit)
        .map(copy)),
  }
}
