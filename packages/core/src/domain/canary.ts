/** The delivery canary (sending spec, "What the service does": an hourly canary sends a real message end to end, reads
 *  it back and records latency and SPF/DKIM/DMARC results; "Events": the operator alerts email_canary_failed and
 *  email_canary_stale). A run, the rules that decide whether it passed and whether the canary is stale, and the alerts.
 *  docs/canary.md. */

/** What a receiver would conclude of the message: mailauth's result words (RFC 8601: pass, fail, softfail, neutral,
 *  none, temperror, permerror, policy). `none` when there was nothing to check (no signature, no connecting address). */
export type AuthenticationResult = string

export interface CanaryAuthentication {
  readonly spf: AuthenticationResult
  readonly dkim: AuthenticationResult
  readonly dmarc: AuthenticationResult
}

export type CanaryRunStatus = "passed" | "failed"

/** One run of the canary: the message sent at `startedAt` and read back (or not) by `finishedAt`. */
export interface CanaryRun {
  readonly id: string
  readonly status: CanaryRunStatus
  /** The canary address the message went to. */
  readonly recipient: string
  /** The Message-ID it was sent with; null when the relay took nothing. */
  readonly messageId: string | null
  readonly startedAt: Date
  readonly finishedAt: Date
  /** From the send to the moment the message was found in the mailbox; null when it never was. */
  readonly latencyMs: number | null
  /** The results of the received message; null when none was received. */
  readonly authentication: CanaryAuthentication | null
  /** Why the run failed; null when it passed. */
  readonly error: string | null
}

export const canaryLimits = {
  /** The canary is meant to run hourly (sending spec). */
  intervalMs: 60 * 60 * 1000,
  /** How long past the interval a run may be late before the canary is stale (a cron schedule drifts). */
  staleGraceMs: 15 * 60 * 1000,
  /** How long a run waits for its message to arrive, by default. */
  readTimeoutMs: 2 * 60 * 1000,
  /** How often the mailbox is looked at while waiting. */
  pollIntervalMs: 1000,
  /** GET /admin/canary/runs: default and largest `limit`. */
  defaultLimit: 20,
  maxLimit: 100,
} as const

/** Results that fail a run although the message arrived: a receiver would reject it or send it to spam. */
const failingResults: ReadonlyArray<string> = ["fail", "permerror"]

/** Why a received message fails the canary, or null when it passes: an SPF, DKIM or DMARC result of `fail` or
 *  `permerror`. `none`, `neutral`, `softfail` and `temperror` pass (recorded as they are): a platform whose canary
 *  sender has no signing domain yet still learns whether mail arrives. */
export const authenticationProblem = (results: CanaryAuthentication): string | null => {
  const failed = (["spf", "dkim", "dmarc"] as const).filter((name) => failingResults.includes(results[name]))
  return failed.length === 0 ? null : `the received message failed ${failed.map((name) => `${name.toUpperCase()} (${results[name]})`).join(", ")}`
}

/** Whether the canary is stale at `now`: no run finished within the interval and its grace, counted from the last run's
 *  end, or, before any run, from `watchingSince` (when this process started watching). */
export const isCanaryStale = (lastFinishedAt: Date | null, watchingSince: Date, now: Date, staleAfterMs: number): boolean =>
  now.getTime() - (lastFinishedAt ?? watchingSince).getTime() > staleAfterMs

/** An operator alert (sending spec, "Events"). */
export type CanaryAlert =
  | { readonly name: "email_canary_failed"; readonly severity: "critical"; readonly message: string; readonly run: CanaryRun }
  | { readonly name: "email_canary_stale"; readonly severity: "high"; readonly message: string; readonly lastRun: CanaryRun | null }
