/** A real SMTP server on 127.0.0.1 for tests: it records every message that reaches the end of DATA and answers as it is
 *  told, per recipient or per message, or drops the connection in the middle of the message or after it without
 *  answering. Built on smtp-server; hosts can use it in their own tests too. */
import type { AddressInfo } from "node:net"
import { SMTPServer, type SMTPServerAddress, type SMTPServerOptions } from "smtp-server"

/** One SMTP reply: `code` and its text. The text may start with an enhanced status code (`5.1.1 No such user`); the
 *  sink sends it as given. `delayMs` holds the reply back, to play a slow relay. */
export interface SinkReply {
  readonly code: number
  readonly message?: string
  readonly delayMs?: number
}

export interface SinkMessage {
  /** 1, 2, 3… in arrival order. */
  readonly sequence: number
  /** The session (connection) it came over; pooled sends share one. */
  readonly sessionId: string
  /** MAIL FROM. */
  readonly mailFrom: string
  /** The recipients the sink accepted at RCPT TO, in order. */
  readonly rcptTo: ReadonlyArray<string>
  /** The message as received, headers and body, CRLF line ends, dot-stuffing undone. */
  readonly raw: string
  /** How the sink answered the end of DATA: a reply, or `drop` when it closed the connection instead. */
  readonly answer: SinkReply | "drop"
}

/** How the sink answers. Each function may return undefined for the default: 250, or `drop` to close the connection
 *  at that point without answering. */
export interface SinkBehaviour {
  readonly mailFrom?: (address: string) => SinkReply | "drop" | undefined
  readonly recipient?: (address: string) => SinkReply | "drop" | undefined
  /** The answer at the end of DATA, or `drop` to read the whole message and close the connection without answering. */
  readonly data?: (message: Omit<SinkMessage, "answer" | "sequence">) => SinkReply | "drop" | undefined
  /** Once the message has started to arrive (after the 354): `drop` closes the connection in the middle of DATA,
   *  before the end of the message; nothing is recorded. */
  readonly dataStart?: (envelope: { readonly rcptTo: ReadonlyArray<string> }) => "drop" | undefined
}

export interface SmtpSinkOptions {
  /** TLS from the first byte (smtps://). The certificate is smtp-server's self-signed one for localhost. */
  readonly secure?: boolean
  /** Offer STARTTLS (with the same certificate). Default false. */
  readonly starttls?: boolean
  /** Require AUTH PLAIN/LOGIN with these credentials. */
  readonly auth?: { readonly user: string; readonly pass: string }
  readonly behaviour?: SinkBehaviour
}

export interface SmtpSink {
  readonly host: "127.0.0.1"
  readonly port: number
  /** `smtp://127.0.0.1:<port>` (smtps:// when secure), with the credentials when auth is required. */
  readonly url: string
  /** Every message that reached the end of DATA, in arrival order. */
  readonly messages: ReadonlyArray<SinkMessage>
  /** Messages with this address among their accepted recipients (case-insensitive). */
  readonly messagesTo: (address: string) => ReadonlyArray<SinkMessage>
  /** Connections opened to the sink so far. */
  readonly connectionCount: () => number
  /** The most connections that were open at the same time so far. */
  readonly peakConnections: () => number
  /** Replaces how the sink answers from now on (functions left out answer 250). */
  readonly behave: (behaviour: SinkBehaviour) => void
  /** Forgets recorded messages and connection counts, and answers 250 to everything again. */
  readonly reset: () => void
  /** Waits until `count` messages have arrived (or fails after `timeoutMs`, default 5 s). */
  readonly waitForMessages: (count: number, timeoutMs?: number) => Promise<ReadonlyArray<SinkMessage>>
  /** Stops listening and drops every open connection. */
  readonly close: () => Promise<void>
}

/** An SMTP error smtp-server sends as `<code> <message>`. */
const replyError = (reply: SinkReply): Error =>
  Object.assign(new Error(reply.message ?? (reply.code >= 500 ? "Rejected" : "Try again later")), { responseCode: reply.code })

const isSuccess = (reply: SinkReply | undefined) => reply === undefined || (reply.code >= 200 && reply.code < 300)

const later = (reply: SinkReply | undefined, answer: () => void) => {
  if (reply?.delayMs === undefined) answer()
  else setTimeout(answer, reply.delayMs)
}

/** smtp-server offers no public way to hang up on one session: its connections keep their socket in `_socket`. */
interface ServerConnection {
  readonly session?: { readonly id?: string }
  readonly _socket?: { destroy(): void }
}

