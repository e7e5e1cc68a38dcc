import { Effect, Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type ColumnMapping, type CsvFile, type CsvSource, type EmailAddress, type ImportRejected, importLimits, type ImportRow } from "../../src/index.js"
import { decodeImportRequest, decodeImportTags, decodeMappings, planImport } from "../../src/domain/csv-import.js"
import { readCsvFile } from "../../src/internal/csv-reader.js"

const standard: ReadonlyArray<ColumnMapping> = [
  { csvColumn: "email", field: "email" },
  { csvColumn: "first", field: "firstName" },
]

const read = (source: CsvSource, mappings: ReadonlyArray<ColumnMapping> = standard) =>
  Effect.runPromise(Effect.either(readCsvFile(source, mappings)))

const readOk = async (source: CsvSource, mappings?: ReadonlyArray<ColumnMapping>): Promise<CsvFile> => {
  const result = await read(source, mappings)
  if (Either.isLeft(result)) throw new Error(`expected the file to be read, got ${result.left.reason}: ${result.left.detail}`)
  return result.right
}

const readRefused = async (source: CsvSource, mappings?: ReadonlyArray<ColumnMapping>): Promise<ImportRejected> => {
  const result = await read(source, mappings)
  if (Either.isRight(result)) throw new Error(`expected the file to be refused, got ${JSON.stringify(result.right)}`)
  return result.left
}

const bytes = (...parts: Array<string | ReadonlyArray<number>>) =>
  Buffer.concat(parts.map((part) => typeof part === "string" ? Buffer.from(part, "utf8") : Buffer.from(part)))

/** A web ReadableStream that hands out `source` in pieces of `size` bytes, splitting characters and line ends. */
const trickle = (source: Uint8Array, size: number) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let start = 0; start < source.byteLength; start += size) controller.enqueue(source.slice(start, start + size))
      controller.close()
    },
  })

const row = (overrides: Partial<ImportRow> & Pick<ImportRow, "row" | "email">): ImportRow =>
  ({ firstName: null, lastName: null, phone: null, ...overrides })

