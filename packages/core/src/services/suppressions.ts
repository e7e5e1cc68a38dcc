/** The suppressions API and send-time filtering. Spec: audience "Suppressions", "Suppression reasons" and
 *  "Send-time filtering". Suppressions added or removed here change no contact and append no events: only the
 *  Subscriptions API and the public unsubscribe links do (rule 9 and the POST /suppressions row). */
import { Effect } from "effect"
import type { Account, AccountId } from "../domain/account.js"
import type { EmailAddress } from "../domain/email.js"
import type {
  AddSuppressionInput, BulkSuppressionInput, SendScope, Suppression, SuppressionId, SuppressionQuery,
} from "../domain/suppression.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { orNotFound } from "../internal/found.js"
import { serviceMethod } from "./tracing.js"
import { currentDate } from "../internal/time.js"

export type BulkSuppressionResult =
  | { readonly action: "add"; readonly requested: number; readonly added: number; readonly updated: number }
  | { readonly action: "remove"; readonly requested: number; readonly removed: number }

export class Suppressions extends Effect.Service<Suppressions>()("@mailroom/core/Suppressions", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const method = yield* serviceMethod
    const ids = yield* Ids
    const now = currentDate

    const make = (account: Account, email: EmailAddress, input: Pick<Suppression, "reason" | "details">, at: Date): Suppression => ({
      id: ids.make("suppression", at) as SuppressionId,
      accountId: account.id,
      email,
      reason: input.reason,
      details: input.details,
      createdAt: at,
      updatedAt: at,
    })

    const list = method("Suppressions.list")(function* (account: Account, query: SuppressionQuery) {
      return yield* store.suppressions.list(account.id, query)
    })

    /** The suppression of the address, or RESOURCE_NOT_FOUND. */
    const get = method("Suppressions.get")(function* (account: Account, email: EmailAddress) {
      return yield* store.suppressions.findByEmail(account.id, email).pipe(orNotFound("suppression", email))
    })

    /** POST /suppressions: adds, or replaces reason and details of the address's suppression. */
    const add = method("Suppressions.add")(function* (account: Account, input: AddSuppressionInput) {
      const at = yield* now
      return yield* store.suppressions.put(make(account, input.email, { reason: input.reason, details: input.details ?? null }, at))
    }, store.transaction)

    /** POST /suppressions/bulk: up to 10,000 addresses, set-based. */
    const bulk = method("Suppressions.bulk")(function* (account: Account, input: BulkSuppressionInput) {
      if (input.action === "remove") {
        const removed = yield* store.suppressions.deleteMany(account.id, input.emails)
        return { action: "remove", requested: input.emails.length, removed } satisfies BulkSuppressionResult
      }
      const at = yield* now
      const details = input.details ?? null
      const counts = yield* store.suppressions.putMany(
        input.emails.map((email) => make(account, email, { reason: input.reason, details }, at)))
      return { action: "add", requested: input.emails.length, ...counts } satisfies BulkSuppressionResult
    }, store.transaction)

    /** DELETE /suppressions/{email}: `removed` is false when the address was not suppressed. */
    const remove = method("Suppressions.remove")(function* (account: Account, email: EmailAddress) {
      return { email, removed: yield* store.suppressions.delete(account.id, email) }
    }, store.transaction)

    /** Send-time filtering of a batch of candidates (one set-based query): for the sending work, which calls it for
     *  every message and batch before queueing. */
    const filterRecipients = method("Suppressions.filterRecipients")(
      function* (accountId: AccountId, scope: SendScope, addresses: ReadonlyArray<EmailAddress>) {
        return yield* store.suppressions.eligibility(accountId, scope, addresses)
      },
    )

    return { list, get, add, bulk, remove, filterRecipients } as const
  }),
}) {}
