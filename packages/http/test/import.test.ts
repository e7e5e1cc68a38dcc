import { type AccountId, type ContactList, type ListId, Store, StoreError } from "@mailroom/core"
import { MemoryStore } from "@mailroom/memory"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { call, makeTestApp, newAccount, scopedKey, type TestApp } from "./support.js"

const emailAndName = [{ csvColumn: "email", field: "email" }, { csvColumn: "name", field: "firstName" }]

interface FormParts {
  readonly file?: string | Uint8Array | undefined
  readonly fileName?: string
  readonly mappings?: string
  readonly listId?: string
  readonly tags?: string
  /** Extra text parts, e.g. to inflate the multipart overhead. */
  readonly extra?: Readonly<Record<string, string>>
}

/** A real multipart/form-data body, as a browser or curl -F would send it. */
const form = (parts: FormParts): FormData => {
  const body = new FormData()
  if (parts.file !== undefined) {
    const content = typeof parts.file === "string" ? parts.file : new Uint8Array(parts.file)
    body.append("file", new File([content], parts.fileName ?? "contacts.csv", { type: "text/csv" }))
  }
  body.append("mappings", parts.mappings ?? JSON.stringify(emailAndName))
  if (parts.listId !== undefined) body.append("listId", parts.listId)
  if (parts.tags !== undefined) body.append("tags", parts.tags)
  for (const [name, value] of Object.entries(parts.extra ?? {})) body.append(name, value)
  return body
}

const upload = (app: TestApp, key: string, parts: FormParts) =>
  call(app, "POST", "/v1/contacts/import", { key, raw: form(parts) })

const countContacts = async (app: TestApp, key: string, query = "") =>
  (await call(app, "GET", `/v1/contacts?limit=1${query}`, { key })).json.meta.total_count as number

const insertList = (app: TestApp, accountId: string) =>
  app.runtime.runPromise(Effect.gen(function* () {
    const store = yield* Store
    const at = new Date()
    const list: ContactList = {
      id: `lst_${crypto.randomUUID()}` as ListId, accountId: accountId as AccountId, name: "Imported", description: null,
      type: "STATIC", segmentRules: null, suppressionGroupId: null, trackingEnabled: true, isArchived: false,
      createdAt: at, updatedAt: at, lastSyncedAt: null,
    }
    yield* store.lists.insert(list)
    return list.id
  }))

/** A CSV of `rows` data rows under the header email,notes whose notes fill the file to exactly `bytes` bytes. */
const csvOfSize = (bytes: number, rows = 1_000) => {
  const lines = Array.from({ length: rows }, (_, i) => `user${String(i).padStart(4, "0")}@example.com,`)
  const fixed = "email,notes\n".length + lines.reduce((sum, line) => sum + line.length + 1, 0)
  const perRow = Math.floor((bytes - fixed) / rows)
  const extra = bytes - fixed - perRow * rows
  return `email,notes\n${lines.map((line, i) => `${line}${"n".repeat(perRow + (i === rows - 1 ? extra : 0))}\n`).join("")}`
}
const emailAndNotes = JSON.stringify([{ csvColumn: "email", field: "email" }, { csvColumn: "notes", field: "skip" }])

/** Asserts the import's own error body: exactly `{ error }`, with this status and a message containing `message`. */
const expectRefusal = (answer: { status: number; json: any; text: string }, status: number, message: string) => {
  expect({ status: answer.status, body: answer.json }, answer.text).toEqual({ status, body: { error: expect.any(String) } })
  expect(answer.json.error).toContain(message)
}

