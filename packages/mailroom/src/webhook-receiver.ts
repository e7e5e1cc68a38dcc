/** Helpers for the host's own webhook receiver: verify a Mailroom delivery over its raw body (the Standard Webhooks
 *  headers through the `standardwebhooks` package, with every secret that may sign it during a rotation, and the
 *  spec's own X-Service-Signature), and drop duplicates on eventType, messageId and recipient as the spec advises
 *  (delivery is at least once). */
import { createHmac, timingSafeEqual } from "node:crypto"
import { Webhook } from "standardwebhooks"

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError"
}

export interface VerifyWebhookOptions {
  /** The endpoint's secret, or several: during a rotation pass the new one and the old one (either is accepted). */
  readonly secret: string | ReadonlyArray<string>
}

/** A verified delivery. */
export interface VerifiedWebhook {
  /** The parsed JSON body: the spec's request envelope. */
  readonly payload: Record<string, unknown>
  readonly eventType: string
  readonly messageId: string
  readonly recipient: string | undefined
  /** webhook-id: the same on every attempt of one delivery. */
  readonly webhookId: string
  /** X-Service-Delivery: unique per attempt. */
  readonly attemptId: string | undefined
}

type HeaderSource = Headers | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const header = (headers: HeaderSource, name: string): string | undefined => {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined
  const record = headers as Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1]
  return Array.isArray(value) ? value.join(", ") : (value as string | undefined)
}

const standardHeaders = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const

/** The Standard Webhooks check, by the `standardwebhooks` package: a `v1` signature over `id.timestamp.body` by one of
 *  the secrets, and a timestamp within its five minutes of the clock. Answers the first failure when none verifies. */
const verifyStandard = (body: string, headers: HeaderSource, secrets: ReadonlyArray<string>): void => {
  const values: Record<string, string> = {}
  for (const name of standardHeaders) {
    const value = header(headers, name)
    if (value === undefined) throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature")
    values[name] = value
  }
  let failure: unknown
  for (const secret of secrets) {
    try {
      new Webhook(secret).verify(body, values, { jsonParse: false })
      return
    } catch (error) {
      failure ??= error
    }
  }
  const reason = failure instanceof Error ? failure.message : String(failure)
  throw new WebhookVerificationError(`webhook-signature does not verify: ${reason}`)
}

const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b)

/** The spec's own header: X-Service-Signature (or X-Service-Signature-Previous during a rotation), the hex HMAC-SHA256
 *  of the body under the secret. */
const verifyServiceSignature = (body: Buffer, headers: HeaderSource, secrets: ReadonlyArray<string>): void => {
  const hex = [header(headers, "x-service-signature"), header(headers, "x-service-signature-previous")]
    .flatMap((value) => (value !== undefined && /^[0-9a-f]{64}$/i.test(value) ? [Buffer.from(value, "hex")] : []))
  const ok = secrets.some((secret) => {
    const expected = createHmac("sha256", secret).update(body).digest()
    return hex.some((signature) => sameBytes(signature, expected))
  })
  if (!ok) throw new WebhookVerificationError("X-Service-Signature does not match the body")
}

/** Verifies a delivery and answers it parsed; throws WebhookVerificationError when it is not Mailroom's. Pass the raw
 *  body exactly as received (a re-serialised JSON object does not verify). Both signatures are checked: the Standard
 *  Webhooks one over `id.timestamp.body` (whose timestamp must be within five minutes of the clock, against replays)
 *  and X-Service-Signature over the body. */
export const verifyWebhook = (rawBody: string | Uint8Array, headers: HeaderSource, options: VerifyWebhookOptions): VerifiedWebhook => {
  const secrets = typeof options.secret === "string" ? [options.secret] : [...options.secret]
  if (secrets.length === 0 || secrets.some((s) => s === "")) throw new WebhookVerificationError("no secret to verify with")
  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : Buffer.from(rawBody)
  const text = body.toString("utf8")
  verifyStandard(text, headers, secrets)
  verifyServiceSignature(body, headers, secrets)

  let payload: unknown
  try {
    payload = JSON.parse(text)
  } catch {
    throw new WebhookVerificationError("the body is not JSON")
  }
  if (typeof payload !== "object" || payload === null) throw new WebhookVerificationError("the body is not a JSON object")
  const envelope = payload as Record<string, unknown>
  return {
    payload: envelope,
    eventType: String(envelope.eventType),
    messageId: String(envelope.messageId),
    recipient: typeof envelope.recipient === "string" ? envelope.recipient : undefined,
    webhookId: header(headers, "webhook-id")!,
    attemptId: header(headers, "x-service-delivery"),
  }
}

export interface WebhookDeduplicator {
  /** True the first time a delivery of this eventType, messageId and recipient is seen (within the window), false for
   *  a duplicate. */
  readonly firstTime: (webhook: Pick<VerifiedWebhook, "eventType" | "messageId" | "recipient">) => boolean
}

/** An in-memory deduplicator remembering up to `max` deliveries for `ttlMs` (defaults: 100,000 and 25 hours, past the
 *  last retry). A host with several processes keeps the keys in its database instead, keyed the same way. */
export const createWebhookDeduplicator = (options: { readonly max?: number; readonly ttlMs?: number; readonly now?: () => number } = {}): WebhookDeduplicator => {
  const max = options.max ?? 100_000
  const ttlMs = options.ttlMs ?? 25 * 60 * 60 * 1000
  const now = options.now ?? Date.now
  const seen = new Map<string, number>()
  return {
    firstTime: ({ eventType, messageId, recipient }) => {
      const key = JSON.stringify([eventType, messageId, recipient ?? null])
      const at = now()
      const expires = seen.get(key)
      if (expires !== undefined && expires > at) return false
      seen.delete(key)
      if (seen.size >= max) seen.delete(seen.keys().next().value as string)
      seen.set(key, at + ttlMs)
      return true
    },
  }
}
