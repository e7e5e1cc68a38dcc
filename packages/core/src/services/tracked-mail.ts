/** The step of the delivery pipeline that makes a rendered submission tracked: its links become click links and its
 *  html part gets the open pixel, with tokens signed for its message and recipient (docs/tracking.md). Mail that is
 *  not tracked passes unchanged. Called once per submission, after rendering and before DKIM signing and sending. */
import { Effect } from "effect"
import { trackParts } from "../domain/track-links.js"
import type { OutgoingMessage } from "../ports/mailer.js"
import { Tokens } from "./tokens.js"

export interface TrackedSubject {
  readonly tracked: boolean
  readonly accountId: string
  readonly messageId: string
  readonly recipient: string
  /** Campaign mail: the campaign (its events then carry campaignId and fire on every human open). */
  readonly campaignId?: string | undefined
  /** The origin of the brand's verified tracking domain, which replaces TRACK_URL's in the links. */
  readonly origin?: string | undefined
}

export const trackOutgoing = (outgoing: OutgoingMessage, subject: TrackedSubject): Effect.Effect<OutgoingMessage, never, Tokens> =>
  !subject.tracked
    ? Effect.succeed(outgoing)
    : Effect.gen(function* () {
      const links = yield* (yield* Tokens).trackingLinks(subject)
      const parts = trackParts({ html: outgoing.html, text: outgoing.text ?? "" }, links)
      return { ...outgoing, html: parts.html, text: outgoing.text === undefined ? undefined : parts.text }
    })
