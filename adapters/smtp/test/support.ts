/** Helpers for the SMTP engine's tests: a Mailer over a sink, and a message to send. */
import { Mailer, type OutgoingMessage } from "@mailroom/core"
import { Effect } from "effect"
import { SmtpMailer } from "../src/index.js"
import type { SmtpOptions } from "../src/smtp-options.js"

/** Runs `use` with a fresh SMTP Mailer (and its pool), closing every connection afterwards. */
export const withMailer = <A, E>(options: SmtpOptions, use: (mailer: Mailer["Type"]) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(Mailer, use).pipe(Effect.provide(SmtpMailer.layer(options))))

/** Options for a sink on 127.0.0.1:`port`, with short timeouts so that a failing test fails fast. */
export const sinkOptions = (port: number, overrides: Partial<SmtpOptions> = {}): SmtpOptions => ({
  host: "127.0.0.1",
  port,
  connectionTimeoutMs: 2_000,
  greetingTimeoutMs: 2_000,
  socketTimeoutMs: 5_000,
  ...overrides,
})

export const message = (overrides: Partial<OutgoingMessage> = {}): OutgoingMessage => ({
  envelopeFrom: "bounces+abc@mail.example.com",
  envelopeTo: ["ada@example.net"],
  from: { email: "news@example.com", name: "Example News" },
  to: [{ email: "ada@example.net", name: "Ada Lovelace" }],
  subject: "Hello Ada",
  html: "<p>Hello <b>Ada</b></p>",
  text: "Hello Ada",
  ...overrides,
})
