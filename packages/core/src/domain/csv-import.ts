/** CSV import (POST /contacts/import): its limits and mappings, and the pure rules that decide what each header and
 *  row becomes. Spec: audience "POST /contacts/import", rules 8 and 9, "Errors", "Limits".
 *  Reading the file is internal/csv-reader.ts; writing is the Imports service's job. */
import { Either, ParseResult, Schema } from "effect"
import type { ActiveRoom } from "./account.js"
import { ImportRejected, type ImportRejectionReason } from "../errors.js"
import { contactLimits, PhoneE164, TagName } from "./contact.js"
import { type EmailAddress, emailProblem, normalizeEmail } from "./email.js"

export const importLimits = {
  fileBytes: 2 * 1024 * 1024,
  dataRows: 1_000,
  columns: 100,
  fieldCharacters: 4_096,
  /** Bytes a multipart request may hold besides the file itself: boundaries, part headers, the other parts. */
  multipartOverheadBytes: 64 * 1024,
  tags: 20,
} as const

export const importFields = ["email", "firstName", "lastName", "phone", "skip"] as const
export const ImportField = Schema.Literal(...importFields).annotations({
  message: () => ({ message: `must be one of ${importFields.join(", ")}`, override: true }),
})
export type ImportField = typeof ImportField.Type

/** One entry of the `mappings` part: which header feeds which contact field. */
export const ColumnMapping = Schema.Struct({
  csvColumn: Schema.String.annotations({ message: () => "must be a string naming a header of the file" }),
  field: ImportField,
}).annotations({ message: () => "must be an object { csvColumn, field }" })
export type ColumnMapping = typeof ColumnMapping.Type

/** The answer of an import. `errors` holds one message per rejected row, in row order. */
export const ImportResult = Schema.Struct({
  imported: Schema.Number,
  skipped: Schema.Number,
  addedToList: Schema.Number,
  errors: Schema.Array(Schema.String),
})
export type ImportResult = typeof ImportResult.Type

/** The bytes of a CSV file: whole, or as chunks (a web ReadableStream such as `File.stream()`, or any async iterable). */
export type CsvSource = string | Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>

/** An import as the form sends it: every part still unchecked. `file` is undefined when the form has no file part. */
export interface ImportRequest {
  readonly file: { readonly name: string; readonly content: CsvSource } | undefined
  /** The JSON text of the `mappings` part, or the array it holds. */
  readonly mappings: unknown
  readonly listId?: string | undefined
  /** Comma-separated, as the form sends them, or already split. */
  readonly tags?: string | ReadonlyArray<string> | undefined
}

/** An import request whose parts passed every check that does not need the file's content. */
export interface ImportOptions {
  readonly content: CsvSource
  readonly mappings: ReadonlyArray<ColumnMapping>
  readonly listId: string | undefined
  readonly tags: ReadonlyArray<string>
}

/** A data row that can become a contact. `row` is the line of the file the row starts on (the header is row 1). */
export interface ImportRow {
  readonly row: number
  readonly email: EmailAddress
  readonly firstName: string | null
  readonly lastName: string | null
  readonly phone: string | null
}

export interface RowRejection {
  readonly row: number
  readonly message: string
}

/** A file read against its mappings: rows that can become contacts and rows rejected one by one. */
export interface CsvFile {
  readonly rows: ReadonlyArray<ImportRow>
  readonly rejected: ReadonlyArray<RowRejection>
}

export const rejected = (reason: ImportRejectionReason, detail: string) => new ImportRejected({ reason, detail })
export const formatCount = (count: number) => count.toLocaleString("en-US")
/** A cell value as shown inside a message: quoted, and shortened when long. */
const quoted = (value: string) => JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value)

const decodeMapping = Schema.decodeUnknownEither(ColumnMapping, { onExcessProperty: "error" })