describe("reading a CSV file", () => {
  // Each file below is accepted; `rows` are the rows that can become contacts as [row, email, firstName].
  const accepted: Array<[string, CsvSource, Array<[number, string, string | null]>]> = [
    ["a plain file with LF line ends", "email,first\nada@example.com,Ada\nbob@example.com,Bob\n",
      [[2, "ada@example.com", "Ada"], [3, "bob@example.com", "Bob"]]],
    ["a BOM before the header (the header still matches exactly)", "\ufeffemail,first\r\nada@example.com,Ada\r\n",
      [[2, "ada@example.com", "Ada"]]],
    ["CRLF line ends", "email,first\r\nada@example.com,Ada\r\nbob@example.com,Bob\r\n",
      [[2, "ada@example.com", "Ada"], [3, "bob@example.com", "Bob"]]],
    ["CR line ends", "email,first\rada@example.com,Ada\rbob@example.com,Bob",
      [[2, "ada@example.com", "Ada"], [3, "bob@example.com", "Bob"]]],
    ["CRLF and LF mixed in one file", "email,first\r\nada@example.com,Ada\nbob@example.com,Bob\r\n",
      [[2, "ada@example.com", "Ada"], [3, "bob@example.com", "Bob"]]],
    ["no line end after the last row", "email,first\nada@example.com,Ada", [[2, "ada@example.com", "Ada"]]],
    ["a quoted comma", "email,first\nada@example.com,\"Lovelace, Ada\"\n", [[2, "ada@example.com", "Lovelace, Ada"]]],
    ["escaped (doubled) quotes", "email,first\nada@example.com,\"Ada \"\"the Countess\"\"\"\n",
      [[2, "ada@example.com", "Ada \"the Countess\""]]],
    ["a multi-line field; later rows keep their line numbers", "email,first\nada@example.com,\"Ada\nLovelace\"\nbob@example.com,Bob\n",
      [[2, "ada@example.com", "Ada\nLovelace"], [4, "bob@example.com", "Bob"]]],
    ["a multi-line field with CRLF inside", "email,first\r\nada@example.com,\"Ada\r\n\r\nLovelace\"\r\nbob@example.com,Bob\r\n",
      [[2, "ada@example.com", "Ada\r\n\r\nLovelace"], [5, "bob@example.com", "Bob"]]],
    ["blank lines, which are no rows", "email,first\n\nada@example.com,Ada\n\n\nbob@example.com,Bob\n\n",
      [[3, "ada@example.com", "Ada"], [6, "bob@example.com", "Bob"]]],
    ["a header-only file", "email,first\n", []],
    ["a header-only file without a line end", "email,first", []],
    ["upper-case addresses with spaces around them", "email,first\n  Ada@Example.COM ,Ada\n", [[2, "ada@example.com", "Ada"]]],
    ["formula-looking cells, kept as given",
      "email,first\n=1+2@example.com,\"=HYPERLINK(\"\"http://evil.example\"\")\"\nbob@example.com,@SUM(A1:A9)\n+carol@example.com,-2+3\n",
      [[2, "=1+2@example.com", "=HYPERLINK(\"http://evil.example\")"], [3, "bob@example.com", "@SUM(A1:A9)"],
        [4, "+carol@example.com", "-2+3"]]],
    ["an empty name cell, read as none", "email,first\nada@example.com,\n", [[2, "ada@example.com", null]]],
  ]

  it.each(accepted)("accepts %s", async (_name, source, expected) => {
    const file = await readOk(source)
    expect(file.rejected).toEqual([])
    expect(file.rows.map((r) => [r.row, r.email, r.firstName])).toEqual(expected)
  })

  // Rows rejected one by one: the rest of the file is still read.
  const rowRejections: Array<[string, string, Array<number>, Array<string>]> = [
    ["a row with too many cells", "email,first\nada@example.com,Ada,extra\nbob@example.com,Bob\n", [3],
      ["row 2: expected 2 cells, found 3"]],
    ["a row with too few cells", "email,first\nada@example.com\nbob@example.com,Bob\n", [3],
      ["row 2: expected 2 cells, found 1"]],
    ["an address with a space inside", "email,first\nada lovelace@example.com,Ada\nbob@example.com,Bob\n", [3],
      ["row 2: \"ada lovelace@example.com\" is not a valid email address (must not contain spaces or control characters)"]],
    ["an address without a domain", "email,first\nada@,Ada\n", [],
      ["row 2: \"ada@\" is not a valid email address (must have the form local@domain)"]],
    ["an empty address", "email,first\n,Ada\nbob@example.com,Bob\n", [3], ["row 2: the email cell is empty"]],
    ["a name of 101 characters", `email,first\nada@example.com,${"a".repeat(101)}\n`, [],
      ["row 2: firstName is longer than 100 characters"]],
    ["rows after a multi-line field, numbered by the line they start on", "email,first\nada@example.com,\"A\nB\"\nnot-an-address,C\n", [2],
      ["row 4: \"not-an-address\" is not a valid email address (must have the form local@domain)"]],
  ]

  it.each(rowRejections)("rejects only %s", async (_name, source, keptRows, messages) => {
    const file = await readOk(source)
    expect(file.rows.map((r) => r.row)).toEqual(keptRows)
    expect(file.rejected.map((r) => r.message)).toEqual(messages)
  })

  it("reads last and phone names, normalises phone separators and rejects a phone that is not E.164", async () => {
    const mappings: ReadonlyArray<ColumnMapping> = [
      { csvColumn: "E-mail", field: "email" }, { csvColumn: "Last", field: "lastName" },
      { csvColumn: "Phone", field: "phone" }, { csvColumn: "Notes", field: "skip" },
    ]
    const file = await readOk([
      "E-mail,Last,Phone,Notes,Unmapped",
      "ada@example.com, Lovelace ,+1 (415) 555-0123,=cmd|' /C calc'!A0,x",
      "bob@example.com,,+14155550199,,",
      "eve@example.com,Eve,555-0123,,",
    ].join("\n"), mappings)
    expect(file.rows).toEqual([
      row({ row: 2, email: "ada@example.com" as EmailAddress, lastName: "Lovelace", phone: "+14155550123" }),
      row({ row: 3, email: "bob@example.com" as EmailAddress, phone: "+14155550199" }),
    ])
    expect(file.rejected.map((r) => r.message)).toEqual(["row 4: phone \"555-0123\" is not an E.164 number such as +14155550123"])
  })

  // Files refused as a whole, with the status and (part of) the message the import answers.
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("email,first\nada@example.com,Ada\n", "utf16le")])
  const png = bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52])
  const refused: Array<[string, CsvSource, number, string]> = [
    ["an empty file", "", 400, "the file is empty: it needs a header row naming its columns"],
    ["a file of blank lines", "\n\r\n\n", 400, "the file is empty"],
    ["binary junk (a PNG header)", png, 400, "the file is not CSV text: bytes that are not UTF-8 on line 1"],
    ["a NUL byte in text", bytes("email,first\nada@example.com,A", [0], "da\n"), 400,
      "the file is not CSV text: a binary control character on line 2"],
    ["Latin-1 text (not UTF-8)", bytes("email,first\nada@example.com,Ren", [0xe9], "\n"), 400,
      "the file is not CSV text: bytes that are not UTF-8 on line 2"],
    ["UTF-16 text", utf16, 400, "the file is not CSV text"],
    ["an unterminated quote, named by the line its field starts on", "email,first\nada@example.com,Ada\nbob@example.com,\"Bob\nmore\n", 400,
      "malformed CSV on line 3: a quoted field starts here and is never closed"],
    ["an unterminated quote after a multi-line CRLF field", "email,first\r\na@example.com,\"x\r\ny\"\r\nb@example.com,\"open\r\n", 400,
      "malformed CSV on line 4: a quoted field starts here and is never closed"],
    ["text after a closing quote", "email,first\nada@example.com,\"Ada\"x\n", 400,
      "malformed CSV on line 2: a closing quote must be followed by a comma or the end of the row"],
    ["a quote inside an unquoted field", "email,first\nada@example.com,Ada \"the Countess\"\n", 400,
      "malformed CSV on line 2: a quote inside an unquoted field"],
    ["duplicate headers", "email,first,email\n", 400, "duplicate header \"email\" in columns 1 and 3: headers must be unique"],
    ["a mapped column missing from the header", "e-mail,first\n", 400,
      "the column \"email\" mapped to email is not in the file's header"],
    ["a mapped name column missing from the header", "email,First\n", 400,
      "the column \"first\" mapped to firstName is not in the file's header"],
    ["a header that differs only by case from the mapping", "EMAIL,first\n", 400, "the column \"email\" mapped to email"],
  ]

  it.each(refused)("refuses %s", async (_name, source, status, message) => {
    const error = await readRefused(source)
    expect(error._tag).toBe("ImportRejected")
    expect(error.reason).toBe(status === 413 ? "TOO_LARGE" : "INVALID_REQUEST")
    expect(error.detail).toContain(message)
  })

  it("reads the same rows whether the bytes arrive whole or a few at a time", async () => {
    const source = bytes("\ufeffemail,first\r\nada@example.com,\"Zoë, \"\"Z\"\"\r\nSmith\"\r\n\r\nbob@example.com,Björn\r\nbad address,x\r\n")
    const whole = await readOk(source)
    expect(whole.rows.map((r) => [r.row, r.email, r.firstName])).toEqual([
      [2, "ada@example.com", "Zoë, \"Z\"\r\nSmith"], [5, "bob@example.com", "Björn"],
    ])
    for (const size of [1, 2, 3, 5, 7]) expect(await readOk(trickle(source, size))).toEqual(whole)
  })

  it("reads an async iterable of chunks", async () => {
    async function* chunks() {
      yield bytes("email,fi")
      yield bytes("rst\nada@example.com,Ada\n")
    }
    expect((await readOk(chunks())).rows.map((r) => r.email)).toEqual(["ada@example.com"])
  })
})

