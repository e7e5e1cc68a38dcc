/** Campaigns in memory: the campaigns, their resolved recipients keyed by campaign and contact, and their figures
 *  read from the message and tracking tables. The audience filter is core's table (campaignIneligibility), the same
 *  rule the SQL backends compile. */
import {
  type AccountId, type Campaign, type CampaignRepository, campaignIneligibility, audienceExcludes, contactDeletedReason,
  type IneligibleReason, matchesSegment, type TrackingHit,
} from "@mailroom/core"
import { Option } from "effect"
import type { ContactTable } from "./contact-table.js"
import type { MemoryDb, MemoryTable } from "./db.js"
import { currentMemberships, type MembershipTable } from "./members.js"
import type { MessageTable } from "./messages.js"
import type { SuppressionTable } from "./suppressions.js"
import type { TopicTable } from "./topics.js"

interface RecipientRow {
  readonly contactId: string
  readonly accountId: AccountId
  readonly email: string
  readonly messageId: string | null
  readonly reason: IneligibleReason | typeof contactDeletedReason | null
  readonly unsubscribedAt: Date | null
}

const copy = (c: Campaign): Campaign => structuredClone(c)

export const makeCampaignRepository = (
  db: MemoryDb,
  tables: {
    readonly contacts: ContactTable
    readonly memberships: MembershipTable
    readonly suppressions: SuppressionTable
    readonly topics: TopicTable
    readonly messages: MessageTable
    readonly hits: MemoryTable<string, TrackingHit>
  },
): CampaignRepository => {
  const campaigns = db.table<string, Campaign>()
  const recipients = db.table<string, MemoryTable<string, RecipientRow>>()
  const owned = (accountId: AccountId, id: string) => {
    const found = campaigns.get(id)
    return found !== undefined && found.accountId === accountId ? found : undefined
  }

  /** The audience's contacts in id order, each with the reason it is dropped (or null). */
  const audienceOf = (accountId: AccountId, audience: Parameters<CampaignRepository["audienceCounts"]>[1], at: Date) => {
    const ids = new Set<string>()
    for (const listId of audience.staticListIds) for (const m of currentMemberships(tables.memberships, listId)) ids.add(m.contactId)
    return tables.contacts.rowsOf(accountId)
      .filter((c) => c.status !== audienceExcludes && (ids.has(c.id) || audience.segments.some((rules) => matchesSegment(c, rules, at))))
      .sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
      .map((contact) => ({
        contact,
        reason: campaignIneligibility(audience, {
          contactStatus: contact.status,
          suppression: tables.suppressions.find(accountId, contact.email)?.reason ?? null,
          optedOutOfAny: audience.topicIds.some((t) => tables.topics.isOptedOut(accountId, t, contact.email)),
        }) ?? null,
      }))
  }

  const rowsOf = (id: string) => [...(recipients.get(id)?.values() ?? [])]

  return {
    save: (campaign) => db.atomic(() => { campaigns.set(campaign.id, copy(campaign)) }),
    findById: (accountId, id) => db.atomic(() => Option.map(Option.fromNullable(owned(accountId, id)), copy)),
    page: (accountId, query) => db.atomic(() => {
      const all = [...campaigns.values()]
        .filter((c) => c.accountId === accountId && (query.status === undefined || c.status === query.status))
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      return { campaigns: all.slice(query.offset, query.offset + query.limit).map(copy), total: all.length }
    }),
    delete: (accountId, id) => db.atomic(() => {
      if (owned(accountId, id) === undefined) return false
      campaigns.delete(id)
      recipients.delete(id)
      return true
    }),
    audienceCounts: (accountId, audience, at, options) => db.atomic(() => {
      const members = audienceOf(accountId, audience, at)
      return { total: members.length, eligible: options.eligible ? members.filter((m) => m.reason === null).length : null }
    }),
    queueChunk: (input) => db.atomic(() => {
      let rows = recipients.get(input.campaignId)
      if (rows === undefined) {
        rows = db.table<string, RecipientRow>()
        recipients.set(input.campaignId, rows)
      }
      const chunk = audienceOf(input.accountId, input.audience, input.at)
        .filter((m) => input.after === null || m.contact.id > input.after)
        .slice(0, input.limit)
      for (const { contact, reason } of chunk) {
        if (rows.has(contact.id)) continue
        rows.set(contact.id, {
          contactId: contact.id, accountId: input.accountId, email: contact.email,
          messageId: reason === null ? `${input.messagePrefix}${contact.id}` : null, reason, unsubscribedAt: null,
        })
      }
      return { covered: chunk.length, last: chunk.at(-1)?.contact.id ?? null }
    }),
    nextRecipients: (input) => db.atomic(() =>
      rowsOf(input.campaignId)
        .filter((r) => r.accountId === input.accountId && r.messageId !== null && (input.after === null || r.contactId > input.after))
        .sort((a, b) => a.contactId < b.contactId ? -1 : a.contactId > b.contactId ? 1 : 0)
        .flatMap((r) => {
          const contact = tables.contacts.find(input.accountId, r.contactId)
          return contact === undefined ? [] : [{
            contactId: r.contactId, email: r.email, messageId: r.messageId!, firstName: contact.firstName, lastName: contact.lastName,
            customFields: Object.fromEntries(contact.customFields.map((f) => [f.key, f.value])),
          }]
        })
        .slice(0, input.limit)),
    progress: (accountId, id, sendCursor) => db.atomic(() => {
      const rows = rowsOf(id).filter((r) => r.accountId === accountId)
      const dropped: Record<string, number> = {}
      const statuses: Record<string, number> = {}
      for (const r of rows) {
        if (r.reason !== null) dropped[r.reason] = (dropped[r.reason] ?? 0) + 1
        if (r.messageId === null) continue
        for (const mr of tables.messages.get(r.messageId)?.recipients ?? []) statuses[mr.status] = (statuses[mr.status] ?? 0) + 1
      }
      const engaged = (kind: string) => new Set([...tables.hits.values()]
        .filter((h) => h.accountId === accountId && h.campaignId === id && h.kind === kind && h.classification === "human")
        .map((h) => h.recipient)).size
      const status = (name: string) => statuses[name] ?? 0
      return {
        resolved: rows.length,
        dropped,
        queued: status("queued") + status("deferred"),
        sent: status("delivered") + status("bounced") + status("held"),
        delivered: status("delivered"),
        bounced: status("bounced"),
        opened: engaged("open"),
        clicked: engaged("click"),
        unsubscribed: rows.filter((r) => r.unsubscribedAt !== null).length,
        waiting: rows.filter((r) => r.messageId !== null && (sendCursor === null || r.contactId > sendCursor)).length,
      }
    }),
    dropDeleted: (input) => db.atomic(() => {
      const rows = recipients.get(input.campaignId)
      for (const r of rows?.values() ?? []) {
        const inRange = (input.after === null || r.contactId > input.after) && (input.upTo === null || r.contactId <= input.upTo)
        if (r.accountId === input.accountId && r.messageId !== null && inRange && tables.contacts.find(input.accountId, r.contactId) === undefined) {
          rows!.set(r.contactId, { ...r, messageId: null, reason: contactDeletedReason })
        }
      }
    }),
    recordUnsubscribe: (accountId, id, recipient, at) => db.atomic(() => {
      const rows = recipients.get(id)
      for (const r of rows?.values() ?? []) {
        const same = recipient.contactId === null ? r.email === recipient.email : r.contactId === recipient.contactId
        if (r.accountId === accountId && same && r.unsubscribedAt === null) rows!.set(r.contactId, { ...r, unsubscribedAt: at })
      }
    }),
    using: (accountId, ref) => db.atomic(() =>
      [...campaigns.values()]
        .filter((c) => c.accountId === accountId && (ref.kind === "design" ? c.templateId : c.brandId) === ref.id)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
        .map(copy)),
  }
}

