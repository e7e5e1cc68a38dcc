/** POST /v1/contacts/import: CSV import from a multipart form. Spec: audience "POST /contacts/import". Its refusals
 *  are answered with the route's own body `{ error }` (the error table maps ImportRejected's reason to its status), not the envelope. */
import { importLimits, ImportRejected, type ImportRequest, ImportResult, Imports } from "@mailroom/core"
import { Effect, Schema } from "effect"
import { Hono } from "hono"
import { requireScope } from "../auth.js"
import { readBody } from "../body.js"
import type { MailroomEnv } from "../env.js"

/** The largest request the route reads: the largest file plus the multipart overhead allowed beside it. */
export const importRequestLimitBytes = importLimits.fileBytes + importLimits.multipartOverheadBytes

const requestTooLarge = () =>
  new ImportRejected({
    reason: "TOO_LARGE",
    detail: "request too large: an import holds a file of at most 2 MiB and at most 64 KiB besides it",
  })

/** A text part of the form, whether the client sent it as a field or as a file. */
const textPart = (form: FormData, name: string): Effect.Effect<string | undefined> => {
  const value = form.get(name)
  if (value === null) return Effect.succeed(undefined)
  if (typeof value === "string") return Effect.succeed(value)
  return Effect.promise(() => value.text())
}

/** The import request of a multipart body: read under the size limits, the parts handed on unchecked. */
export const readImportForm = (request: Request): Effect.Effect<ImportRequest, ImportRejected> =>
  Effect.gen(function* () {
    const contentType = request.headers.get("content-type") ?? ""
    if (!/^multipart\/form-data\s*;/i.test(contentType)) {
      return yield* new ImportRejected({
        reason: "INVALID_REQUEST",
        detail: "send the import as multipart/form-data with the parts file, mappings and optionally listId and tags",
      })
    }
    const body = yield* readBody(request, importRequestLimitBytes).pipe(Effect.mapError((error) =>
      error._tag === "PayloadTooLarge" ? requestTooLarge() : new ImportRejected({ reason: "INVALID_REQUEST", detail: error.message })))
    const form = yield* Effect.tryPromise({
      // readBody allocates a plain ArrayBuffer, never a SharedArrayBuffer.
      try: () => new Response(body as Uint8Array<ArrayBuffer>, { headers: { "content-type": contentType } }).formData(),
      catch: () => new ImportRejected({ reason: "INVALID_REQUEST", detail: "the multipart body could not be read" }),
    })
    const file = form.get("file")
    const upload = file !== null && typeof file !== "string" ? file : undefined
    if (body.byteLength - (upload?.size ?? 0) > importLimits.multipartOverheadBytes) return yield* requestTooLarge()
    return {
      file: upload === undefined ? undefined : { name: upload.name, content: upload.stream() },
      mappings: yield* textPart(form, "mappings"),
      listId: yield* textPart(form, "listId"),
      tags: yield* textPart(form, "tags"),
    } satisfies ImportRequest
  })

const encodeResult = (result: ImportResult) => Schema.encode(ImportResult)(result).pipe(Effect.orDie)

export const importRoutes = new Hono<MailroomEnv>()
  .post("/contacts/import", requireScope("contacts:write"), (c) =>
    c.get("run")(Effect.gen(function* () {
      const request = yield* readImportForm(c.req.raw)
      const imports = yield* Imports
      const result = yield* imports.importCsv(c.get("account"), request)
      return c.json(yield* encodeResult(result), 200)
    }), { shape: "plain" }))