describe("import limits", () => {
  const header = (count: number) => Array.from({ length: count }, (_, i) => i === 0 ? "email" : `c${i}`).join(",")
  const emailOnly: ReadonlyArray<ColumnMapping> = [{ csvColumn: "email", field: "email" }]
  const rows = (count: number) =>
    `email\n${Array.from({ length: count }, (_, i) => `user${i}@example.com`).join("\n")}\n`

  it("accepts 100 columns and refuses 101", async () => {
    expect((await readOk(`${header(100)}\n`, emailOnly)).rows).toEqual([])
    const error = await readRefused(`${header(101)}\n`, emailOnly)
    expect([error.reason, error.detail]).toEqual(["INVALID_REQUEST", "the header has 101 columns; at most 100 are allowed"])
  })

  it("accepts 1,000 data rows and refuses 1,001", async () => {
    expect((await readOk(rows(1_000), emailOnly)).rows).toHaveLength(1_000)
    const error = await readRefused(rows(1_001), emailOnly)
    expect([error.reason, error.detail]).toEqual(["INVALID_REQUEST", "the file holds more than 1,000 data rows"])
  })

  it("counts rejected rows among the 1,000", async () => {
    const error = await readRefused(`email\n${"not-an-address\n".repeat(1_001)}`, emailOnly)
    expect(error.detail).toBe("the file holds more than 1,000 data rows")
  })

  it("accepts fields of 4,096 characters (counted as characters, not bytes) and refuses 4,097", async () => {
    const notes: ReadonlyArray<ColumnMapping> = [{ csvColumn: "email", field: "email" }, { csvColumn: "notes", field: "skip" }]
    const wide = "😀".repeat(importLimits.fieldCharacters)
    const file = await readOk(`email,notes\nada@example.com,${"x".repeat(4_096)}\nbob@example.com,${wide}\n`, notes)
    expect(file.rows.map((r) => r.email)).toEqual(["ada@example.com", "bob@example.com"])
    const error = await readRefused(`email,notes\nada@example.com,Ada\nbob@example.com,${"x".repeat(4_097)}\n`, notes)
    expect([error.reason, error.detail]).toEqual(["INVALID_REQUEST", "row 3, column \"notes\": a field holds at most 4,096 characters"])
  })

  it("refuses a header of more than 4,096 characters", async () => {
    const error = await readRefused(`email,${"h".repeat(4_097)}\n`, emailOnly)
    expect([error.reason, error.detail]).toEqual(["INVALID_REQUEST", "row 1, column \"column 2\": a field holds at most 4,096 characters"])
  })

  /** A file of exactly `size` bytes: 1,000 rows whose notes column fills the space. */
  const fileOfSize = (size: number) => {
    const head = "email,notes\n"
    const lines = Array.from({ length: 1_000 }, (_, i) => `user${String(i).padStart(4, "0")}@example.com,`)
    const fixed = head.length + lines.reduce((sum, line) => sum + line.length + 1, 0)
    const perRow = Math.floor((size - fixed) / 1_000)
    const extra = size - fixed - perRow * 1_000
    return head + lines.map((line, i) => `${line}${"n".repeat(perRow + (i === 999 ? extra : 0))}\n`).join("")
  }
  const withNotes: ReadonlyArray<ColumnMapping> = [{ csvColumn: "email", field: "email" }, { csvColumn: "notes", field: "skip" }]

  it("accepts a file of exactly 2 MiB and refuses one byte more with 413", async () => {
    const exact = fileOfSize(importLimits.fileBytes)
    expect(Buffer.byteLength(exact)).toBe(2 * 1024 * 1024)
    expect((await readOk(exact, withNotes)).rows).toHaveLength(1_000)
    const error = await readRefused(fileOfSize(importLimits.fileBytes + 1), withNotes)
    expect([error.reason, error.detail]).toEqual(["TOO_LARGE", "the file is larger than 2 MiB"])
  })

  it("refuses a stream that runs past 2 MiB without reading it to the end", async () => {
    let pulled = 0
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++
        controller.enqueue(bytes(pulled === 1 ? "email\n" : "x".repeat(64 * 1024)))
      },
    })
    const error = await readRefused(endless, [{ csvColumn: "email", field: "email" }])
    expect([error.reason, error.detail]).toEqual(["TOO_LARGE", "the file is larger than 2 MiB"])
    expect(pulled).toBeLessThan(40)
  })

  it("lets the event loop run between chunks: timers fire while a 2 MiB file is read, never 100 ms apart", async () => {
    const file = fileOfSize(importLimits.fileBytes)
    let reading = true
    let turns = 0
    let longestGap = 0
    let last = performance.now()
    const tick = () => {
      const now = performance.now()
      longestGap = Math.max(longestGap, now - last)
      last = now
      turns++
      if (reading) setImmediate(tick)
    }
    setImmediate(tick)
    await readOk(file, withNotes)
    reading = false
    expect(turns).toBeGreaterThan(10)
    expect(longestGap).toBeLessThan(100)
  })
})

