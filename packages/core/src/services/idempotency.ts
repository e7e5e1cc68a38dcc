/** Idempotency-Key on the sending routes: a repeat of a request with the same key and body answers the first response
 *  and does nothing else; the same key with another body (or route) is refused with 409. Keys live 24 hours. The
 *  first response is stored in the transaction of the work it answers, so a crash never leaves a key without its
 *  message or a message without its key. */
import { createHash } from "node:crypto"
import { Clock, Effect, Option } from "effect"
import type { AccountId } from "../domain/account.js"
import { idempotencyWindowHours } from "../domain/message-record.js"
import { IdempotencyKeyReused, ValidationFailed } from "../errors.js"
import { Store } from "../ports/store.js"
import { serviceMethod } from "./tracing.js"

/** An answer that can be replayed: the HTTP status and the JSON body. */
export interface IdempotentResponse {
  readonly status: number
  readonly body: unknown
}

export interface IdempotentRequest {
  readonly key: string
  /** send, batch or schedule. */
  readonly route: string
  /** The request's fingerprint (requestFingerprint of its parsed body). */
  readonly bodyHash: string
}

/** The header's rules: 1-255 visible ASCII characters. */
export const checkIdempotencyKey = (key: string): Effect.Effect<string, ValidationFailed> =>
  /^[\x21-\x7e]{1,255}$/.test(key)
    ? Effect.succeed(key)
    : Effect.fail(new ValidationFailed({ field: "Idempotency-Key", detail: "must be 1-255 visible ASCII characters" }))

const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical)
  if (value instanceof Date) return value.toISOString()
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]))
  }
  return value
}

/** SHA-256 of a parsed body with its keys sorted: the same request written with other spacing or key order has the
 *  same fingerprint. */
export const requestFingerprint = (body: unknown): string =>
  createHash("sha256").update(JSON.stringify(canonical(body)) ?? "null").digest("hex")

/** A concurrent request with the same key stored its response first. */
class Raced {
  readonly _tag = "Raced"
}

export class Idempotency extends Effect.Service<Idempotency>()("@mailroom/core/Idempotency", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const method = yield* serviceMethod

    const replay = (accountId: AccountId, request: IdempotentRequest, notBefore: Date) =>
      Effect.map(store.idempotency.find(accountId, request.key, notBefore), Option.map((record) =>
        record.route === request.route && record.bodyHash === request.bodyHash
          ? Effect.succeed({ status: record.status, body: record.response, replayed: true })
          : Effect.fail(new IdempotencyKeyReused({ key: request.key }))))

    /** Runs `work` once per key: a live record answers instead of running it (or refuses a different body); otherwise
     *  `work` runs in a transaction that also stores its response. Failures are not stored: a request that failed
     *  runs again when repeated. */
    const run = <E, R>(accountId: AccountId, request: IdempotentRequest, work: Effect.Effect<IdempotentResponse, E, R>) =>
      method("Idempotency.run")(function* () {
        const now = new Date(yield* Clock.currentTimeMillis)
        // A record lives for the 24 hours after it was made: at exactly 24 hours it has expired.
        const notBefore = new Date(now.getTime() - idempotencyWindowHours * 3_600_000 + 1)
        const earlier = yield* replay(accountId, request, notBefore)
        if (Option.isSome(earlier)) return yield* earlier.value
        const outcome = yield* store.transaction(Effect.gen(function* () {
          const response = yield* work
          const saved = yield* store.idempotency.save({
            accountId, key: request.key, route: request.route, bodyHash: request.bodyHash,
            status: response.status, response: response.body, createdAt: now,
          }, notBefore)
          if (!saved) return yield* Effect.fail(new Raced())
          return { ...response, replayed: false }
        })).pipe(Effect.catchIf((error): error is Raced => error instanceof Raced, () =>
          Effect.flatMap(replay(accountId, request, notBefore), Option.match({
            // The other request's record expired in between: nothing to replay, and this one rolled back.
            onNone: () => Effect.fail(new IdempotencyKeyReused({ key: request.key })),
            onSome: (answer) => answer,
          }))))
        return outcome
      })()

    return { run } as const
  }),
}) {}
