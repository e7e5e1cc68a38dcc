/** A campaign works on sets: resolving a chunk of its audience is one INSERT … SELECT into campaign_recipients (the
 *  audience, the filtering table and the per-recipient key in one statement; on SQLite one read of the queue's key
 *  after it) whatever the chunk's size, and a send
 *  run reads its recipients and their contact fields in two statements; never a query per recipient. */
import { expect, layer } from "@effect/vitest"
import { type CampaignId, type ListId, resolveAudience, Store, type SuppressionId } from "@mailroom/core"
import { makeAccount, makeContact, makeMembers, uniqueText } from "@mailroom/testing"
import { Effect } from "effect"
import { backends, recordStatements, touching } from "./support.js"

const at = new Date("2026-01-01T00:00:00Z")

/** An account with a STATIC list of `count` contacts (one in ten suppressed) and a draft campaign to it. */
const setUp = (count: number) => Effect.gen(function* () {
  const store = yield* Store
  const account = makeAccount()
  yield* store.accounts.insert(account)
  const contacts = Array.from({ length: count }, (_, i) =>
    makeContact({ accountId: account.id, email: `${uniqueText("c")}@example.com`, customFields: { n: String(i) } }))
  yield* store.contacts.insertMany(contacts)
  const listId = uniqueText("lst") as ListId
  yield* store.lists.insert({
    id: listId, accountId: account.id, name: "Readers", description: null, type: "STATIC", segmentRules: null,
    suppressionGroupId: null, trackingEnabled: true, isArchived: false, createdAt: at, updatedAt: at, lastSyncedAt: null,
  })
  yield* store.members.addCurrent(account.id, listId, makeMembers(contacts.map((c) => c.id)), at)
  yield* store.suppressions.putMany(contacts.filter((_, i) => i % 10 === 0).map((c) => ({
    id: uniqueText("sup") as SuppressionId, accountId: account.id, email: c.email, reason: "Manual" as const, details: null,
    createdAt: at, updatedAt: at,
  })))
  const lists = yield* store.lists.findByIds(account.id, [listId])
  return { accountId: account.id, audience: resolveAudience(null, lists) }
})

for (const backend of backends) {
  layer(backend.layer, { timeout: "60 seconds" })(`campaign chunks on sets (${backend.name})`, (it) => {
    it.effect("a chunk of 40 and a chunk of 400 each take one INSERT … SELECT; a send run two reads; a chunk run again adds nobody", () =>
      Effect.gen(function* () {
        const store = yield* Store
        for (const size of [40, 400]) {
          const { accountId, audience } = yield* setUp(size)
          const campaignId = uniqueText("cmp") as CampaignId
          yield* store.campaigns.save({
            id: campaignId, accountId, name: "News", status: "running", listIds: [], topicId: null, templateId: null,
            brandId: null, subject: "News", html: null, text: "Hello", from: { email: "news@example.com" } as never, replyTo: null,
            variables: {}, scheduledAt: null, startedAt: at, finishedAt: null, stopReason: null, audienceSize: null,
            cursor: null, queuedAt: null, sendCursor: null, createdAt: at, updatedAt: at,
          })
          const input = { accountId, campaignId, audience, after: null, limit: 500, messagePrefix: `msg_${campaignId}_`, at }
          const { value: chunk, statements } = yield* recordStatements(store.campaigns.queueChunk(input))
          expect(chunk.covered).toBe(size)
          expect(touching(statements, "INSERT INTO", "campaign_recipients")).toHaveLength(1)
          // PostgreSQL answers the chunk's extent from the INSERT's statement; SQLite (no DML in a CTE) reads it from
          // the queue's key after.
          expect(statements).toHaveLength(backend.name === "postgres" ? 1 : 2)
          const figures = yield* store.campaigns.progress(accountId, campaignId, null)
          expect([figures.resolved, figures.dropped, figures.waiting]).toEqual([size, { MANUAL_SUPPRESSION: size / 10 }, size - size / 10])

          const { value: queued, statements: reads } = yield* recordStatements(
            store.campaigns.nextRecipients({ accountId, campaignId, after: null, limit: 500 }))
          expect(reads).toHaveLength(2)
          expect(queued).toHaveLength(size - size / 10)
          expect(chunk.last).toBe(queued.at(-1)!.contactId)
          expect(queued.every((r) => r.customFields["n"] !== undefined && r.messageId === `msg_${campaignId}_${r.contactId}`)).toBe(true)
          expect(queued.map((r) => r.contactId)).toEqual(queued.map((r) => r.contactId).sort())
          const later = yield* store.campaigns.nextRecipients({ accountId, campaignId, after: queued[4]!.contactId, limit: 10 })
          expect(later.map((r) => r.contactId)).toEqual(queued.slice(5, 15).map((r) => r.contactId))
          expect((yield* store.campaigns.progress(accountId, campaignId, queued[4]!.contactId)).waiting).toBe(size - size / 10 - 5)

          const again = yield* recordStatements(store.campaigns.queueChunk(input))
          expect(again.value).toEqual(chunk)
          expect(touching(again.statements, "INSERT INTO", "campaign_recipients")).toHaveLength(1)
          expect((yield* store.campaigns.progress(accountId, campaignId, null)).resolved).toBe(size)
        }
      }))
  })
}