describe("the mappings part", () => {
  const valid = [{ csvColumn: "Email", field: "email" }, { csvColumn: "Name", field: "firstName" }]

  it("accepts the JSON text of an array, or the array itself", () => {
    expect(Either.getOrThrow(decodeMappings(JSON.stringify(valid)))).toEqual(valid)
    expect(Either.getOrThrow(decodeMappings(valid))).toEqual(valid)
  })

  it("allows several skipped columns", () => {
    const mappings = [...valid, { csvColumn: "a", field: "skip" }, { csvColumn: "b", field: "skip" }]
    expect(Either.getOrThrow(decodeMappings(mappings))).toHaveLength(4)
  })

  const refused: Array<[string, unknown, string]> = [
    ["missing", undefined, "the form needs a mappings part: a JSON array of { csvColumn, field }"],
    ["JSON that does not parse", "[{\"csvColumn\": \"Email\"", "mappings is not valid JSON: send a JSON array of { csvColumn, field }"],
    ["a JSON object, not an array", JSON.stringify({ csvColumn: "Email", field: "email" }), "mappings must be a JSON array of { csvColumn, field }"],
    ["a JSON string, not an array", JSON.stringify("Email"), "mappings must be a JSON array of { csvColumn, field }"],
    ["an entry that is not an object", JSON.stringify(["Email"]), "mappings[0] must be an object { csvColumn, field }"],
    ["an entry without field", JSON.stringify([{ csvColumn: "Email" }]), "mappings[0].field is missing"],
    ["an unknown field", JSON.stringify([{ csvColumn: "Email", field: "mail" }]),
      "mappings[0].field must be one of email, firstName, lastName, phone, skip"],
    ["a csvColumn that is not a string", JSON.stringify([{ csvColumn: 3, field: "email" }]),
      "mappings[0].csvColumn must be a string naming a header of the file"],
    ["an unknown key", JSON.stringify([{ csvColumn: "Email", field: "email", column: "x" }]),
      "mappings[0].column is unexpected, expected: \"csvColumn\" | \"field\""],
    ["an empty array (no email mapping)", "[]", "mappings maps no column to email: exactly one column must map to email"],
    ["no column mapped to email", JSON.stringify([{ csvColumn: "Name", field: "firstName" }]), "mappings maps no column to email"],
    ["two columns mapped to email", JSON.stringify([...valid, { csvColumn: "Other", field: "email" }]),
      "mappings maps 2 columns to email: exactly one column must map to email"],
    ["one column named twice", JSON.stringify([...valid, { csvColumn: "Name", field: "lastName" }]),
      "mappings names the column \"Name\" more than once"],
    ["two columns mapped to one field", JSON.stringify([...valid, { csvColumn: "Given", field: "firstName" }]),
      "mappings maps more than one column to firstName"],
    ["more than 100 entries", JSON.stringify(Array.from({ length: 101 }, (_, i) => ({ csvColumn: `c${i}`, field: i ? "skip" : "email" }))),
      "mappings holds 101 entries; at most 100 are allowed"],
  ]

  it.each(refused)("refuses %s with 400", (_name, raw, message) => {
    const result = decodeMappings(raw)
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) {
      expect(result.left.reason).toBe("INVALID_REQUEST")
      expect(result.left.detail).toContain(message)
    }
  })
})

