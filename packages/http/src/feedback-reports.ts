/** Reading the reports mail systems send back about mail Mailroom sent: delivery status notifications (RFC 3464,
 *  asynchronous bounces) and feedback-loop complaint reports (ARF, RFC 5965). Each takes one raw message, as a host
 *  gets it from an inbound mailbox or a provider's notification, and answers the report's facts; core's
 *  delivery-outcome rules decide what they mean. MIME is parsed with mailparser. */
import { ValidationFailed } from "@mailroom/core"
import { Effect } from "effect"
import { simpleParser, type ParsedMail } from "mailparser"

/** One block of `Name: value` fields (RFC 822 style; continuation lines folded in). Names are lower-cased. */
export type FieldBlock = ReadonlyMap<string, ReadonlyArray<string>>

/** Splits a message/delivery-status or message/feedback-report body into its blocks of fields: the first block is
 *  per message, the others (DSN) per recipient. Blank lines separate blocks; lines that are not fields are skipped. */
export const parseFieldBlocks = (text: string): ReadonlyArray<FieldBlock> => {
  const blocks: Array<Map<string, Array<string>>> = []
  let current: Map<string, Array<string>> | undefined
  let last: { name: string; index: number } | undefined
  for (const line of text.replace(/\r\n?/g, "\n").split("\n")) {
    if (line.trim() === "") {
      current = undefined
      last = undefined
      continue
    }
    if (/^[ \t]/.test(line) && current !== undefined && last !== undefined) {
      const values = current.get(last.name)!
      values[last.index] = `${values[last.index]} ${line.trim()}`
      continue
    }
    const match = /^([A-Za-z0-9-]+)\s*:\s*(.*)$/.exec(line)
    if (match === null) continue
    if (current === undefined) {
      current = new Map()
      blocks.push(current)
    }
    const name = match[1]!.toLowerCase()
    const values = current.get(name) ?? []
    values.push(match[2]!.trim())
    current.set(name, values)
    last = { name, index: values.length - 1 }
  }
  return blocks
}

const first = (block: FieldBlock | undefined, name: string): string | undefined => block?.get(name)?.[0]

/** The address of a typed field such as `rfc822; ada@example.org` or `<ada@example.org>`, lower-cased. */
export const addressOf = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  const typed = value.includes(";") ? value.slice(value.indexOf(";") + 1) : value
  const bare = typed.trim().replace(/^<|>$/g, "").trim().toLowerCase()
  return bare.includes("@") ? bare : undefined
}

const typedValue = (value: string | undefined): string | undefined =>
  value === undefined ? undefined : value.replace(/^[^;]*;\s*/, "").trim()

const notAReport = (what: string) => new ValidationFailed({ field: "message", detail: `is not ${what}` })

const parse = (raw: string | Uint8Array) =>
  Effect.tryPromise({
    try: () => simpleParser(typeof raw === "string" ? raw : Buffer.from(raw), { keepDeliveryStatus: true, skipTextToHtml: true, skipHtmlToText: true }),
    catch: () => new ValidationFailed({ field: "message", detail: "could not be parsed as a MIME message" }),
  })

const partText = (mail: ParsedMail, contentType: string): string | undefined =>
  mail.attachments.find((part) => part.contentType.toLowerCase() === contentType)?.content.toString("utf8")

/** Message-IDs of the original message that a report carries: in a text/rfc822-headers part, or in the header lines
 *  of a returned message/rfc822 part (which mailparser folds into the text). The report's own Message-ID is left out. */
const originalMessageIds = (mail: ParsedMail, raw: string | Uint8Array): ReadonlyArray<string> => {
  const own = mail.messageId
  const fromHeaders = partText(mail, "text/rfc822-headers") ?? ""
  const source = `${fromHeaders}\n${typeof raw === "string" ? raw : Buffer.from(raw).toString("latin1")}`
  const ids = [...source.replace(/\r\n?/g, "\n").replace(/\n[ \t]+/g, " ").matchAll(/^Message-ID:\s*(<[^>\s]+>)/gim)]
    .map((match) => match[1]!)
    .filter((id) => id !== own)
  return [...new Set(ids)]
}

