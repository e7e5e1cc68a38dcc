/** Building the MIME message that leaves Mailroom, with nodemailer's composer and DKIM signer. Both engines use it, so
 *  the dev outbox shows exactly the bytes a relay would have received. */
import { createPrivateKey, randomUUID } from "node:crypto"
import type { Readable } from "node:stream"
import { MailerError, type MailAddress, type OutgoingMessage } from "@mailroom/core"
import { Effect } from "effect"
import type Mail from "nodemailer/lib/mailer/index.js"
import DKIM from "nodemailer/lib/dkim/index.js"
import MailComposer from "nodemailer/lib/mail-composer/index.js"

export interface ComposedMessage {
  /** The Message-ID the message carries, `<id@domain>`. */
  readonly messageId: string
  /** The whole message as sent: headers (DKIM-Signature first when signed), a blank line, the body. */
  readonly raw: Buffer
}

const addressOf = (address: MailAddress): Mail.Address | string =>
  address.name === undefined || address.name === "" ? address.email : { name: address.name, address: address.email }

/** The domain of an address, for Message-IDs; `localhost` when the address has none. */
const domainOf = (email: string): string => {
  const at = email.lastIndexOf("@")
  const domain = at < 0 ? "" : email.slice(at + 1).trim()
  return domain === "" ? "localhost" : domain
}

/** `<uuid@sender-domain>`: unique, and on the sender's domain as receivers expect. */
export const makeMessageId = (message: OutgoingMessage): string => `<${randomUUID()}@${domainOf(message.from.email)}>`

const collect = (stream: Readable): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    stream.on("data", (chunk: Buffer) => chunks.push(chunk))
    stream.once("error", reject)
    stream.once("end", () => resolve(Buffer.concat(chunks)))
  })

const mailOptions = (message: OutgoingMessage, messageId: string, date: Date): Mail.Options => ({
  from: addressOf(message.from),
  to: message.to.map(addressOf),
  ...(message.cc === undefined || message.cc.length === 0 ? {} : { cc: message.cc.map(addressOf) }),
  ...(message.replyTo === undefined ? {} : { replyTo: addressOf(message.replyTo) }),
  subject: message.subject,
  ...(message.text === undefined ? {} : { text: message.text }),
  ...(message.html === undefined ? {} : { html: message.html }),
  ...(message.headers === undefined ? {} : { headers: { ...message.headers } }),
  attachments: (message.attachments ?? []).map((attachment) => ({
    filename: attachment.filename,
    content: attachment.contentBase64,
    encoding: "base64",
    contentType: attachment.contentType,
  })),
  messageId,
  date,
  // Content comes only from the message itself: never from a file path or URL named in it.
  disableFileAccess: true,
  disableUrlAccess: true,
})

/** The message as it leaves Mailroom, signed with its DKIM key when it has one. `date` becomes the Date: header.
 *  Fails with MailerError when nodemailer cannot build or sign it (a key that does not load, say): nothing is sent
 *  then, rather than a message without the signature its domain publishes. */
export const composeMessage = (message: OutgoingMessage, date: Date): Effect.Effect<ComposedMessage, MailerError> => {
  const messageId = message.messageId ?? makeMessageId(message)
  return Effect.tryPromise({
    try: async () => {
      const unsigned = await new MailComposer(mailOptions(message, messageId, date)).compile().build()
      if (message.dkim === undefined) return { messageId, raw: unsigned }
      // nodemailer's signer leaves a message unsigned when the key does not load; Mailroom refuses to send it so.
      createPrivateKey(message.dkim.privateKey)
      const signer = new DKIM({
        domainName: message.dkim.domainName,
        keySelector: message.dkim.keySelector,
        privateKey: message.dkim.privateKey,
      })
      const raw = await collect(signer.sign(unsigned))
      if (!raw.subarray(0, 15).equals(Buffer.from("DKIM-Signature:"))) throw new Error("the DKIM signer did not sign")
      return { messageId, raw }
    },
    catch: (cause) => new MailerError({ detail: `the message could not be built: ${String(cause)}`, cause }),
  })
}

/** The header block of `raw`, keyed by lower-case name, each value unfolded (RFC 5322 2.2.3) and left encoded as
 *  sent. A name that appears more than once keeps every value, joined by a newline, in message order. */
export const readHeaders = (raw: Buffer): Record<string, string> => {
  const text = raw.toString("utf8")
  const end = text.search(/\r?\n\r?\n/)
  const block = end < 0 ? text : text.slice(0, end)
  const headers: Record<string, string> = {}
  for (const line of block.replace(/\r?\n(?=[ \t])/g, "").split(/\r?\n/)) {
    const colon = line.indexOf(":")
    if (colon <= 0) continue
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    headers[name] = headers[name] === undefined ? value : `${headers[name]}\n${value}`
  }
  return headers
}