describe("the tags part", () => {
  it.each([
    [undefined, []],
    ["", []],
    ["VIP, Newsletter ,vip", ["vip", "newsletter"]],
    ["a,,b,", ["a", "b"]],
    [["imported", "Spring-2024"], ["imported", "spring-2024"]],
    [Array.from({ length: 20 }, (_, i) => `t${i}`).join(","), Array.from({ length: 20 }, (_, i) => `t${i}`)],
  ] as Array<[string | Array<string> | undefined, Array<string>]>)("reads %j as %j", (raw, tags) => {
    expect(Either.getOrThrow(decodeImportTags(raw))).toEqual(tags)
  })

  it.each([
    [Array.from({ length: 21 }, (_, i) => `t${i}`).join(","), "tags holds 21 tags; at most 20 are allowed"],
    ["vip,big spender", "tag \"big spender\": tags hold only lowercase letters, digits, - and _"],
    [`vip,${"x".repeat(51)}`, "a tag is at most 50 characters"],
  ])("refuses %j with 400", (raw, message) => {
    const result = decodeImportTags(raw)
    expect(Either.isLeft(result) && [result.left.reason, result.left.detail]).toEqual(["INVALID_REQUEST", expect.stringContaining(message)])
  })
})

describe("the import request", () => {
  const file = (name: string) => ({ name, content: "email\n" })
  const mappings = JSON.stringify([{ csvColumn: "email", field: "email" }])

  it.each([
    [{ file: undefined, mappings }, "the form needs a file part holding the CSV file"],
    [{ file: file("contacts.txt"), mappings }, "the file \"contacts.txt\" is not a .csv file"],
    [{ file: file("contacts.csv.xlsx"), mappings }, "is not a .csv file"],
    [{ file: file("contacts.csv"), mappings: "nope" }, "mappings is not valid JSON"],
    [{ file: file("contacts.csv"), mappings, tags: "no spaces allowed" }, "tag \"no spaces allowed\""],
  ])("refuses %j", (request, message) => {
    const result = decodeImportRequest(request)
    expect(Either.isLeft(result) && result.left.detail).toContain(message)
  })

  it("accepts any case of .csv, and reads an empty listId as none", () => {
    const options = Either.getOrThrow(decodeImportRequest({ file: file("Contacts.CSV"), mappings, listId: "", tags: "a" }))
    expect(options).toEqual({
      content: "email\n", mappings: [{ csvColumn: "email", field: "email" }], tags: ["a"], listId: undefined,
    })
    expect(Either.getOrThrow(decodeImportRequest({ file: file("x.csv"), mappings, listId: " lst_1 " })).listId).toBe("lst_1")
  })
})

