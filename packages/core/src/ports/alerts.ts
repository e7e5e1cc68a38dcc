/** The Alerts port: operator alerts (sending spec, "Events": email_canary_failed, Critical; email_canary_stale, High).
 *  The default logs each alert (an error for Critical, a warning for High); a host that wants to be told (a pager, a
 *  chat channel, mail) passes `alerts.notify` to createMailroom, which logs and then calls it. docs/canary.md. */
import { Context, Effect } from "effect"
import type { CanaryAlert } from "../domain/canary.js"

export interface AlertsService {
  /** Raises `alert`. Never fails: a notifier that fails is logged and the alert stays raised in the log. */
  readonly raise: (alert: CanaryAlert) => Effect.Effect<void>
}

/** The log line of an alert: its name and severity, then its message. */
export const logAlert = (alert: CanaryAlert): Effect.Effect<void> => {
  const line = `alert ${alert.name} (${alert.severity}): ${alert.message}`
  return alert.severity === "critical" ? Effect.logError(line) : Effect.logWarning(line)
}

/** Alerts that log, then hand the alert to `notify`. */
export const notifyingAlerts = (notify: (alert: CanaryAlert) => Promise<void> | void): AlertsService => ({
  raise: (alert) => Effect.zipRight(logAlert(alert), Effect.tryPromise(async () => { await notify(alert) }).pipe(
    Effect.catchAll((error) => Effect.logError(`alert ${alert.name}: notifying the operator failed`, error.cause)),
  )),
})

export class Alerts extends Context.Reference<Alerts>()("@mailroom/core/Alerts", {
  defaultValue: (): AlertsService => ({ raise: logAlert }),
}) {}
