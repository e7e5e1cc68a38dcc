/** What a hard bounce does to an address, whichever way it is reported (the relay's 5xx, a DSN): a Bounce suppression
 *  carrying bounceCode, bounceReason, messageId and recordedAt, unless a Complaint suppression is there (it stays), and
 *  an ACTIVE contact of the address moves to BOUNCED (audience "States and transitions": ACTIVE -> BOUNCED). The
 *  event of the bounce (email.bounced) is the caller's; no contact event fires (a bounce is not an unsubscribe). To run
 *  inside the Store transaction that records the bounce. Spec: audience "Suppression reasons" (Bounce), "Send-time
 *  filtering". */
import { Effect, Option } from "effect"
import type { AccountId } from "../domain/account.js"
import type { EmailAddress } from "../domain/email.js"
import type { Suppression, SuppressionId } from "../domain/suppression.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"

export interface HardBounceDetails {
  readonly bounceCode: string
  readonly bounceReason: string
  /** The Mailroom message that bounced; null for a report no message of the account matches. */
  readonly messageId: string | null
}

export const recordHardBounce = (accountId: AccountId, email: string, details: HardBounceDetails, at: Date) =>
  Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const address = email as EmailAddress
    const existing = yield* store.suppressions.findByEmail(accountId, address)
    if (Option.isNone(existing) || existing.value.reason !== "Complaint") {
      const suppression: Suppression = {
        id: ids.make("suppression", at) as SuppressionId,
        accountId,
        email: address,
        reason: "Bounce",
        details: { ...details, recordedAt: at.toISOString() },
        createdAt: at,
        updatedAt: at,
      }
      yield* store.suppressions.put(suppression)
    }
    const contact = yield* store.contacts.findByEmail(accountId, address)
    if (Option.isSome(contact) && contact.value.status === "ACTIVE") {
      // The address is the contact's own, so no other contact can hold it. Only while it is still ACTIVE: a move that
      // committed since the read (COMPLAINED, say) is not overwritten.
      yield* Effect.catchTag(
        store.contacts.update({ ...contact.value, status: "BOUNCED", updatedAt: at }, { expectedStatus: "ACTIVE" }),
        "DuplicateContact",
        Effect.die,
      )
    }
  })