describe("deciding each row", () => {
  const email = (address: string) => address as EmailAddress
  const file = (addresses: Array<string>, rejected: CsvFile["rejected"] = []): CsvFile =>
    ({ rows: addresses.map((address, i) => row({ row: i + 2, email: email(address) })), rejected })

  it("creates new addresses, skips existing ones and later repeats in the file, and leaves no row uncounted", () => {
    const plan = planImport(file(["a@x.io", "b@x.io", "a@x.io", "c@x.io", "b@x.io"]), new Set(["b@x.io"]), undefined)
    expect(plan.create.map((r) => r.email)).toEqual(["a@x.io", "c@x.io"])
    expect(plan.existing).toEqual(["b@x.io"])
    expect(plan.skipped).toBe(3)
    expect(plan.errors).toEqual([])
  })

  it("past the Free cap rejects new rows with a message, in row order among the other rejections", () => {
    const plan = planImport(
      file(["old@x.io", "a@x.io", "b@x.io", "c@x.io"], [{ row: 3, message: "row 3: bad" }, { row: 9, message: "row 9: bad" }]),
      new Set(["old@x.io"]),
      { room: 1, limit: 100 },
    )
    expect(plan.create.map((r) => r.email)).toEqual(["a@x.io"])
    expect(plan.errors).toEqual([
      "row 3: bad",
      "row 4: b@x.io was not imported: a Free account holds at most 100 active contacts",
      "row 5: c@x.io was not imported: a Free account holds at most 100 active contacts",
      "row 9: bad",
    ])
    expect(plan.skipped).toBe(1)
  })

  it("existing addresses are skipped even when the cap leaves no room", () => {
    const plan = planImport(file(["old@x.io", "new@x.io"]), new Set(["old@x.io"]), { room: 0, limit: 100 })
    expect([plan.create.length, plan.skipped, plan.existing, plan.errors.length]).toEqual([0, 1, ["old@x.io"], 1])
  })

  it("every row is created, skipped or rejected; creations are unique, new and within the room", () => {
    fc.assert(fc.property(
      fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f").map((l) => `${l}@x.io`), { maxLength: 30 }),
      fc.subarray(["a@x.io", "b@x.io", "c@x.io"]),
      fc.option(fc.nat({ max: 10 }), { nil: undefined }),
      (addresses, existing, room) => {
        const plan = planImport(file(addresses), new Set(existing), room === undefined ? undefined : { room, limit: 100 })
        const created = plan.create.map((r) => r.email)
        expect(plan.create.length + plan.skipped + plan.errors.length).toBe(addresses.length)
        expect(new Set(created).size).toBe(created.length)
        expect(created.some((a) => existing.includes(a))).toBe(false)
        if (room !== undefined) expect(created.length).toBeLessThanOrEqual(room)
        expect(new Set([...created, ...plan.existing])).toEqual(new Set(addresses.filter((a) =>
          existing.includes(a) || created.includes(a as EmailAddress))))
      },
    ))
  })
})
