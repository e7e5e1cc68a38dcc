/** Operator alerts POSTed to a webhook (ALERT_WEBHOOK_URL; docs/canary.md, "Alerts"): each alert is one JSON body,
 *  signed like Mailroom's outgoing webhooks when a secret is set (ALERT_WEBHOOK_SECRET: Standard Webhooks `webhook-id`,
 *  `webhook-timestamp`, `webhook-signature`, and the hex `X-Service-Signature`), tried up to three times. The URL is
 *  the operator's own, so private and loopback addresses are allowed, as for SMTP_URL. */
import { randomUUID } from "node:crypto"
import { type CanaryAlert, type CanaryRun, secretPrefix, signBody, standardSignature } from "@mailroom/core"

export interface AlertWebhookOptions {
  /** `http://` or `https://` URL the alerts are POSTed to. */
  readonly url: string
  /** A `whsec_` secret (`whsec_` and base64 of at least 24 bytes) that signs each request; unset, requests are not
   *  signed. */
  readonly secret?: string | undefined
  /** How long one attempt waits for the answer. Default 10 seconds. */
  readonly timeoutMs?: number
  /** Waits between attempts. Default 1 and 5 seconds (three attempts). */
  readonly retryDelaysMs?: ReadonlyArray<number>
}

/** Thrown for an unusable alert webhook URL or secret; the message is one line that names the variable. */
export class AlertWebhookError extends Error {}

export const minimumAlertSecretBytes = 24

/** Throws AlertWebhookError unless `url` is an http(s) URL and `secret`, when given, a usable `whsec_` secret. */
export const checkAlertWebhook = (options: Pick<AlertWebhookOptions, "url" | "secret">): void => {
  const url = URL.canParse(options.url) ? new URL(options.url) : undefined
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new AlertWebhookError(`ALERT_WEBHOOK_URL must be an http:// or https:// URL, not "${options.url}"`)
  }
  if (url.username !== "" || url.password !== "") {
    throw new AlertWebhookError("ALERT_WEBHOOK_URL must not carry a user name or password; sign requests with ALERT_WEBHOOK_SECRET")
  }
  if (options.secret === undefined) return
  const key = options.secret.startsWith(secretPrefix) ? options.secret.slice(secretPrefix.length) : ""
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || Buffer.from(key, "base64").length < minimumAlertSecretBytes) {
    throw new AlertWebhookError(
      `ALERT_WEBHOOK_SECRET must be ${secretPrefix} followed by base64 of at least ${minimumAlertSecretBytes} random bytes ` +
        `(for example: node -e "console.log('whsec_' + crypto.randomBytes(32).toString('base64'))")`,
    )
  }
}

const runJson = (run: CanaryRun) => ({
  id: run.id,
  status: run.status,
  recipient: run.recipient,
  messageId: run.messageId,
  startedAt: run.startedAt.toISOString(),
  finishedAt: run.finishedAt.toISOString(),
  latencyMs: run.latencyMs,
  authentication: run.authentication,
  error: run.error,
})

/** The JSON body of one alert: its name and severity, the message of the log line, when it was raised, and the details
 *  (the failed run; the last run that finished, or null). */
export const alertBody = (alert: CanaryAlert, id: string, raisedAt: Date) => ({
  type: "alert" as const,
  id,
  name: alert.name,
  severity: alert.severity,
  message: alert.message,
  raisedAt: raisedAt.toISOString(),
  details: alert.name === "email_canary_failed"
    ? { run: runJson(alert.run) }
    : { lastRun: alert.lastRun === null ? null : runJson(alert.lastRun) },
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A notifier for `alerts.notify`: POSTs each alert to `options.url`, with one `webhook-id` for all its attempts, until
 *  an answer is 2xx. Rejects (and the alert port logs it) when every attempt failed. Throws AlertWebhookError at once
 *  for an unusable URL or secret. */
export const webhookAlertNotifier = (options: AlertWebhookOptions): ((alert: CanaryAlert) => Promise<void>) => {
  checkAlertWebhook(options)
  const delays = options.retryDelaysMs ?? [1_000, 5_000]
  const timeoutMs = options.timeoutMs ?? 10_000
  return async (alert) => {
    const id = `alrt_${randomUUID().replaceAll("-", "")}`
    const body = JSON.stringify(alertBody(alert, id, new Date()))
    let failure = ""
    for (let attempt = 0; attempt <= delays.length; attempt++) {
      if (attempt > 0) await sleep(delays[attempt - 1]!)
      const timestamp = Math.floor(Date.now() / 1000)
      const headers: Record<string, string> = {
        "content-type": "application/json",
        "user-agent": "Mailroom-Alerts/1",
        "x-service-event": alert.name,
        "webhook-id": id,
        "webhook-timestamp": String(timestamp),
        ...(options.secret === undefined ? {} : {
          "webhook-signature": standardSignature(options.secret, id, timestamp, body),
          "x-service-signature": signBody(options.secret, body),
        }),
      }
      try {
        const response = await fetch(options.url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) })
        await response.body?.cancel()
        if (response.status >= 200 && response.status <= 299) return
        failure = `answered ${response.status}`
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error)
      }
    }
    throw new Error(`the alert webhook ${new URL(options.url).origin} failed ${delays.length + 1} times; last: ${failure}`)
  }
}
