/** Reading a CSV file for an import: streams the bytes through csv-parse, paced so the event loop keeps turning, and
 *  turns records into rows with the pure rules of csv-import.ts. The file as a whole is refused (ImportRejected) when
 *  it is not CSV text, malformed, or beyond a limit. */
import { parse } from "csv-parse/stream"
import { Effect, Either } from "effect"
import {
  type ColumnMapping, type ColumnPlan, type CsvFile, type CsvSource, fieldTooLong, formatCount, importLimits,
  type ImportRow, longerThan, planColumns, readRow, rejected, type RowRejection,
} from "../domain/csv-import.js"
import { ImportRejected } from "../errors.js"
/** Line breaks inside a cell: CRLF, LF or a lone CR each count once. */
const lineBreaks = (text: string) => {
  if (text.indexOf("\n") === -1 && text.indexOf("\r") === -1) return 0
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 10 || (code === 13 && text.charCodeAt(i + 1) !== 10)) count++
  }
  return count
}

/** What csv-parse reports with each record (and each error): its line counter and the empty lines it skipped. */
interface ParseInfo {
  readonly lines: number
  readonly empty_lines: number
}

/** Reads records one by one: the header first, then data rows. Counts lines itself, because csv-parse's counter
 *  counts a CRLF inside a quoted field twice; `lineShift` corrects csv-parse's line in its error messages. */
const makeRecordReader = (mappings: ReadonlyArray<ColumnMapping>) => {
  let plan: ColumnPlan | undefined
  let lastLine = 0
  let emptyLines = 0
  let lineShift = 0
  let dataRows = 0
  const rows: Array<ImportRow> = []
  const rejections: Array<RowRejection> = []

  /** The line the next record starts on. */
  const nextLine = (info: ParseInfo) => lastLine + 1 + (info.empty_lines - emptyLines)
  /** The true line of a line csv-parse names in an error. */
  const trueLine = (info: ParseInfo) => info.lines + lineShift

  const accept = (cells: ReadonlyArray<string>, info: ParseInfo): Either.Either<void, ImportRejected> => {
    const row = nextLine(info)
    lastLine = row + cells.reduce((sum, cell) => sum + lineBreaks(cell), 0)
    emptyLines = info.empty_lines
    lineShift = lastLine - info.lines
    if (plan === undefined) {
      return Either.map(planColumns(cells, mappings), (columns) => {
        plan = columns
      })
    }
    if (++dataRows > importLimits.dataRows) {
      return Either.left(rejected("INVALID_REQUEST", `the file holds more than ${formatCount(importLimits.dataRows)} data rows`))
    }
    const long = cells.findIndex((cell) => longerThan(cell, importLimits.fieldCharacters))
    if (long !== -1) return Either.left(fieldTooLong(row, plan.headers[long] ?? `column ${long + 1}`))
    Either.match(readRow(plan, cells, row), {
      onLeft: (message) => rejections.push({ row, message }),
      onRight: (parsed) => rows.push(parsed),
    })
    return Either.void
  }

  const finish = (): Either.Either<CsvFile, ImportRejected> =>
    plan === undefined
      ? Either.left(rejected("INVALID_REQUEST", "the file is empty: it needs a header row naming its columns"))
      : Either.right({ rows, rejected: rejections })

  return { accept, finish, nextLine, trueLine }
}

/** Bytes handed to csv-parse at a time. Warm, csv-parse reads 64 KiB in a few milliseconds, but the first chunks of a
 *  process run before the JIT has compiled it and took over 100 ms at that size; 16 KiB keeps every turn short. */
const chunkBytes = 16 * 1024

/** Resolves on a later turn of the event loop, so that pending I/O and timers run between chunks. */
const nextTurn = () =>
  new Promise<void>((resolve) => typeof setImmediate === "function" ? setImmediate(resolve) : setTimeout(resolve, 0))

const isReadableStream = (source: CsvSource): source is ReadableStream<Uint8Array> =>
  typeof (source as ReadableStream<Uint8Array>).getReader === "function"

async function* readerChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader()
  let done = false
  try {
    while (true) {
      const next = await reader.read()
      if (next.done) {
        done = true
        return
      }
      yield next.value
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined)
    reader.releaseLock()
  }
}

/** The source cut into slices of at most `chunkBytes`. */
async function* slices(source: CsvSource): AsyncGenerator<Uint8Array> {
  const whole = typeof source === "string" ? new TextEncoder().encode(source) : source
  const chunks = whole instanceof Uint8Array ? [whole] : isReadableStream(whole) ? readerChunks(whole) : whole
  for await (const chunk of chunks) {
    for (let start = 0; start < chunk.byteLength; start += chunkBytes) yield chunk.subarray(start, start + chunkBytes)
  }
}

/** The file's bytes, one slice per turn of the event loop, refused past the 2 MiB limit. */
const pacedBytes = (source: CsvSource): ReadableStream<Uint8Array> => {
  const chunks = slices(source)
  let total = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      await nextTurn()
      const next = await chunks.next()
      if (next.done) return controller.close()
      total += next.value.byteLength
      if (total > importLimits.fileBytes) {
        await chunks.return(undefined)
        return controller.error(rejected("TOO_LARGE", "the file is larger than 2 MiB"))
      }
      controller.enqueue(next.value)
    },
    async cancel() {
      await chunks.return(undefined)
    },
  })
}