/** The `mappings` part: a JSON array of { csvColumn, field }, each column named once, exactly one mapped to email. */
export const decodeMappings = (raw: unknown): Either.Either<ReadonlyArray<ColumnMapping>, ImportRejected> => {
  const shape = "a JSON array of { csvColumn, field }"
  if (raw === undefined || raw === null || raw === "") {
    return Either.left(rejected("INVALID_REQUEST", `the form needs a mappings part: ${shape}`))
  }
  let value: unknown = raw
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw)
    } catch {
      return Either.left(rejected("INVALID_REQUEST", `mappings is not valid JSON: send ${shape}`))
    }
  }
  if (!Array.isArray(value)) return Either.left(rejected("INVALID_REQUEST", `mappings must be ${shape}`))
  if (value.length > importLimits.columns) {
    return Either.left(rejected("INVALID_REQUEST", `mappings holds ${value.length} entries; at most ${importLimits.columns} are allowed`))
  }
  const mappings: Array<ColumnMapping> = []
  for (const [index, item] of value.entries()) {
    const decoded = decodeMapping(item)
    if (Either.isLeft(decoded)) {
      const issue = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]
      const path = issue?.path.map((key) => `.${String(key)}`).join("") ?? ""
      return Either.left(rejected("INVALID_REQUEST", `mappings[${index}]${path} ${issue?.message ?? "is invalid"}`))
    }
    mappings.push(decoded.right)
  }
  const emailColumns = mappings.filter((mapping) => mapping.field === "email").length
  if (emailColumns !== 1) {
    return Either.left(rejected("INVALID_REQUEST", emailColumns === 0
      ? "mappings maps no column to email: exactly one column must map to email"
      : `mappings maps ${emailColumns} columns to email: exactly one column must map to email`))
  }
  const columns = new Set<string>()
  const fields = new Set<ImportField>()
  for (const { csvColumn, field } of mappings) {
    if (columns.has(csvColumn)) return Either.left(rejected("INVALID_REQUEST", `mappings names the column ${quoted(csvColumn)} more than once`))
    if (field !== "skip" && fields.has(field)) return Either.left(rejected("INVALID_REQUEST", `mappings maps more than one column to ${field}`))
    columns.add(csvColumn)
    fields.add(field)
  }
  return Either.right(mappings)
}

const decodeTag = Schema.decodeUnknownEither(TagName)

/** The `tags` part: comma-separated names, trimmed and lower-cased, empty entries and repeats dropped, at most 20. */
export const decodeImportTags = (
  raw: string | ReadonlyArray<string> | undefined,
): Either.Either<ReadonlyArray<string>, ImportRejected> => {
  const entries = raw === undefined ? [] : typeof raw === "string" ? raw.split(",") : raw
  const tags = new Set<string>()
  for (const entry of entries) {
    if (entry.trim() === "") continue
    const decoded = decodeTag(entry)
    if (Either.isLeft(decoded)) {
      const message = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]?.message ?? "is not a valid tag"
      return Either.left(rejected("INVALID_REQUEST", `tag ${quoted(entry.trim())}: ${message}`))
    }
    tags.add(decoded.right)
  }
  if (tags.size > importLimits.tags) {
    return Either.left(rejected("INVALID_REQUEST", `tags holds ${tags.size} tags; at most ${importLimits.tags} are allowed`))
  }
  return Either.right([...tags])
}

/** Every check of an import request that does not need the file's content, in the order a client fixes them. */
export const decodeImportRequest = (request: ImportRequest): Either.Either<ImportOptions, ImportRejected> => {
  if (request.file === undefined) return Either.left(rejected("INVALID_REQUEST", "the form needs a file part holding the CSV file"))
  if (!/\.csv$/i.test(request.file.name)) {
    return Either.left(rejected("INVALID_REQUEST", `the file ${quoted(request.file.name)} is not a .csv file`))
  }
  return Either.all({
    content: Either.right(request.file.content),
    mappings: decodeMappings(request.mappings),
    tags: decodeImportTags(request.tags),
    listId: Either.right(request.listId === undefined || request.listId.trim() === "" ? undefined : request.listId.trim()),
  })
}

/** Where each mapped field sits in a row, and how many cells a row has. */
export interface ColumnPlan {
  readonly width: number
  readonly headers: ReadonlyArray<string>
  readonly email: number
  readonly firstName: number | undefined
  readonly lastName: number | undefined
  readonly phone: number | undefined
}

/** Characters as a person counts them (code points), computed only when the UTF-16 length could exceed `limit`. */
export const longerThan = (value: string, limit: number) => value.length > limit && [...value].length > limit

export const fieldTooLong = (row: number, column: string) =>
  rejected("INVALID_REQUEST",
    `row ${row}, column ${quoted(column)}: a field holds at most ${formatCount(importLimits.fieldCharacters)} characters`)