/** Starts a sink on a free port of 127.0.0.1. */
export const startSmtpSink = async (options: SmtpSinkOptions = {}): Promise<SmtpSink> => {
  const messages: Array<SinkMessage> = []
  let behaviour: SinkBehaviour = options.behaviour ?? {}
  let connections = 0
  let open = 0
  let peak = 0
  const waiters = new Set<() => void>()

  const serverOptions: SMTPServerOptions = {
    secure: options.secure ?? false,
    disabledCommands: [
      ...(options.starttls === true || options.secure === true ? [] : ["STARTTLS"]),
      ...(options.auth === undefined ? ["AUTH"] : []),
    ],
    authOptional: options.auth === undefined,
    // The sink is plain text on loopback unless told otherwise; let clients log in over it.
    allowInsecureAuth: true,
    logger: false,
    closeTimeout: 100,
    onConnect: (_session, callback) => {
      connections += 1
      open += 1
      peak = Math.max(peak, open)
      callback()
    },
    onClose: () => {
      open -= 1
    },
    onAuth: (auth, _session, callback) => {
      if (auth.username === options.auth?.user && auth.password === options.auth?.pass) {
        return callback(null, { user: auth.username })
      }
      callback(Object.assign(new Error("5.7.8 Authentication credentials invalid"), { responseCode: 535 }))
    },
    onMailFrom: (address: SMTPServerAddress, session, callback) => {
      const reply = behaviour.mailFrom?.(address.address)
      if (reply === "drop") return hangUp(session.id)
      later(reply, () => callback(isSuccess(reply) ? null : replyError(reply!)))
    },
    onRcptTo: (address: SMTPServerAddress, session, callback) => {
      const reply = behaviour.recipient?.(address.address)
      if (reply === "drop") return hangUp(session.id)
      later(reply, () => callback(isSuccess(reply) ? null : replyError(reply!)))
    },
    onData: (stream, session, callback) => {
      if (behaviour.dataStart?.({ rcptTo: session.envelope.rcptTo.map((address) => address.address) }) === "drop") {
        stream.once("data", () => hangUp(session.id))
        stream.resume()
        return
      }
      const chunks: Array<Buffer> = []
      stream.on("data", (chunk: Buffer) => chunks.push(chunk))
      stream.once("end", () => {
        const received = {
          sessionId: session.id,
          mailFrom: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
          rcptTo: session.envelope.rcptTo.map((address) => address.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        }
        const answer = behaviour.data?.(received) ?? { code: 250 }
        messages.push({ ...received, sequence: messages.length + 1, answer })
        for (const wake of waiters) wake()
        if (answer === "drop") return hangUp(session.id)
        later(answer, () => {
          if (isSuccess(answer)) callback(null, answer.message ?? "2.0.0 OK: queued")
          else callback(replyError(answer))
        })
      })
    },
  }
  const server = new SMTPServer(serverOptions)
  const hangUp = (sessionId: string) => {
    for (const connection of server.connections as Set<ServerConnection>) {
      if (connection.session?.id === sessionId) connection._socket?.destroy()
    }
  }
  // A client that hangs up mid-session is part of the tests; the sink keeps serving.
  server.on("error", () => undefined)
  await new Promise<void>((resolve, reject) => {
    server.listen(0, "127.0.0.1", () => resolve())
    server.server.once("error", reject)
  })
  const port = (server.server.address() as AddressInfo).port
  const credentials = options.auth === undefined
    ? ""
    : `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.pass)}@`
  const scheme = options.secure === true ? "smtps" : "smtp"

  return {
    host: "127.0.0.1",
    port,
    url: `${scheme}://${credentials}127.0.0.1:${port}`,
    messages,
    messagesTo: (address) =>
      messages.filter((message) => message.rcptTo.some((recipient) => recipient.toLowerCase() === address.toLowerCase())),
    connectionCount: () => connections,
    peakConnections: () => peak,
    behave: (next) => {
      behaviour = next
    },
    reset: () => {
      messages.length = 0
      connections = 0
      peak = open
      behaviour = {}
    },
    waitForMessages: (count, timeoutMs = 5_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (messages.length < count) return
          waiters.delete(check)
          clearTimeout(timer)
          resolve([...messages])
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`the SMTP sink received ${messages.length} of ${count} messages within ${timeoutMs} ms`))
        }, timeoutMs)
        waiters.add(check)
        check()
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const connection of server.connections as Set<ServerConnection>) connection._socket?.destroy()
        server.close(() => resolve())
      }),
  }
}
