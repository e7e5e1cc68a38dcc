/** The Mailbox engines of the delivery canary (docs/canary.md): the dev outbox, where development mail is kept, and an
 *  IMAP mailbox read with imapflow. Both find the canary's message by its X-Mailroom-Canary header. */
import { Mailbox, MailboxError, type MailboxService, type ReceivedMessage, Store } from "@mailroom/core"
import { Effect, Layer, Option } from "effect"

/** The dev outbox as a mailbox: the newest entries to the address, one of which carries the token. Entries stay (the
 *  outbox is the operator's to read and empty). */
export const devOutboxMailbox = Layer.effect(Mailbox, Effect.map(Store, (store): MailboxService => ({
  take: (address, token) =>
    store.devOutbox.list({ to: address, limit: 20 }).pipe(
      Effect.map((entries) => Option.flatMap(
        Option.fromNullable(entries.find((entry) => entry.headers["x-mailroom-canary"] === token)),
        (entry): Option.Option<ReceivedMessage> => entry.raw === undefined || entry.raw === null ? Option.none() : Option.some({ raw: entry.raw }),
      )),
      Effect.mapError((error) => new MailboxError({ detail: "the dev outbox could not be read", cause: error })),
    ),
})))

export interface ImapMailboxOptions {
  readonly host: string
  readonly port: number
  /** TLS from the start (imaps://); otherwise STARTTLS when the server offers it. */
  readonly secure: boolean
  readonly user: string
  readonly password: string
  /** The folder the canary's mail lands in. Default INBOX. */
  readonly folder: string
}

/** An error about a CANARY_IMAP_URL that cannot be used; never repeats the password. */
export class ImapUrlError extends Error {}

/** `imap://user:password@host:port/FOLDER` or `imaps://…` (user and password percent-encoded; port 143 or 993 by
 *  default; folder INBOX by default). */
export const parseImapUrl = (url: string): ImapMailboxOptions => {
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  if (parsed === undefined || (parsed.protocol !== "imap:" && parsed.protocol !== "imaps:")) {
    throw new ImapUrlError("must be an imap:// or imaps:// URL, such as imaps://canary%40example.com:password@imap.example.com/INBOX")
  }
  if (parsed.hostname === "" || parsed.username === "") throw new ImapUrlError(`names no host or user: write imaps://user:password@host/INBOX`)
  const secure = parsed.protocol === "imaps:"
  const folder = decodeURIComponent(parsed.pathname.replace(/^\//, ""))
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: parsed.port === "" ? (secure ? 993 : 143) : Number(parsed.port),
    secure,
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    folder: folder === "" ? "INBOX" : folder,
  }
}

/** One look into the IMAP folder: a connection, a header search, the message's source, its deletion, the logout. A
 *  connection per look keeps nothing open between the hourly runs. */
const lookInto = async (options: ImapMailboxOptions, token: string): Promise<ReceivedMessage | undefined> => {
  // Loaded on first use: only an installation whose canary reads a mailbox over IMAP needs the IMAP client.
  const { ImapFlow } = await import("imapflow")
  const client = new ImapFlow({
    host: options.host, port: options.port, secure: options.secure,
    auth: { user: options.user, pass: options.password }, logger: false,
  })
  // A dropped connection is reported through the pending command; without a listener it would be an uncaught event.
  client.on("error", () => undefined)
  await client.connect()
  try {
    const lock = await client.getMailboxLock(options.folder)
    try {
      const found = await client.search({ header: { "x-mailroom-canary": token } }, { uid: true })
      const uid = Array.isArray(found) ? found[0] : undefined
      if (uid === undefined) return undefined
      const message = await client.fetchOne(String(uid), { source: true }, { uid: true })
      if (message === false || message.source === undefined) return undefined
      await client.messageDelete(String(uid), { uid: true })
      return { raw: message.source.toString("utf8") }
    } finally {
      lock.release()
    }
  } finally {
    await client.logout().catch(() => client.close())
  }
}

export const ImapMailbox = {
  layer: (options: ImapMailboxOptions): Layer.Layer<Mailbox> => Layer.succeed(Mailbox, {
    take: (_address, token) => Effect.tryPromise({
      try: () => lookInto(options, token),
      catch: (cause) => new MailboxError({
        detail: `IMAP ${options.host}:${options.port}: ${cause instanceof Error ? cause.message : String(cause)}`, cause,
      }),
    }).pipe(Effect.map(Option.fromNullable)),
  }),
  /** From a CANARY_IMAP_URL; throws ImapUrlError at once for one that cannot be used. */
  layerFromUrl: (url: string): Layer.Layer<Mailbox> => ImapMailbox.layer(parseImapUrl(url)),
} as const
