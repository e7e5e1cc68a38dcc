/** GET /v1/contacts/export: every contact matching the filters of GET /contacts, streamed page by page as CSV (the
 *  default) or as one JSON array. Not shown in the spec; documented in docs/contacts-export.md. */
import { Contacts } from "@mailroom/core"
import { Chunk, Effect, Schema, Stream } from "effect"
import { Hono } from "hono"
import { requireScope } from "../auth.js"
import { type ContactResponse, encodeContact } from "../contact-response.js"
import { ContactFilterParams } from "../contact-query.js"
import { csvRow } from "../csv.js"
import type { MailroomEnv } from "../env.js"
import { decodeQuery } from "../validation.js"

export const ExportParams = Schema.Struct({
  ...ContactFilterParams.fields,
  format: Schema.optionalWith(Schema.Literal("csv", "json"), { default: () => "csv" as const }),
})

export const exportColumns = [
  "id", "email", "firstName", "lastName", "phone", "status", "source", "subscribedAt", "unsubscribedAt", "confirmedAt",
  "consentSource", "consentAt", "consentIp", "consentUserAgent", "consentText", "tags", "customFields", "metadata",
  "createdAt", "updatedAt",
] as const

/** A contact as one CSV record: empty cells for null, tags joined with ";", custom fields and metadata as JSON. */
const csvRecord = (contact: ContactResponse): string => {
  const text = (value: string | null) => value ?? ""
  return csvRow([
    contact.id, contact.email, text(contact.firstName), text(contact.lastName), text(contact.phone), contact.status,
    contact.source, contact.subscribedAt, text(contact.unsubscribedAt), text(contact.confirmedAt),
    text(contact.consentSource), text(contact.consentAt), text(contact.consentIp), text(contact.consentUserAgent),
    text(contact.consentText), contact.tags.map((t) => t.tag).join(";"),
    contact.customFields.length === 0 ? "" : JSON.stringify(Object.fromEntries(contact.customFields.map((f) => [f.key, f.value]))),
    contact.metadata === null ? "" : JSON.stringify(contact.metadata),
    contact.createdAt, contact.updatedAt,
  ])
}

const formats = {
  csv: {
    contentType: "text/csv; charset=utf-8",
    filename: "contacts-export.csv",
    render: (rows: Stream.Stream<ContactResponse, unknown>) =>
      Stream.concat(Stream.make(csvRow(exportColumns)), Stream.map(rows, csvRecord)),
  },
  json: {
    contentType: "application/json",
    filename: "contacts-export.json",
    render: (rows: Stream.Stream<ContactResponse, unknown>) =>
      Stream.concat(
        Stream.concat(
          Stream.make("["),
          rows.pipe(Stream.zipWithIndex, Stream.map(([row, i]) => `${i === 0 ? "" : ","}${JSON.stringify(row)}`)),
        ),
        Stream.make("]"),
      ),
  },
} as const

export const exportRoutes = new Hono<MailroomEnv>()
  .get("/contacts/export", requireScope("contacts:read"), (c) =>
    c.get("run")(Effect.gen(function* () {
      const { format, ...filter } = yield* decodeQuery(c, ExportParams)
      const contacts = yield* Contacts
      const { contentType, filename, render } = formats[format]
      const rows = contacts.export(c.get("account"), filter).pipe(Stream.mapEffect(encodeContact))
      const body = render(rows).pipe(
        // One write per page of contacts rather than one per row.
        Stream.mapChunks((strings) => Chunk.of(Chunk.join(strings, ""))),
        Stream.encodeText,
        // Headers are already sent when a page fails: the body is cut short and the cause is logged.
        Stream.tapErrorCause((cause) => Effect.logError("contact export failed while streaming", cause)),
      )
      return new Response(yield* Stream.toReadableStreamEffect(body), {
        headers: {
          "content-type": contentType,
          "content-disposition": `attachment; filename="${filename}"`,
          "cache-control": "no-store",
        },
      })
    })))
