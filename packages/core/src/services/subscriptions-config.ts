/** The host's settings of double opt-in, read by the Subscriptions API, signup forms and confirmation links. */
import { Context } from "effect"
import type { ConfirmationMode } from "../domain/link-visit.js"

/** The sender of confirmation mail unless the host names one. */
export const defaultConfirmationFrom = "confirm@mailroom.localhost"

export interface SubscriptionsSettings {
  /** Who the confirmation mail comes from; the display name is the account's name. */
  readonly confirmationFrom: string
  /** What following the confirmation link does: `link` (default) confirms at once in a person's browser and shows the
   *  button to automated fetches; `button` shows the button to everyone (docs/consent.md). */
  readonly confirmation?: ConfirmationMode | undefined
}

export class SubscriptionsConfig extends Context.Reference<SubscriptionsConfig>()("@mailroom/core/SubscriptionsConfig", {
  defaultValue: (): SubscriptionsSettings => ({ confirmationFrom: defaultConfirmationFrom }),
}) {}
