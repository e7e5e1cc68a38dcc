/** Signed link tokens: the credential of the confirmation, unsubscribe and preferences links. A token is
 *  `<payload>.<signature>`, both base64url: the payload is JSON naming the purpose, the account, the recipient, what
 *  the link is about (list, topic, campaign, confirmation nonce) and its expiry; the signature is HMAC-SHA256 of the
 *  payload under a key derived from MAILROOM_SECRET for that purpose alone, so that a token of one purpose is never
 *  accepted for another. Signatures are compared in constant time. Spec: audience "Authentication" 3, CONTRACT.md
 *  "Streams and links in mail". */
import { createHmac, timingSafeEqual } from "node:crypto"
import { Either, Schema } from "effect"
import { InvalidToken } from "../errors.js"

export const tokenPurposes = ["confirm", "unsubscribe", "preferences", "open", "click"] as const
export type TokenPurpose = (typeof tokenPurposes)[number]

/** How long each kind of link lives: a confirmation link 7 days (spec, Limits); unsubscribe and preference links a
 *  year, since mail is read and unsubscribed from long after it was sent. */
export const tokenLifetimesMs: Record<TokenPurpose, number> = {
  confirm: 7 * 24 * 60 * 60 * 1000,
  unsubscribe: 365 * 24 * 60 * 60 * 1000,
  preferences: 365 * 24 * 60 * 60 * 1000,
  // Tracking links: hits after a year record nothing, but a click link still redirects (docs/tracking.md).
  open: 365 * 24 * 60 * 60 * 1000,
  click: 365 * 24 * 60 * 60 * 1000,
}

/** What a token says. Keys are short: the token travels in every link. */
export const TokenClaims = Schema.Struct({
  /** Purpose. */
  p: Schema.Literal(...tokenPurposes),
  /** Account id. */
  a: Schema.String,
  /** Recipient address. */
  r: Schema.String,
  /** List, topic and campaign, when the link is about one. */
  l: Schema.optional(Schema.String),
  t: Schema.optional(Schema.String),
  c: Schema.optional(Schema.String),
  /** Nonce of a pending confirmation: a resend or a confirmation makes older links unmatched. */
  n: Schema.optional(Schema.String),
  /** Tracking links: the message id, and when the mail was rendered for delivery (epoch milliseconds). */
  m: Schema.optional(Schema.String),
  s: Schema.optional(Schema.Number),
  /** Click links: the original target and the link's position in the message (html links first, then text links);
   *  `h` marks the hidden honeypot link that only machines follow. */
  u: Schema.optional(Schema.String),
  i: Schema.optional(Schema.Number),
  h: Schema.optional(Schema.Literal(1)),
  /** Expiry, epoch milliseconds. */
  e: Schema.Number,
})
export type TokenClaims = typeof TokenClaims.Type

const decodeClaims = Schema.decodeUnknownEither(Schema.parseJson(TokenClaims), { onExcessProperty: "error" })

/** The signing key of one purpose, derived from the secret (HMAC-SHA256 of a fixed label under the secret). */
export const deriveTokenKey = (secret: string, purpose: TokenPurpose): Buffer =>
  createHmac("sha256", secret).update(`mailroom token key: ${purpose}`).digest()

const signature = (key: Buffer, payload: string): Buffer => createHmac("sha256", key).update(payload).digest()

export const signToken = (key: Buffer, claims: TokenClaims): string => {
  const payload = Buffer.from(JSON.stringify(claims)).toString("base64url")
  return `${payload}.${signature(key, payload).toString("base64url")}`
}

/** The claims of `token` when it is well formed, signed with `key`, of `purpose` and not expired at `nowMs`. */
export const verifyToken = (
  key: Buffer,
  purpose: TokenPurpose,
  token: string,
  nowMs: number,
): Either.Either<TokenClaims, InvalidToken> => {
  const parts = token.split(".")
  if (parts.length !== 2 || !/^[A-Za-z0-9_-]+$/.test(parts[0]!) || !/^[A-Za-z0-9_-]+$/.test(parts[1]!)) {
    return Either.left(new InvalidToken({ detail: "the token is malformed" }))
  }
  const [payload, sent] = parts as [string, string]
  const expected = signature(key, payload)
  const given = Buffer.from(sent, "base64url")
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return Either.left(new InvalidToken({ detail: "the signature does not match" }))
  }
  const claims = decodeClaims(Buffer.from(payload, "base64url").toString("utf8"))
  if (Either.isLeft(claims)) return Either.left(new InvalidToken({ detail: "the token is malformed" }))
  if (claims.right.p !== purpose) return Either.left(new InvalidToken({ detail: `this is not a ${purpose} token` }))
  if (claims.right.e <= nowMs) return Either.left(new InvalidToken({ detail: "the link has expired" }))
  return Either.right(claims.right)
}
