/** The steps the campaigns suite is written in: accounts, contacts, lists and drafts made through the services, one
 *  chunk or send run at a time, or all of them, and what a campaign wrote. */
import {
  type Account, Accounts, type AccountId, CampaignConfig, campaignMessagePrefix, Campaigns, type ChunkOutcome, Contacts,
  deliverMessage, Lists, type MailroomError, type MessageId, runChunk, runSend, type SendOutcome, Store,
} from "@mailroom/core"
import { Clock, Effect } from "effect"

let counter = 0
export const fresh = (label: string) => `${label}-${Date.now().toString(36)}-${(counter++).toString(36)}@example.org`
/** A key unique in this run: `label-N`. */
export const freshKey = (label: string) => `${label}-${counter++}`
export const from = { email: "news@example.com", name: "Example News" }

export const newAccount = (plan: "free" | "micro" | "pro" = "pro") =>
  Effect.map(Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "campaigns", plan })), ({ account }) => account)
export const contact = (account: Account, fields: Record<string, unknown> = {}) =>
  Effect.flatMap(Contacts, (contacts) => contacts.create(account, { email: fresh("c"), ...fields }))
export const staticList = (account: Account, fields: Record<string, unknown> = {}) =>
  Effect.map(Effect.flatMap(Lists, (lists) => lists.create(account, { name: "Readers", ...fields })), (made) => made.list)
export const addMembers = (account: Account, listId: string, contactIds: ReadonlyArray<string>) =>
  Effect.flatMap(Lists, (lists) => lists.addMembers(account, listId, { contactIds: [...contactIds] }))
export const draft = (account: Account, listIds: ReadonlyArray<string>, fields: Record<string, unknown> = {}) =>
  Effect.flatMap(Campaigns, (campaigns) => campaigns.create(account, {
    name: "March news", listIds, subject: "News for {{contact.firstName}}", from,
    html: "<p>Hi {{contact.firstName}} from {{contact.city}}</p><a href=\"{{unsubscribe_url}}\">Leave</a>", ...fields,
  }))
/** A new account with a STATIC list of five contacts (first names R1 to R5) and a campaign to it, sent: answers them
 *  with the contacts in id order, the order campaigns walk them in. Nothing is queued yet. */
export const sentToFive = Effect.gen(function* () {
  const account = yield* newAccount()
  const list = yield* staticList(account)
  const members = yield* Effect.forEach([1, 2, 3, 4, 5], (i) => contact(account, { firstName: `R${i}` }))
  yield* addMembers(account, list.id, members.map((m) => m.id))
  const campaign = yield* draft(account, [list.id])
  yield* Effect.flatMap(Campaigns, (campaigns) => campaigns.send(account, campaign.id, {}))
  return { account, list, campaign, ordered: [...members].sort((a, b) => a.id < b.id ? -1 : 1) }
})
export const codeOf = <A, R>(effect: Effect.Effect<A, MailroomError, R>) => Effect.map(Effect.flip(effect), (error) => error.code)
export const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
export const chunk = (account: Account, id: string) => Effect.flatMap(now, (at) => runChunk(account.id, id, at))
export const sendRun = (account: Account, id: string) => Effect.flatMap(now, (at) => runSend(account.id, id, at))
/** Runs `step` until it answers other than `more`; answers each run's outcome. */
export const repeat = <A extends string, E, R>(step: Effect.Effect<A, E, R>, more: A) => Effect.gen(function* () {
  const outcomes: Array<A> = []
  for (let i = 0; i < 50; i++) {
    const outcome = yield* step
    outcomes.push(outcome)
    if (outcome !== more) break
  }
  return outcomes
})
export const queueAll = (account: Account, id: string) => repeat<ChunkOutcome, MailroomError, never>(chunk(account, id) as never, "queued")
export const sendAll = (account: Account, id: string) => repeat<SendOutcome, MailroomError, never>(sendRun(account, id) as never, "sent")
/** Queues the whole audience, then runs send runs until the campaign stops; answers every outcome. */
export const drain = (account: Account, id: string) =>
  Effect.flatMap(queueAll(account, id), (queued) => Effect.map(sendAll(account, id), (sent) => [...queued, ...sent]))
export const campaignQueued = (accountId: AccountId, campaignId: string) => Effect.map(
  Effect.flatMap(Store, (store) => store.events.list(accountId, { type: "email.queued" })),
  (events) => events.filter((e) => e.details["campaignId"] === campaignId).length)
export const messageOf = (accountId: AccountId, campaignId: string, contactId: string) =>
  Effect.flatMap(Store, (store) => store.messages.findById(accountId, `${campaignMessagePrefix(campaignId)}${contactId}` as MessageId))
export const deliver = (accountId: AccountId, messageId: string) =>
  deliverMessage({ accountId, messageId }, { jobId: "job", attempt: 1, lastAttempt: false })
export const progress = (account: Account, id: string) => Effect.flatMap(Campaigns, (c) => c.progress(account, id))
export const small = Effect.provideService(CampaignConfig, { chunkSize: 2, sendBatch: 2 })
