/** The memory Store: every repository over one in-memory database. Each build of the layer starts empty. */
import { Store } from "@mailroom/core"
import { Effect, Layer } from "effect"
import { makeAccountRepository } from "./accounts.js"
import { makeApiKeyRepository } from "./api-keys.js"
import { makeAppCredentialRepository } from "./app-credentials.js"
import { makeContactTable } from "./contact-table.js"
import { makeContactRepository } from "./contacts.js"
import { makeMemoryDb } from "./db.js"
import { makeDevOutboxRepository } from "./dev-outbox.js"
import { makeEventOutbox } from "./events.js"
import { makeListRepository, makeListTable } from "./lists.js"
import { makeMemberRepository, makeMembershipTable } from "./members.js"
import { makeSettingRepository } from "./settings.js"
import { makeWebhookRepository } from "./webhooks.js"
import { makeConfirmationRepository } from "./confirmations.js"
import { makeSuppressionStore } from "./suppressions.js"
import { makeTopicRepository, makeTopicTable } from "./topics.js"
import { makeMessageRepository, makeMessageTable } from "./messages.js"
import { makeQuotaRepository } from "./quota.js"
import { makeIdempotencyRepository } from "./idempotency.js"
import { makeFormRepository } from "./forms.js"
import { makeDomainRepository } from "./domains.js"
import { makeCanaryRunRepository } from "./canary-runs.js"
import { makeValidationJobRepository } from "./validation-jobs.js"
import { makeBrandRepository } from "./brands.js"
import { makeDesignRepository } from "./designs.js"
import { makeAssetRepository } from "./assets.js"
import { makeTrackingRepository } from "./tracking.js"
import { makeCampaignRepository } from "./campaigns.js"
import type { TrackingHit } from "@mailroom/core"
import { makeAnalyticsRepository } from "./analytics.js"

export const makeMemoryStore = Effect.gen(function* () {
  const db = yield* makeMemoryDb
  const contactTable = makeContactTable(db)
  const listTable = makeListTable(db)
  const membershipTable = makeMembershipTable(db)
  const topicTable = makeTopicTable(db)
  const suppressions = makeSuppressionStore(db, contactTable, topicTable)
  const messageTable = makeMessageTable(db)
  const outbox = makeEventOutbox(db)
  const messages = makeMessageRepository(db, messageTable)
  const designs = makeDesignRepository(db, messageTable)
  const hits = db.table<string, TrackingHit>()
  return Store.of({
    accounts: makeAccountRepository(db),
    apiKeys: makeApiKeyRepository(db),
    appCredentials: makeAppCredentialRepository(db),
    settings: makeSettingRepository(db),
    contacts: makeContactRepository(db, contactTable, suppressions.table, listTable),
    lists: makeListRepository(db, listTable, membershipTable, contactTable),
    members: makeMemberRepository(db, membershipTable, listTable, contactTable, (accountId, listId, email) => {
      const topicId = listTable.find(accountId, listId)?.suppressionGroupId ?? null
      return {
        suppression: suppressions.table.find(accountId, email)?.reason ?? null,
        optedOutOfTopic: topicId !== null && topicTable.isOptedOut(accountId, topicId, email),
      }
    }),
    events: outbox,
    suppressions: suppressions.repository,
    topics: makeTopicRepository(db, topicTable),
    confirmations: makeConfirmationRepository(db),
    devOutbox: makeDevOutboxRepository(db),
    webhooks: makeWebhookRepository(db),
    messages,
    quota: makeQuotaRepository(db),
    idempotency: makeIdempotencyRepository(db),
    forms: makeFormRepository(db),
    domains: makeDomainRepository(db),
    canaryRuns: makeCanaryRunRepository(db),
    validationJobs: makeValidationJobRepository(db),
    designs,
    brands: makeBrandRepository(db, designs),
    assets: makeAssetRepository(db),
    tracking: makeTrackingRepository(db, hits),
    campaigns: makeCampaignRepository(db, {
      contacts: contactTable, memberships: membershipTable, suppressions: suppressions.table, topics: topicTable,
      messages: messageTable, hits,
    }, { outbox, messages }),
    analytics: makeAnalyticsRepository(db, messageTable),
    transaction: db.transaction,
    ping: Effect.void,
  })
})

/** The in-memory Store: no native modules, nothing survives the layer. For unit tests and demos. */
export const MemoryStore = {
  layer: Layer.scoped(Store, makeMemoryStore) satisfies Layer.Layer<Store>,
} as const
