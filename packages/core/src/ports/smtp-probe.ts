/** The SmtpProbe port: asks a mail server whether it would take mail for some recipients, without sending any. The
 *  engine is @mailroom/net's NetSmtpProbe (node:net on SMTP_PROBE_PORT); core opens no connection itself. */
import { Context, Effect } from "effect"

/** How a server answered RCPT TO for one recipient: `accepted` (2xx), `rejected` (5xx), or `unknown` (4xx, no answer
 *  in time, a refused or dropped connection, a session that failed before RCPT TO). */
export type ProbeAnswer = "accepted" | "rejected" | "unknown"

export interface ProbeRequest {
  /** The IP address of the mail server (resolved through the Dns port, so that DNS_SERVERS applies). */
  readonly address: string
  /** The server's host name, for messages. */
  readonly host: string
  /** Recipients asked in one session, in order. */
  readonly recipients: ReadonlyArray<string>
  /** Bounds every step: the connection, the greeting and each reply. */
  readonly timeoutMs: number
}

export interface SmtpProbeService {
  /** One session: greeting, EHLO (HELO when EHLO is refused), `MAIL FROM:<>`, RCPT TO for each recipient, QUIT. Answers
   *  one ProbeAnswer per recipient, in order; never fails: what cannot be learned is `unknown`. */
  readonly probe: (request: ProbeRequest) => Effect.Effect<ReadonlyArray<ProbeAnswer>>
}

/** Until a host provides an engine (the facade provides NetSmtpProbe), every answer is unknown. */
export class SmtpProbe extends Context.Reference<SmtpProbe>()("@mailroom/core/SmtpProbe", {
  defaultValue: (): SmtpProbeService => ({ probe: (request) => Effect.succeed(request.recipients.map(() => "unknown" as const)) }),
}) {}
