/** `mailroom.emails`: sending for code. Each method takes the account id where the HTTP route takes an API key; the
 *  Sending service decodes the input with the schemas the routes use, failing with the same errors
 *  (VALIDATION_ERROR, PAYLOAD_TOO_LARGE, QUOTA_EXCEEDED, IDEMPOTENCY_KEY_REUSED, RESOURCE_NOT_FOUND). */
import {
  type Account, Accounts, type BatchInput, type BatchResult, type CancelResult, type MessageDetails, Messages,
  type ScheduleInput, type ScheduleResult, Sending, type SendInput, type SendOptions, type SendResult,
} from "@mailroom/core"
import { Effect } from "effect"
import type { RunPromise } from "./promise-runner.js"

export interface EmailsApi {
  /** POST /emails/send: one message, queued (filtered recipients are dropped and not counted against the quota). */
  readonly send: (accountId: string, input: typeof SendInput.Encoded, options?: SendOptions) => Promise<SendResult>
  /** POST /emails/batch: one message per entry of `recipients`. */
  readonly batch: (accountId: string, input: typeof BatchInput.Encoded, options?: SendOptions) => Promise<BatchResult>
  /** POST /emails/schedule: kept until `scheduledFor`, then queued by the background work. */
  readonly schedule: (accountId: string, input: typeof ScheduleInput.Encoded, options?: SendOptions) => Promise<ScheduleResult>
  /** DELETE /emails/schedule/{id}: RESOURCE_NOT_FOUND once the message was queued. */
  readonly cancel: (accountId: string, messageId: string) => Promise<CancelResult>
  /** GET /emails/{id}: the message, its status, recipients and events. */
  readonly get: (accountId: string, messageId: string) => Promise<MessageDetails>
}

export const makeEmailsApi = (run: RunPromise): EmailsApi => {
  /** The account and the Sending service; an unknown account id fails with RESOURCE_NOT_FOUND. */
  const withAccount = <A, E, R>(accountId: string, use: (account: Account, sending: Sending) => Effect.Effect<A, E, R>) =>
    Effect.gen(function* () {
      const account = yield* (yield* Accounts).get(accountId)
      return yield* use(account, yield* Sending)
    })

  return {
    send: (accountId, input, options) => run(withAccount(accountId, (account, sending) => sending.send(account, input, options))),
    batch: (accountId, input, options) => run(withAccount(accountId, (account, sending) => sending.batch(account, input, options))),
    schedule: (accountId, input, options) =>
      run(withAccount(accountId, (account, sending) => sending.schedule(account, input, options))),
    cancel: (accountId, messageId) => run(withAccount(accountId, (account, sending) => sending.cancel(account, messageId))),
    get: (accountId, messageId) =>
      run(withAccount(accountId, (account) => Effect.flatMap(Messages, (messages) => messages.get(account, messageId)))),
  }
}
