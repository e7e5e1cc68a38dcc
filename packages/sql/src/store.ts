/** The Store port over an @effect/sql client, for Postgres and SQLite alike. Each repository lives in its own module;
 *  this one only assembles them. Schema changes are not made here: see migrate.ts. */
import { SqlClient } from "@effect/sql"
import { Store } from "@mailroom/core"
import { Effect, Layer } from "effect"
import { makeAccountRepository } from "./accounts.js"
import { makeApiKeyRepository } from "./api-keys.js"
import { makeAppCredentialRepository } from "./app-credentials.js"
import { makeContactRepository } from "./contacts.js"
import { makeDevOutboxRepository } from "./dev-outbox.js"
import { makeEventOutbox } from "./events.js"
import { makeListRepository } from "./lists.js"
import { makeMemberRepository } from "./members.js"
import { makeMessageRepository } from "./messages.js"
import { makeQuotaRepository } from "./quota.js"
import { makeIdempotencyRepository } from "./idempotency.js"
import { makeCommitSignal } from "./internal/commit-signal.js"
import { isSqlError, orStoreError, storeError } from "./internal/errors.js"
import { makeSettingRepository } from "./settings.js"
import { makeWebhookRepository } from "./webhooks.js"
import { makeConfirmationRepository } from "./confirmations.js"
import { makeSuppressionRepository } from "./suppressions.js"
import { makeTopicRepository } from "./topics.js"
import { makeFormRepository } from "./forms.js"
import { makeDomainRepository } from "./domains.js"
import { makeCanaryRunRepository } from "./canary-runs.js"
import { makeTrackingRepository } from "./tracking.js"
import { makeAnalyticsRepository } from "./analytics.js"
import { makeValidationJobRepository } from "./validation-jobs.js"
import { makeBrandRepository } from "./brands.js"
import { makeDesignRepository } from "./designs.js"
import { makeAssetRepository } from "./assets.js"
import { makeCampaignRepository } from "./campaigns.js"

/** The Store over `sql`. A SQLite connection must have `PRAGMA foreign_keys = ON`: deleting a contact relies on
 *  ON DELETE CASCADE to remove its tags, custom fields and memberships. */
export const makeSqlStore = (sql: SqlClient.SqlClient): Store["Type"] => {
  const commits = makeCommitSignal()
  return Store.of({
    accounts: makeAccountRepository(sql),
    apiKeys: makeApiKeyRepository(sql),
    appCredentials: makeAppCredentialRepository(sql),
    settings: makeSettingRepository(sql),
    contacts: makeContactRepository(sql),
    lists: makeListRepository(sql),
    members: makeMemberRepository(sql),
    events: makeEventOutbox(sql, commits),
    suppressions: makeSuppressionRepository(sql),
    topics: makeTopicRepository(sql),
    confirmations: makeConfirmationRepository(sql),
    devOutbox: makeDevOutboxRepository(sql),
    webhooks: makeWebhookRepository(sql),
    messages: makeMessageRepository(sql),
    quota: makeQuotaRepository(sql),
    idempotency: makeIdempotencyRepository(sql),
    forms: makeFormRepository(sql),
    domains: makeDomainRepository(sql),
    canaryRuns: makeCanaryRunRepository(sql),
    tracking: makeTrackingRepository(sql),
    analytics: makeAnalyticsRepository(sql),
    validationJobs: makeValidationJobRepository(sql),
    designs: makeDesignRepository(sql),
    brands: makeBrandRepository(sql),
    assets: makeAssetRepository(sql),
    campaigns: makeCampaignRepository(sql, commits),
    // Nested calls become savepoints of the outer transaction. Only the client's own failures (BEGIN) turn into
    // StoreError; the effect's errors pass through unchanged.
    transaction: (effect) =>
      commits.track(sql.withTransaction(effect)).pipe(Effect.catchIf(isSqlError, (cause) => Effect.fail(storeError("transaction")(cause)))),
    ping: sql`SELECT 1`.pipe(Effect.asVoid, orStoreError("ping")),
  })
}

export const SqlStore = {
  /** The Store over the SqlClient in context. It does not migrate: adapters run `migrate` (or `migrationsLayer`)
   *  when they build their layer. */
  layer: Layer.effect(Store, Effect.map(SqlClient.SqlClient, makeSqlStore)) satisfies Layer.Layer<Store, never, SqlClient.SqlClient>,
} as const
