/** What the dev outbox shows of a kept message beyond its stored fields: its attachments, read from the message as it
 *  would have gone to the relay (`raw`) with mailparser. GET /admin/outbox lists them (`filename`, `contentType`,
 *  `size`) and the mail viewer (docs/dev-outbox.md) downloads them. */
import type { DevOutboxEntry } from "@mailroom/core"
import { Effect } from "effect"
import { simpleParser } from "mailparser"

export interface OutboxAttachment {
  readonly filename: string
  readonly contentType: string
  /** Bytes of the decoded content. */
  readonly size: number
  readonly content: Uint8Array
  /** The part's Content-ID without its angle brackets (what `cid:` in the html names), if it has one. */
  readonly contentId?: string | undefined
}

/** The html with each `cid:X` (in an attribute value or a CSS url()) that names an inline image of the message turned
 *  into a data: URL of that image, so that the mail viewer's frame shows it: the frame is sandboxed (an opaque origin,
 *  which sends no SameSite cookie), and its policy allows images as data: only. A cid the message lacks, or a part
 *  that is not an image, stays as written. */
export const withInlineImages = (html: string, attachments: ReadonlyArray<OutboxAttachment>): string => {
  const images = new Map<string, OutboxAttachment>()
  for (const part of attachments) {
    if (part.contentId !== undefined && /^image\/(png|jpeg|gif|webp|avif|bmp)$/i.test(part.contentType)) images.set(part.contentId, part)
  }
  if (images.size === 0) return html
  return html.replace(/(["'(=]\s*)cid:([^"'\s)<>]+)/gi, (whole, before: string, cid: string) => {
    let id = cid
    try { id = decodeURIComponent(cid) } catch { /* kept as written */ }
    const image = images.get(id)
    return image === undefined ? whole
      : `${before}data:${image.contentType.toLowerCase()};base64,${Buffer.from(image.content).toString("base64")}`
  })
}

/** The attachments of the message, in message order (inline parts included); none for an entry kept before the raw
 *  message was stored, or whose raw message does not parse. */
export const outboxAttachments = (entry: DevOutboxEntry): Effect.Effect<ReadonlyArray<OutboxAttachment>> =>
  entry.raw === null || entry.raw === undefined
    ? Effect.succeed([])
    : Effect.tryPromise(() => simpleParser(entry.raw!, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true })).pipe(
      Effect.map((mail) => mail.attachments.map((attachment, index): OutboxAttachment => ({
        filename: attachment.filename ?? `attachment-${index + 1}`,
        contentType: attachment.contentType,
        size: attachment.content.length,
        content: attachment.content,
        contentId: attachment.cid,
      }))),
      Effect.orElseSucceed(() => []),
    )

export type OutboxAttachmentSummary = Omit<OutboxAttachment, "content">

/** What each entry's attachments are, by entry id, for the lists (the viewer asks for its list every 2 seconds):
 *  entries never change once kept, and ids are never reused, so a summary stays true. The oldest go past the bound. */
const summaries = new Map<string, ReadonlyArray<OutboxAttachmentSummary>>()
const summaryBound = 1000

const attachmentSummaries = (entry: DevOutboxEntry): Effect.Effect<ReadonlyArray<OutboxAttachmentSummary>> => {
  const known = summaries.get(entry.id)
  if (known !== undefined) return Effect.succeed(known)
  return Effect.map(outboxAttachments(entry), (attachments) => {
    const summary = attachments.map(({ filename, contentType, size }) => ({ filename, contentType, size }))
    summaries.set(entry.id, summary)
    if (summaries.size > summaryBound) summaries.delete(summaries.keys().next().value!)
    return summary
  })
}

/** One entry as GET /admin/outbox answers it (CONTRACT.md, "Operator API"). */
export const outboxEntryJson = (entry: DevOutboxEntry, attachments: ReadonlyArray<OutboxAttachmentSummary>) => ({
  id: entry.id,
  from: entry.from,
  to: entry.to,
  subject: entry.subject,
  html: entry.html,
  text: entry.text,
  headers: entry.headers,
  attachments: attachments.map(({ filename, contentType, size }) => ({ filename, contentType, size })),
  createdAt: entry.createdAt.toISOString(),
})

/** The entries as GET /admin/outbox answers them, attachments read from each raw message. */
export const outboxEntriesJson = (entries: ReadonlyArray<DevOutboxEntry>) =>
  Effect.forEach(entries, (entry) => Effect.map(attachmentSummaries(entry), (attachments) => outboxEntryJson(entry, attachments)),
    { concurrency: 4 })
