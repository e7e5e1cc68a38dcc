/** The Mailer over an SMTP relay: nodemailer's SMTP client on a pool of kept-alive connections. Each send reports,
 *  per envelope recipient, what the relay answered at RCPT TO and at the end of DATA, or `unknown` when the
 *  connection broke after the whole message was handed to the relay and before its answer. */
import { PassThrough } from "node:stream"
import { Mailer, MailerError, type MailResult, type OutgoingMessage, type RecipientOutcome } from "@mailroom/core"
import { Clock, Data, Effect, Layer, Pool } from "effect"
import SMTPConnection from "nodemailer/lib/smtp-connection/index.js"
import { composeMessage } from "./compose.js"
import { outcomeOf, unknownOutcome } from "./replies.js"
import { parseSmtpUrl, type SmtpOptions } from "./smtp-options.js"

interface PooledConnection {
  readonly connection: SMTPConnection
  readonly label: string
  /** Messages sent over it so far. */
  messages: number
  /** The relay or the network closed it; the pool must replace it. */
  closed: boolean
}

/** The RCPT TO answers nodemailer keeps while a transaction runs. It hands them back only when the message is
 *  accepted; after a refusal at the end of DATA or a broken connection they are read from here. */
interface EnvelopeState {
  readonly accepted?: ReadonlyArray<string>
  readonly rejectedErrors?: ReadonlyArray<SMTPConnection.SMTPError & { readonly recipient?: string }>
}
const envelopeState = (connection: SMTPConnection): EnvelopeState | undefined => {
  const state = (connection as unknown as { readonly _envelope?: EnvelopeState | false })._envelope
  return state === false ? undefined : state
}

type Transmission = Data.TaggedEnum<{
  /** The relay accepted the message at the end of DATA. */
  Sent: { readonly info: SMTPConnection.SentMessageInfo }
  /** The relay answered with a refusal. */
  Refused: { readonly error: SMTPConnection.SMTPError }
  /** The connection broke or timed out; `dataSent` tells whether the whole message (final dot included) had been
   *  handed to the socket. */
  Broken: { readonly error: Error; readonly dataSent: boolean; readonly envelope: EnvelopeState | undefined }
}>
const Transmission = Data.taggedEnum<Transmission>()

class StaleConnection extends Data.TaggedError("StaleConnection") {}

const describe = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  const { code } = error as SMTPConnection.SMTPError
  return code === undefined ? error.message : `${code}: ${error.message}`
}

const connectionOptions = (options: SmtpOptions): SMTPConnection.Options => ({
  host: options.host,
  port: options.port ?? (options.secure === true ? 465 : 587),
  secure: options.secure ?? false,
  ...(options.starttls === "required" ? { requireTLS: true } : {}),
  ...(options.starttls === "never" ? { ignoreTLS: true } : {}),
  tls: { rejectUnauthorized: options.rejectUnauthorized ?? true, servername: options.host },
  connectionTimeout: options.connectionTimeoutMs ?? 10_000,
  greetingTimeout: options.greetingTimeoutMs ?? 10_000,
  socketTimeout: options.socketTimeoutMs ?? 60_000,
  ...(options.clientName === undefined ? {} : { name: options.clientName }),
})

/** Opens, greets (STARTTLS as configured) and logs in; closed when the pool lets it go. */
const openConnection = (options: SmtpOptions) => {
  const label = `${options.host}:${options.port ?? (options.secure === true ? 465 : 587)}`
  return Effect.acquireRelease(
    Effect.async<PooledConnection, MailerError>((resume) => {
      const connection = new SMTPConnection(connectionOptions(options))
      const pooled: PooledConnection = { connection, label, messages: 0, closed: false }
      let settled = false
      const fail = (error: unknown) => {
        if (settled) return
        settled = true
        connection.close()
        resume(Effect.fail(new MailerError({ detail: `could not open a session with the SMTP relay ${label}: ${describe(error)}`, cause: error })))
      }
      // An error with no listener would crash the process: this one stays for the connection's life.
      connection.on("error", (error) => {
        pooled.closed = true
        fail(error)
      })
      connection.on("end", () => {
        pooled.closed = true
        fail(new Error("the relay closed the connection"))
      })
      connection.connect(() => {
        if (options.auth === undefined) {
          settled = true
          return resume(Effect.succeed(pooled))
        }
        connection.login({ credentials: { user: options.auth.user, pass: options.auth.pass } }, (error) => {
          if (error) return fail(error)
          settled = true
          resume(Effect.succeed(pooled))
        })
      })
      return Effect.sync(() => connection.close())
    }),
    ({ connection }) => Effect.sync(() => connection.quit()),
  )
}

/** One SMTP transaction on `pooled`. Never fails: every way it ends is a Transmission. */
const transmit = (pooled: PooledConnection, envelopeFrom: string, envelopeTo: ReadonlyArray<string>, raw: Buffer) =>
  Effect.async<Transmission>((resume) => {
    const { connection } = pooled
    let dataSent = false
    let settled = false
    const finish = (transmission: () => Transmission) => {
      if (settled) return
      settled = true
      connection.removeListener("error", onError)
      connection.removeListener("end", onEnd)
      resume(Effect.succeed(transmission()))
    }
    const broken = (error: Error) => () => Transmission.Broken({ error, dataSent, envelope: envelopeState(connection) })
    const onError = (error: Error) => finish(broken(error))
    const onEnd = () => finish(broken(new Error("the relay closed the connection")))
    connection.on("error", onError)
    connection.on("end", onEnd)

    // nodemailer pipes the message into its DATA encoder only once RCPT TO and DATA were accepted. That encoder ends
    // once it has handed the last byte and the final dot to the socket: from then on the relay may have the message.
    const source = new PassThrough()
    const pipe = source.pipe.bind(source)
    source.pipe = (<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }) => {
      ;(destination as unknown as NodeJS.ReadableStream).once("end", () => {
        dataSent = true
      })
      return pipe(destination, options)
    })
    source.end(raw)

    connection.send({ from: envelopeFrom, to: [...envelopeTo] }, source, (error, info) => {
      if (error === null) return finish(() => Transmission.Sent({ info }))
      const refused = error.code === "EENVELOPE" || error.code === "EMESSAGE"
      finish(refused && error.response !== undefined ? () => Transmission.Refused({ error }) : broken(error))
    })
    return Effect.sync(() => {
      pooled.closed = true
      connection.close()
    })
  })

