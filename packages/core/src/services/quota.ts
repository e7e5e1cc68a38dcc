/** The monthly sending quota: recipients per calendar month by plan, reserved at acceptance and never refunded.
 *  Spec: sending "Limits" and rules 2-3. Enterprise has no quota (the spec does not show one). */
import { Effect } from "effect"
import { type Account, planLimits } from "../domain/account.js"
import { quotaPeriod, quotaResetsAt } from "../domain/quota.js"
import { QuotaExceeded } from "../errors.js"
import { Store } from "../ports/store.js"
import { serviceMethod } from "./tracing.js"
import { currentDate } from "../internal/time.js"

/** Where an account stands in the current period. */
export interface QuotaUsage {
  /** "2026-03": the calendar month (UTC) being counted. */
  readonly period: string
  readonly used: number
  /** null: no quota (Enterprise). */
  readonly limit: number | null
  readonly resetsAt: Date
}

export class Quota extends Effect.Service<Quota>()("@mailroom/core/Quota", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const method = yield* serviceMethod
    const now = currentDate

    /** Reserves `recipients` in the account's current month, or fails with QuotaExceeded (and reserves nothing).
     *  Atomic against concurrent reservations; joins the caller's transaction, so a send that fails later rolls its
     *  reservation back with everything else it wrote. */
    const reserve = method("Quota.reserve")(function* (account: Account, recipients: number) {
      const at = yield* now
      const limit = planLimits[account.plan].monthlySendQuota
      if (recipients <= 0) return
      const result = yield* store.quota.reserve(account.id, quotaPeriod(at), recipients, limit)
      if (!result.reserved) {
        return yield* Effect.fail(new QuotaExceeded({
          limit: limit ?? 0, used: result.used, requested: recipients, resetsAt: quotaResetsAt(at),
        }))
      }
    })

    const usage = method("Quota.usage")(function* (account: Account) {
      const at = yield* now
      const period = quotaPeriod(at)
      return {
        period,
        used: yield* store.quota.used(account.id, period),
        limit: planLimits[account.plan].monthlySendQuota,
        resetsAt: quotaResetsAt(at),
      } satisfies QuotaUsage
    })

    return { reserve, usage } as const
  }),
}) {}
