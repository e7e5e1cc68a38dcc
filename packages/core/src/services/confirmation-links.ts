/** Confirmation links of double opt-in as the `/c/<token>` route meets them: whether following the link confirms at
 *  once (a person's browser, in the default `link` mode) or shows the page whose button confirms (automated fetches,
 *  and everyone in `button` mode). The rule is `classifyLinkVisit` in domain/link-visit.ts. */
import { Effect } from "effect"
import { classifyLinkVisit, confirmsOnFollow, type LinkRequest } from "../domain/link-visit.js"
import { SubscriptionsConfig } from "./subscriptions.js"

/** Whether following the link with `request` confirms; logs at debug which signal marked it automated. */
export const confirmsOnVisit = (request: LinkRequest) =>
  Effect.gen(function* () {
    const mode = (yield* SubscriptionsConfig).confirmation ?? "link"
    const visit = classifyLinkVisit(request)
    if (visit.kind === "automated") yield* Effect.logDebug(`confirmation link fetched by an automated client (${visit.signal}): the button is shown`)
    return confirmsOnFollow(mode, visit)
  })