describe("POST /v1/contacts/import", () => {
  const app = makeTestApp()

  it("imports a multipart upload and answers the result object directly", async () => {
    const { key } = await newAccount(app, { plan: "pro" })
    const answer = await upload(app, key, {
      file: "\ufeffemail,name\r\nAda@Example.com,Ada\r\nbob@example.com,\"Bob, Jr.\"\r\nnot an address,X\r\nada@example.com,Again\r\n",
      tags: "imported,Spring",
    })
    expect(answer.status).toBe(200)
    expect(answer.headers.get("content-type")).toContain("application/json")
    expect(answer.json).toEqual({
      imported: 2,
      skipped: 1,
      addedToList: 0,
      errors: ["row 4: \"not an address\" is not a valid email address (must not contain spaces or control characters)"],
    })
    const listed = await call(app, "GET", "/v1/contacts?sortBy=email&sortOrder=asc", { key })
    expect(listed.json.data.map((c: any) => [c.email, c.firstName, c.source, c.status, c.consentSource])).toEqual([
      ["ada@example.com", "Ada", "CSV_IMPORT", "ACTIVE", "import"],
      ["bob@example.com", "Bob, Jr.", "CSV_IMPORT", "ACTIVE", "import"],
    ])
    expect(listed.json.data[0].tags.map((t: any) => t.tag).sort()).toEqual(["imported", "spring"])
  })

  it("adds imported and existing contacts to the list named by listId", async () => {
    const { id, key } = await newAccount(app, { plan: "pro" })
    await call(app, "POST", "/v1/contacts", { key, body: { email: "old@example.com" } })
    const listId = await insertList(app, id)
    const answer = await upload(app, key, { file: "email,name\nold@example.com,\nnew@example.com,\n", listId })
    expect([answer.status, answer.json]).toEqual([200, { imported: 1, skipped: 1, addedToList: 2, errors: [] }])
  })

  it("accepts a body written by hand as curl sends it, with mappings as a file part", async () => {
    const { key } = await newAccount(app, { plan: "pro" })
    const boundary = "----mailroom-test-boundary"
    const body = [
      `--${boundary}`,
      "Content-Disposition: form-data; name=\"file\"; filename=\"people.CSV\"",
      "Content-Type: application/vnd.ms-excel",
      "",
      "email,name\ncurl@example.com,Curl",
      `--${boundary}`,
      "Content-Disposition: form-data; name=\"mappings\"; filename=\"mappings.json\"",
      "Content-Type: application/json",
      "",
      JSON.stringify(emailAndName),
      `--${boundary}--`,
      "",
    ].join("\r\n")
    const answer = await call(app, "POST", "/v1/contacts/import", {
      key, raw: body, headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    })
    expect([answer.status, answer.json]).toEqual([200, { imported: 1, skipped: 0, addedToList: 0, errors: [] }])
  })

  // Each request is refused with 400 and the import's `{ error }` body, and writes nothing.
  const badRequests: Array<[string, FormParts, string]> = [
    ["no file part", { file: undefined }, "the form needs a file part holding the CSV file"],
    ["a file whose name does not end in .csv", { file: "email,name\n", fileName: "contacts.xlsx" }, "is not a .csv file"],
    ["mappings that are not JSON", { file: "email,name\n", mappings: "email=email" }, "mappings is not valid JSON"],
    ["mappings that are not an array", { file: "email,name\n", mappings: "{\"email\":\"email\"}" }, "mappings must be a JSON array"],
    ["mappings of the wrong shape", { file: "email,name\n", mappings: "[{\"csvColumn\":\"email\",\"field\":\"e-mail\"}]" },
      "mappings[0].field must be one of email, firstName, lastName, phone, skip"],
    ["no column mapped to email", { file: "email,name\n", mappings: "[{\"csvColumn\":\"name\",\"field\":\"firstName\"}]" },
      "mappings maps no column to email"],
    ["a mapped email column missing from the file", { file: "mail,name\nx@example.com,X\n" },
      "the column \"email\" mapped to email is not in the file's header"],
    ["a mapped name column missing from the file", { file: "email,Name\nx@example.com,X\n" },
      "the column \"name\" mapped to firstName is not in the file's header"],
    ["duplicate headers", { file: "email,name,name\nx@example.com,X,Y\n" }, "duplicate header \"name\" in columns 2 and 3"],
    ["an unterminated quote", { file: "email,name\nx@example.com,X\ny@example.com,\"Y\n" },
      "malformed CSV on line 3: a quoted field starts here and is never closed"],
    ["binary junk", { file: new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, 0xff, 0xfe, 0x00]) }, "the file is not CSV text"],
    ["an empty file", { file: "" }, "the file is empty"],
    ["101 columns", { file: `email,name,${Array.from({ length: 99 }, (_, i) => `c${i}`).join(",")}\n` },
      "the header has 101 columns; at most 100 are allowed"],
    ["1,001 data rows", { file: `email,name\n${"x@example.com,X\n".repeat(1_001)}` }, "the file holds more than 1,000 data rows"],
    ["a field of 4,097 characters", { file: `email,name\nx@example.com,X\ny@example.com,${"y".repeat(4_097)}\n` },
      "row 3, column \"name\": a field holds at most 4,096 characters"],
    ["21 tags", { file: "email,name\nx@example.com,X\n", tags: Array.from({ length: 21 }, (_, i) => `t${i}`).join(",") },
      "tags holds 21 tags; at most 20 are allowed"],
    ["a tag that is not a tag name", { file: "email,name\nx@example.com,X\n", tags: "vip,big spender" }, "tag \"big spender\""],
  ]

  it.each(badRequests)("refuses %s with 400", async (_name, parts, message) => {
    const { key } = await newAccount(app, { plan: "pro" })
    expectRefusal(await upload(app, key, parts), 400, message)
    expect(await countContacts(app, key)).toBe(0)
  })

  it("refuses a body that is not multipart with 400", async () => {
    const { key } = await newAccount(app)
    const answer = await call(app, "POST", "/v1/contacts/import", { key, body: { mappings: [] } })
    expectRefusal(answer, 400, "send the import as multipart/form-data")
  })

  it("refuses a malformed multipart body with 400", async () => {
    const { key } = await newAccount(app)
    const answer = await call(app, "POST", "/v1/contacts/import", {
      key, raw: "not multipart at all", headers: { "content-type": "multipart/form-data; boundary=xyz" },
    })
    expectRefusal(answer, 400, "the multipart body could not be read")
  })

  it("answers 404 with { error } for a listId of another account, and writes nothing", async () => {
    const mine = await newAccount(app, { plan: "pro" })
    const theirs = await newAccount(app, { plan: "pro" })
    const listId = await insertList(app, theirs.id)
    expectRefusal(await upload(app, mine.key, { file: "email,name\nx@example.com,X\n", listId }), 404, `list ${listId} was not found`)
    expect(await countContacts(app, mine.key)).toBe(0)
  })

  it("accepts a file of exactly 2 MiB and refuses one byte more with 413", async () => {
    const { key } = await newAccount(app, { plan: "pro" })
    const accepted = await upload(app, key, { file: csvOfSize(2 * 1024 * 1024), mappings: emailAndNotes })
    expect([accepted.status, accepted.json.imported]).toEqual([200, 1_000])
    const other = await newAccount(app, { plan: "pro" })
    expectRefusal(await upload(app, other.key, { file: csvOfSize(2 * 1024 * 1024 + 1), mappings: emailAndNotes }), 413,
      "the file is larger than 2 MiB")
    expect(await countContacts(app, other.key)).toBe(0)
  })

  it("refuses more than 64 KiB of multipart overhead beside the file with 413 request too large", async () => {
    const { key } = await newAccount(app, { plan: "pro" })
    const small = await upload(app, key, { file: "email,name\nx@example.com,X\n", extra: { note: "n".repeat(60 * 1024) } })
    expect(small.status).toBe(200)
    const answer = await upload(app, key, { file: "email,name\ny@example.com,Y\n", extra: { note: "n".repeat(65 * 1024) } })
    expectRefusal(answer, 413, "request too large")
  })

  it("refuses a request larger than 2 MiB + 64 KiB with 413 before reading it, and a chunked one while reading", async () => {
    const { key } = await newAccount(app, { plan: "pro" })
    const declared = await call(app, "POST", "/v1/contacts/import", {
      key, raw: "x", headers: { "content-type": "multipart/form-data; boundary=b", "content-length": String(3 * 1024 * 1024) },
    })
    expectRefusal(declared, 413, "request too large")
    let sent = 0
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 64 * 1024
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x61))
      },
    })
    const chunked = await call(app, "POST", "/v1/contacts/import", {
      key, raw: endless, headers: { "content-type": "multipart/form-data; boundary=b" },
    })
    expectRefusal(chunked, 413, "request too large")
    expect(sent).toBeLessThan(4 * 1024 * 1024)
  })

  it("reports Free-plan rejections per row in errors", async () => {
    const { key } = await newAccount(app, { plan: "free" })
    const rows = Array.from({ length: 102 }, (_, i) => `free${i}@example.com,F`).join("\n")
    const answer = await upload(app, key, { file: `email,name\n${rows}\n` })
    expect(answer.status).toBe(200)
    expect(answer.json.imported).toBe(100)
    expect(answer.json.errors).toEqual([
      "row 102: free100@example.com was not imported: a Free account holds at most 100 active contacts",
      "row 103: free101@example.com was not imported: a Free account holds at most 100 active contacts",
    ])
  })

  it("needs the contacts:write scope (403 in the standard envelope) and an API key (401)", async () => {
    const { id } = await newAccount(app)
    const readOnly = await scopedKey(app, id, ["contacts:read"])
    const refused = await upload(app, readOnly, { file: "email,name\nx@example.com,X\n" })
    expect([refused.status, refused.json.error.code]).toEqual([403, "SCOPE_INSUFFICIENT"])
    const anonymous = await call(app, "POST", "/v1/contacts/import", { raw: form({ file: "email,name\n" }) })
    expect(anonymous.status).toBe(401)
  })
})

describe("POST /v1/contacts/import when the store fails mid-import", () => {
  const failingInserts = Layer.effect(Store, Effect.map(Store, (store) => ({
    ...store,
    contacts: {
      ...store.contacts,
      insertMany: () => Effect.fail(new StoreError({ operation: "contacts.insertMany", cause: new Error("disk full on db-7") })),
    },
  }))).pipe(Layer.provide(MemoryStore.layer))
  const app = makeTestApp({}, failingInserts)

  it("answers 500 in the import's { error } shape without the cause, and writes nothing", async () => {
    const { key } = await newAccount(app, { plan: "pro" })
    const answer = await upload(app, key, { file: "email,name\nx@example.com,X\n" })
    expect(answer.status).toBe(500)
    expect(answer.json).toEqual({ error: expect.stringContaining("an internal error occurred") })
    expect(answer.text).not.toContain("disk full")
    expect(await countContacts(app, key)).toBe(0)
  })
})