export interface DsnRecipient {
  /** Final-Recipient, else Original-Recipient: the address the report is about. */
  readonly recipient: string | undefined
  readonly action: string
  readonly status: string
  readonly diagnosticCode: string | undefined
  readonly remoteMta: string | undefined
}

export interface DeliveryStatusReport {
  readonly reportingMta: string | undefined
  readonly originalEnvelopeId: string | undefined
  /** Message-IDs of the message the report is about (Mailroom's name its message and recipient). */
  readonly originalMessageIds: ReadonlyArray<string>
  readonly recipients: ReadonlyArray<DsnRecipient>
}

/** Reads a delivery status notification: a multipart/report whose message/delivery-status part holds one block per
 *  message and one per recipient. Fails with VALIDATION_ERROR (field `message`) when there is no such part. */
export const parseDeliveryStatusNotification = (raw: string | Uint8Array): Effect.Effect<DeliveryStatusReport, ValidationFailed> =>
  Effect.flatMap(parse(raw), (mail) => {
    const status = partText(mail, "message/delivery-status") ?? partText(mail, "message/global-delivery-status")
    if (status === undefined) return Effect.fail(notAReport("a delivery status notification (no message/delivery-status part)"))
    const [perMessage, ...perRecipient] = parseFieldBlocks(status)
    const recipients = perRecipient
      .filter((block) => block.has("action") || block.has("final-recipient"))
      .map((block): DsnRecipient => ({
        recipient: addressOf(first(block, "final-recipient")) ?? addressOf(first(block, "original-recipient")),
        action: first(block, "action") ?? "",
        status: first(block, "status") ?? "",
        diagnosticCode: first(block, "diagnostic-code"),
        remoteMta: typedValue(first(block, "remote-mta")),
      }))
    if (recipients.length === 0) return Effect.fail(notAReport("a delivery status notification (no recipient block)"))
    return Effect.succeed({
      reportingMta: typedValue(first(perMessage, "reporting-mta")),
      originalEnvelopeId: first(perMessage, "original-envelope-id"),
      originalMessageIds: originalMessageIds(mail, raw),
      recipients,
    })
  })

export interface FeedbackReport {
  /** abuse, fraud, virus, other, not-spam, auth-failure, … lower-cased. */
  readonly feedbackType: string
  readonly userAgent: string | undefined
  readonly reportingMta: string | undefined
  readonly sourceIp: string | undefined
  readonly arrivalDate: string | undefined
  readonly originalMailFrom: string | undefined
  /** Original-Rcpt-To addresses; many feedback loops redact them, and the Message-ID finds the recipient instead. */
  readonly originalRcptTo: ReadonlyArray<string>
  readonly originalMessageIds: ReadonlyArray<string>
}

/** Reads a feedback-loop report in the Abuse Reporting Format: a multipart/report whose message/feedback-report part
 *  holds the fields. Fails with VALIDATION_ERROR (field `message`) when there is no such part or no Feedback-Type. */
export const parseFeedbackReport = (raw: string | Uint8Array): Effect.Effect<FeedbackReport, ValidationFailed> =>
  Effect.flatMap(parse(raw), (mail) => {
    const report = partText(mail, "message/feedback-report")
    if (report === undefined) return Effect.fail(notAReport("a feedback report (no message/feedback-report part)"))
    const fields = parseFieldBlocks(report)[0]
    const feedbackType = first(fields, "feedback-type")
    if (feedbackType === undefined) return Effect.fail(notAReport("a feedback report (no Feedback-Type field)"))
    return Effect.succeed({
      feedbackType: feedbackType.toLowerCase(),
      userAgent: first(fields, "user-agent"),
      reportingMta: typedValue(first(fields, "reporting-mta")),
      sourceIp: first(fields, "source-ip"),
      arrivalDate: first(fields, "arrival-date") ?? first(fields, "received-date"),
      originalMailFrom: addressOf(first(fields, "original-mail-from")),
      originalRcptTo: (fields?.get("original-rcpt-to") ?? []).flatMap((value) => addressOf(value) ?? []),
      originalMessageIds: originalMessageIds(mail, raw),
    })
  })