/** Each envelope recipient's outcome: its own RCPT TO refusal when it had one, `accepted` for everyone else. */
const outcomes = (
  envelopeTo: ReadonlyArray<string>,
  rejected: ReadonlyArray<SMTPConnection.SMTPError & { readonly recipient?: string }>,
  accepted: (recipient: string) => RecipientOutcome,
): ReadonlyArray<RecipientOutcome> => {
  const refusals = new Map(rejected.map((error) => [error.recipient ?? "", error.response ?? error.message]))
  return envelopeTo.map((recipient) => {
    const refusal = refusals.get(recipient)
    return refusal === undefined ? accepted(recipient) : outcomeOf(recipient, refusal)
  })
}

const resultOf = (
  pooled: PooledConnection,
  message: OutgoingMessage,
  messageId: string,
  transmission: Transmission,
): Effect.Effect<MailResult, MailerError> =>
  Transmission.$match(transmission, {
    Sent: ({ info }) =>
      Effect.succeed({
        messageId,
        recipients: outcomes(message.envelopeTo, info.rejectedErrors ?? [], (recipient) => outcomeOf(recipient, info.response)),
      }),
    Refused: ({ error }) => {
      const reply = error.response ?? error.message
      // Every recipient refused at RCPT TO: nodemailer lists them on the error.
      const rejected = (error as { readonly rejectedErrors?: EnvelopeState["rejectedErrors"] }).rejectedErrors
      if (error.command === "RCPT TO" && rejected !== undefined) {
        return Effect.succeed({ messageId, recipients: outcomes(message.envelopeTo, rejected, (r) => outcomeOf(r, reply)) })
      }
      // The DATA command or the message refused: the reply answers every recipient that RCPT TO accepted.
      if (error.command === "DATA") {
        const state = envelopeState(pooled.connection)
        return Effect.succeed({
          messageId,
          recipients: outcomes(message.envelopeTo, state?.rejectedErrors ?? [], (recipient) => outcomeOf(recipient, reply)),
        })
      }
      // MAIL FROM refused (a sender the relay does not allow, a message over its size limit): nothing was submitted.
      return Effect.fail(new MailerError({ detail: `the SMTP relay ${pooled.label} refused the sender: ${reply}`, cause: error }))
    },
    Broken: ({ error, dataSent, envelope }) =>
      dataSent
        ? Effect.succeed({
          messageId,
          recipients: outcomes(message.envelopeTo, envelope?.rejectedErrors ?? [], (recipient) => unknownOutcome(recipient, describe(error))),
        })
        : Effect.fail(new MailerError({
          detail: `the connection to the SMTP relay ${pooled.label} broke before the message was submitted: ${describe(error)}`,
          cause: error,
        })),
  })

/** A Mailer over the relay, with its connection pool; closing the scope closes every connection. */
export const makeSmtpMailer = (options: SmtpOptions) =>
  Effect.gen(function* () {
    const maxConnections = options.maxConnections ?? 5
    const maxMessages = options.maxMessagesPerConnection ?? 100
    const pool = yield* Pool.makeWithTTL({
      acquire: openConnection(options),
      min: 0,
      max: maxConnections,
      timeToLive: options.idleTimeoutMs ?? 30_000,
      timeToLiveStrategy: "usage",
    })

    const send = (message: OutgoingMessage) =>
      Effect.gen(function* () {
        const composed = yield* composeMessage(message, new Date(yield* Clock.currentTimeMillis))
        const attempt = Effect.scoped(Effect.gen(function* () {
          const pooled = yield* Pool.get(pool)
          if (pooled.closed) {
            yield* Pool.invalidate(pool, pooled)
            return yield* Effect.fail(new StaleConnection())
          }
          const transmission = yield* transmit(pooled, message.envelopeFrom, message.envelopeTo, composed.raw)
          pooled.messages += 1
          // A connection that saw anything but a clean transaction is not reused, nor one that has done its share.
          if (transmission._tag !== "Sent" || pooled.messages >= maxMessages) {
            pooled.closed = true
            yield* Pool.invalidate(pool, pooled)
          }
          return yield* resultOf(pooled, message, composed.messageId, transmission)
        }))
        // A pooled connection the relay closed while idle is replaced; nothing was sent over it.
        return yield* attempt.pipe(
          Effect.retry({ while: (error) => error._tag === "StaleConnection", times: maxConnections + 1 }),
          Effect.catchTag("StaleConnection", (cause) =>
            Effect.fail(new MailerError({ detail: "no usable connection to the SMTP relay", cause }))),
        )
      })

    return Mailer.of({ send })
  })

export const SmtpMailer = {
  /** The Mailer over the relay `options` describe. */
  layer: (options: SmtpOptions): Layer.Layer<Mailer> => Layer.scoped(Mailer, makeSmtpMailer(options)),
  /** The same from an `smtp://user:pass@host:port` or `smtps://…` URL; throws SmtpUrlError (without the password)
   *  when the URL cannot be used. */
  layerFromUrl: (url: string): Layer.Layer<Mailer> => SmtpMailer.layer(parseSmtpUrl(url)),
} as const
