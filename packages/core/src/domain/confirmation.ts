/** Double opt-in: the confirmation a PENDING contact owes, and how long its link lives. Spec: audience "States and
 *  transitions" (the PENDING rows), POST /subscriptions `doubleOptIn`, "Confirmation link: valid 7 days". */
import type { AccountId } from "./account.js"
import type { ContactId } from "./contact.js"

/** Who asked for the confirmation: the Subscriptions API (resend-confirmation works only for these) or a signup form. */
export const confirmationSources = ["API", "FORM"] as const
export type ConfirmationSource = (typeof confirmationSources)[number]

/** The outstanding double opt-in of one contact. The link's token names the contact and carries `nonce`: a resend
 *  makes a new nonce, confirming deletes the row, so an older or used link is recognised as such. */
export interface PendingConfirmation {
  readonly accountId: AccountId
  readonly contactId: ContactId
  readonly nonce: string
  /** The lists and topics of the subscribe call, reported by contact.confirmed. */
  readonly listIds: ReadonlyArray<string>
  readonly topicIds: ReadonlyArray<string>
  /** Where the browser goes after confirming (https only), or null for the plain confirmation page. */
  readonly redirectUrl: string | null
  readonly source: ConfirmationSource
  /** The signup form that asked (source FORM), reported as formId by contact.confirmed; null for the API. */
  readonly formId: string | null
  /** The account's own template the confirmation mail is rendered from (POST /subscriptions
   *  `confirmationTemplateId`, or the signup form's), so that a resend mails the same template; null: Mailroom's
   *  default confirmation mail. */
  readonly templateId: string | null
  readonly expiresAt: Date
  readonly createdAt: Date
}
