/** A campaign chunk works on sets: one read of its bounds, one INSERT … SELECT into campaign_recipients (the
 *  audience, the filtering table and the per-recipient key in one statement) and one INSERT … SELECT each for the
 *  messages, their recipients, their email.queued events and their message-log rows, whatever the chunk's size; never
 *  a query per recipient, and each message carries the campaign's content with its contact's fields. */
import { expect, layer } from "@effect/vitest"
import { type Campaign, type CampaignId, campaignMail, type ListId, type MessageId, resolveAudience, Store, type SuppressionId } from "@mailroom/core"
import { makeAccount, makeContact, makeMembers, uniqueText } from "@mailroom/testing"
import { Effect, Option } from "effect"
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
    it.effect("a chunk of 40 and a chunk of 400 each take the same six statements; a chunk run again adds nobody", () =>
      Effect.gen(function* () {
        const store = yield* Store
        for (const size of [40, 400]) {
          const { accountId, audience } = yield* setUp(size)
          const campaignId = uniqueText("cmp") as CampaignId
          const campaign: Campaign = {
            id: campaignId, accountId, name: "News", status: "running", listIds: [], topicId: null, templateId: null,
            brandId: null, subject: "News for {{contact.n}}", html: null, text: "Hello", from: { email: "news@example.com" } as never,
            replyTo: null, variables: {}, scheduledAt: null, startedAt: at, finishedAt: null, stopReason: null, audienceSize: null,
            cursor: null, paceAt: null, createdAt: at, updatedAt: at,
          }
          yield* store.campaigns.save(campaign)
          const mail = campaignMail(campaign, true, 0)
          const input = { accountId, campaignId, audience, after: null, limit: 500, mail, at }
          const { value: chunk, statements } = yield* recordStatements(store.campaigns.queueChunk(input))
          expect(chunk.covered).toBe(size)
          expect(chunk.queued).toHaveLength(size - size / 10)
          expect(touching(statements, "INSERT INTO", "campaign_recipients")).toHaveLength(1)
          for (const table of ["messages", "message_recipients", "events", "message_events"]) {
            expect([table, touching(statements, "INSERT INTO", table).length]).toEqual([table, 1])
          }
          expect(statements).toHaveLength(6)
          const first = Option.getOrThrow(yield* store.messages.findById(accountId, chunk.queued[0]! as MessageId))
          expect(first.content.contact?.["n"]).toMatch(/^\d+$/)
          expect(first.content.campaignId).toBe(campaignId)
          expect(first.recipients.map((r) => r.status)).toEqual(["queued"])
          const again = yield* recordStatements(store.campaigns.queueChunk(input))
          expect(again.value).toMatchObject({ covered: size, queued: [] })
          expect(again.statements).toHaveLength(2)
          const queued = (yield* store.events.list(accountId, { type: "email.queued" })).filter((e) => e.details["campaignId"] === campaignId)
          expect(queued).toHaveLength(size - size / 10)
        }
      }))
  })
}
