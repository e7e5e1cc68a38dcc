/** The dev outbox (CONTRACT.md, "Mail in development"): with no SMTP relay configured, every message that would leave
 *  the platform is kept here instead, as the relay would have received it. Entries belong to the platform, not to an
 *  account: the operator reads them through GET /admin/outbox. */

/** One message kept in the dev outbox. */
export interface DevOutboxEntry {
  readonly id: string
  /** The From: address. */
  readonly from: string
  /** Every envelope recipient (To, Cc and Bcc), in envelope order, as given. */
  readonly to: ReadonlyArray<string>
  readonly subject: string
  readonly html: string | null
  readonly text: string | null
  /** The message's headers as sent, keyed by lower-case name, values unfolded. A header that appears more than once
   *  (Received, say) keeps its values joined by a newline, in message order. */
  readonly headers: Readonly<Record<string, string>>
  /** The whole message as it would have gone to the relay (DKIM signature included), for the delivery canary's checks
   *  (docs/canary.md); null for entries kept before it was stored. */
  readonly raw?: string | null | undefined
  readonly createdAt: Date
}

export interface DevOutboxQuery {
  /** Only entries with this envelope recipient, compared case-insensitively. */
  readonly to?: string | undefined
  /** Only entries whose subject, From, envelope recipients or text body contain this text, compared
   *  case-insensitively (ASCII letters on SQLite); `%` and `_` match themselves. Empty or absent: no filter. */
  readonly q?: string | undefined
  /** Most entries answered. */
  readonly limit: number
}

/** GET /admin/outbox: `limit` defaults to 20 and is at most 100; `q` is at most 200 characters. */
export const devOutboxLimits = { defaultLimit: 20, maxLimit: 100, maxSearch: 200 } as const