/** The header row checked against the limits and the mappings: unique names, every mapped column present. */
export const planColumns = (
  header: ReadonlyArray<string>,
  mappings: ReadonlyArray<ColumnMapping>,
): Either.Either<ColumnPlan, ImportRejected> => {
  if (header.length > importLimits.columns) {
    return Either.left(rejected("INVALID_REQUEST", `the header has ${header.length} columns; at most ${importLimits.columns} are allowed`))
  }
  const positions = new Map<string, number>()
  for (const [index, name] of header.entries()) {
    if (longerThan(name, importLimits.fieldCharacters)) return Either.left(fieldTooLong(1, `column ${index + 1}`))
    const first = positions.get(name)
    if (first !== undefined) {
      return Either.left(rejected("INVALID_REQUEST",
        `duplicate header ${quoted(name)} in columns ${first + 1} and ${index + 1}: headers must be unique`))
    }
    positions.set(name, index)
  }
  const at: Partial<Record<ImportField, number>> = {}
  for (const { csvColumn, field } of mappings) {
    const index = positions.get(csvColumn)
    if (index === undefined) {
      return Either.left(rejected("INVALID_REQUEST", `the column ${quoted(csvColumn)} mapped to ${field} is not in the file's header`))
    }
    if (field !== "skip") at[field] = index
  }
  if (at.email === undefined) {
    return Either.left(rejected("INVALID_REQUEST", "mappings maps no column to email: exactly one column must map to email"))
  }
  return Either.right({
    width: header.length, headers: header, email: at.email, firstName: at.firstName, lastName: at.lastName, phone: at.phone,
  })
}

const phoneSeparators = /[\s().-]/g
const isE164 = Schema.is(PhoneE164)

/** A name cell: trimmed, empty means none, at most 100 characters. */
const readName = (row: number, field: string, cell: string | undefined): Either.Either<string | null, string> => {
  const name = cell?.trim() ?? ""
  if (name === "") return Either.right(null)
  return longerThan(name, contactLimits.nameLength)
    ? Either.left(`row ${row}: ${field} is longer than ${contactLimits.nameLength} characters`)
    : Either.right(name)
}

/** A phone cell: spaces, dots, dashes and parentheses dropped, then E.164 (a plus and up to 15 digits). */
const readPhone = (row: number, cell: string | undefined): Either.Either<string | null, string> => {
  const phone = cell?.trim() ?? ""
  if (phone === "") return Either.right(null)
  const compact = phone.replace(phoneSeparators, "")
  return isE164(compact)
    ? Either.right(compact)
    : Either.left(`row ${row}: phone ${quoted(phone)} is not an E.164 number such as +14155550123`)
}

/** A data row read against the column plan, or the message that rejects it. Cells other than the address are kept
 *  as given (trimmed): text that looks like a spreadsheet formula is data, and export is what guards against it. */
export const readRow = (plan: ColumnPlan, cells: ReadonlyArray<string>, row: number): Either.Either<ImportRow, string> => {
  if (cells.length !== plan.width) {
    return Either.left(`row ${row}: expected ${plan.width} ${plan.width === 1 ? "cell" : "cells"}, found ${cells.length}`)
  }
  const address = normalizeEmail(cells[plan.email] ?? "")
  if (address === "") return Either.left(`row ${row}: the email cell is empty`)
  const problem = emailProblem(address)
  if (problem !== undefined) return Either.left(`row ${row}: ${quoted(address)} is not a valid email address (${problem})`)
  const cell = (index: number | undefined) => index === undefined ? undefined : cells[index]
  return Either.all({
    row: Either.right(row),
    email: Either.right(address as EmailAddress),
    firstName: readName(row, "firstName", cell(plan.firstName)),
    lastName: readName(row, "lastName", cell(plan.lastName)),
    phone: readPhone(row, cell(plan.phone)),
  })
}


/** What an import does with the rows of a file once the account's existing addresses are known. */
export interface ImportPlan {
  /** Rows that become new contacts, in file order. */
  readonly create: ReadonlyArray<ImportRow>
  /** Addresses of the file that already belong to contacts of the account. */
  readonly existing: ReadonlyArray<EmailAddress>
  readonly skipped: number
  /** One message per rejected row, in row order. */
  readonly errors: ReadonlyArray<string>
}

/** Decides each row: the first row with an address wins and later ones are skipped; an address the account holds
 *  already is skipped and left as it is; a new address becomes a contact while the plan's cap leaves room, and past
 *  it the row is rejected. */
export const planImport = (
  file: CsvFile,
  existing: ReadonlySet<string>,
  cap: ActiveRoom | undefined,
): ImportPlan => {
  const seen = new Set<string>()
  const create: Array<ImportRow> = []
  const present: Array<EmailAddress> = []
  const capped: Array<RowRejection> = []
  let skipped = 0
  let room = cap?.room ?? Number.POSITIVE_INFINITY
  for (const row of file.rows) {
    if (seen.has(row.email)) {
      skipped++
      continue
    }
    seen.add(row.email)
    if (existing.has(row.email)) {
      skipped++
      present.push(row.email)
    } else if (room > 0) {
      create.push(row)
      room--
    } else {
      capped.push({
        row: row.row,
        message: `row ${row.row}: ${row.email} was not imported: a Free account holds at most ${cap!.limit} active contacts`,
      })
    }
  }
  const errors = [...file.rejected, ...capped].sort((a, b) => a.row - b.row).map((rejection) => rejection.message)
  return { create, existing: present, skipped, errors }
}