/** Control characters that never appear in CSV text (tab, LF and CR do). */
const controlCharacter = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/

const notCsv = (line: number, what: string) =>
  rejected("INVALID_REQUEST", `the file is not CSV text: ${what} on line ${line}; save it as CSV (UTF-8)`)

/** Refuses bytes that are not UTF-8 text, or text holding control characters (binary files), and passes the bytes on
 *  unchanged as Buffers, which csv-parse expects. */
const textOnly = () => {
  const decoder = new TextDecoder("utf-8", { fatal: true })
  let line = 1
  const decode = (chunk?: Uint8Array) => {
    let text: string
    try {
      text = chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true })
    } catch {
      // Locate the bad bytes for the message: a lenient decoder marks them with U+FFFD.
      const lenient = chunk === undefined ? "" : new TextDecoder().decode(chunk)
      const at = lenient.indexOf("\ufffd")
      throw notCsv(line + (at === -1 ? 0 : lineBreaks(lenient.slice(0, at))), "bytes that are not UTF-8")
    }
    const bad = controlCharacter.exec(text)
    if (bad !== null) throw notCsv(line + lineBreaks(text.slice(0, bad.index)), "a binary control character")
    line += lineBreaks(text)
  }
  return new TransformStream<Uint8Array, Buffer>({
    transform(chunk, controller) {
      decode(chunk)
      controller.enqueue(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))
    },
    flush() {
      decode()
    },
  })
}

interface ParsedRecord {
  readonly record: Array<string>
  readonly info: ParseInfo
}

const csvProblems: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: "a quoted field starts here and is never closed",
  CSV_INVALID_CLOSING_QUOTE: "a closing quote must be followed by a comma or the end of the row",
  INVALID_OPENING_QUOTE: "a quote inside an unquoted field; quote the whole field and double the quote (\"\")",
}

/** csv-parse's error as the import's answer. An unclosed quote is reported on the line where its record starts. */
const malformed = (error: unknown, reader: ReturnType<typeof makeRecordReader>): ImportRejected => {
  if (error instanceof ImportRejected) return error
  const { code, lines, empty_lines, message } = error as Partial<Record<string, unknown>>
  if (typeof code !== "string") return rejected("INVALID_REQUEST", "the file could not be read as CSV")
  const info = typeof lines === "number" && typeof empty_lines === "number" ? { lines, empty_lines } : undefined
  const line = info === undefined ? undefined : code === "CSV_QUOTE_NOT_CLOSED" ? reader.nextLine(info) : reader.trueLine(info)
  const reason = csvProblems[code] ?? String(message)
  return rejected("INVALID_REQUEST", `malformed CSV${line === undefined ? "" : ` on line ${line}`}: ${reason}`)
}

const parseOptions = {
  bom: true,
  info: true,
  relax_column_count: true,
  skip_empty_lines: true,
  record_delimiter: ["\r\n", "\n", "\r"],
}

/** Reads every record in a plain loop (a fiber switch per record would cost more than the record itself); cancels
 *  the pipeline when a record is refused or `signal` aborts. Never rejects: failures are answered as Left. */
const readRecords = async (
  source: CsvSource,
  mappings: ReadonlyArray<ColumnMapping>,
  signal: AbortSignal,
): Promise<Either.Either<CsvFile, ImportRejected>> => {
  const reader = makeRecordReader(mappings)
  const records =
    pacedBytes(source).pipeThrough(textOnly()).pipeThrough(parse(parseOptions)).getReader() as ReadableStreamDefaultReader<ParsedRecord>
  const cancel = () => {
    records.cancel().catch(() => undefined)
  }
  signal.addEventListener("abort", cancel)
  try {
    while (true) {
      const next = await records.read()
      if (next.done) return reader.finish()
      const accepted = reader.accept(next.value.record, next.value.info)
      if (Either.isLeft(accepted)) {
        cancel()
        return Either.left(accepted.left)
      }
    }
  } catch (error) {
    return Either.left(malformed(error, reader))
  } finally {
    signal.removeEventListener("abort", cancel)
  }
}

/** Streams the file through csv-parse against `mappings`: BOM dropped, CRLF, LF or CR line ends, quoted commas,
 *  doubled quotes and multi-line fields read, blank lines ignored. The file as a whole is refused (ImportRejected)
 *  when it is not CSV text, malformed, or beyond a limit; rows with a wrong number of cells or a bad value are
 *  rejected one by one. The event loop gets a turn between chunks of 16 KiB. */
export const readCsvFile = (
  source: CsvSource,
  mappings: ReadonlyArray<ColumnMapping>,
): Effect.Effect<CsvFile, ImportRejected> =>
  Effect.flatMap(Effect.promise((signal) => readRecords(source, mappings, signal)), (result) => result)
