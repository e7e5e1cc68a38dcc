/** Oversized bodies over real sockets: Mailroom answers 413 before it has read a body past its limit, and the client
 *  must receive that answer whether it writes its whole body first or reads the answer as it comes. Closing the
 *  connection while the client still writes makes the kernel reset it, and a reset discards the 413 the client has
 *  not read yet; so the host keeps reading and discarding for a bounded time and size (a lingering close).
 *  Each framework adapter runs it with a real Mailroom; every case runs several times, because the failure is a race. */
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AdapterHost, StartAdapterHost } from "./adapter-suite.js"
import type { KeepAliveMailroom } from "./keep-alive-suite.js"

export type MakeOversizedBodyMailroom = () => Promise<KeepAliveMailroom>

const adminToken = "test-admin-token"
const mebibyte = 1024 * 1024

/** How each case is tried: enough rounds that the race, when present, shows (measured: before the lingering close,
 *  most rounds of the write-first client failed, and some of the read-first one). */
const rounds = 4

/** What the client saw: the answer, or the socket error that ended the exchange before a whole answer arrived. */
type Outcome =
  | { readonly kind: "answer"; readonly status: number; readonly headers: Record<string, string>; readonly body: string }
  | { readonly kind: "failed"; readonly error: string }

/** The complete HTTP/1.1 answer at the start of `bytes`, if it has all arrived (Content-Length or chunked). */
const parseAnswer = (bytes: Buffer): Outcome | undefined => {
  const end = bytes.indexOf("\r\n\r\n")
  if (end === -1) return undefined
  const [statusLine = "", ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n")
  const headers = Object.fromEntries(lines.map((line) => {
    const colon = line.indexOf(":")
    return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]
  }))
  const status = Number(statusLine.split(" ")[1])
  const rest = bytes.subarray(end + 4)
  if (headers["content-length"] !== undefined) {
    const length = Number(headers["content-length"])
    return rest.length < length ? undefined : { kind: "answer", status, headers, body: rest.subarray(0, length).toString("utf8") }
  }
  if (headers["transfer-encoding"] === "chunked") {
    const parts: Array<Buffer> = []
    let offset = 0
    for (;;) {
      const lineEnd = rest.indexOf("\r\n", offset)
      if (lineEnd === -1) return undefined
      const size = parseInt(rest.subarray(offset, lineEnd).toString("latin1"), 16)
      if (size === 0) return { kind: "answer", status, headers, body: Buffer.concat(parts).toString("utf8") }
      if (rest.length < lineEnd + 2 + size + 2) return undefined
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size))
      offset = lineEnd + 2 + size + 2
    }
  }
  return undefined
}

/**
 * Sends `head` and `body` on a new connection to `port`. "write-first" writes the whole body, and reads nothing until
 * the kernel has taken all of it (or refused it); "read-first" reads from the start and stops writing once a whole
 * answer has arrived. Resolves with the answer, or with the error that ended the exchange without one.
 */
const exchange = (port: number, head: string, body: Buffer, mode: "write-first" | "read-first"): Promise<Outcome> =>
  new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1")
    const received: Array<Buffer> = []
    let settled = false
    const settle = (outcome: Outcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(outcome)
    }
    const timer = setTimeout(() => settle({ kind: "failed", error: "no answer within 20 seconds" }), 20_000)
    const onData = (chunk: Buffer) => {
      received.push(chunk)
      const answer = parseAnswer(Buffer.concat(received))
      if (answer !== undefined) settle(answer)
    }
    const readAnswer = () => socket.on("data", onData)
    // EPIPE or ECONNRESET: the connection was reset, and with it whatever answer the client had not read yet.
    socket.on("error", (error: NodeJS.ErrnoException) => {
      settle({ kind: "failed", error: error.code ?? error.message })
    })
    socket.on("close", () => settle(parseAnswer(Buffer.concat(received)) ?? { kind: "failed", error: "closed without a whole answer" }))
    socket.once("connect", () => {
      if (mode === "read-first") readAnswer()
      else socket.pause()
      socket.write(head)
      // In 256 KiB writes, so that the read-first client stops soon after its answer has arrived.
      const chunk = 256 * 1024
      let offset = 0
      const writeNext = () => {
        while (!settled && offset < body.length) {
          const piece = body.subarray(offset, offset + chunk)
          offset += piece.length
          const last = offset >= body.length
          const flushed = socket.write(piece, last && mode === "write-first"
            ? (error) => {
              if (error === undefined || error === null) {
                socket.resume()
                readAnswer()
              }
            }
            : undefined)
          if (!flushed) return void socket.once("drain", writeNext)
        }
      }
      writeNext()
    })
  })

interface Case {
  readonly name: string
  readonly path: string
  readonly contentType: string
  readonly body: Buffer
  /** Sent without a Content-Length, in chunked transfer encoding, so that the limit is found while streaming. */
  readonly chunked?: boolean
  /** The spec's error body: the standard envelope, or `{ error }` for the CSV import. */
  readonly shape: "envelope" | "plain"
  /** A legacy /templates route: the 413 carries the Deprecation, Sunset and Link headers. */
  readonly deprecated?: boolean
}

const jsonFilling = (bytes: number) => Buffer.from(`{"email":"big@example.com","firstName":"${"x".repeat(bytes - 48)}"}`)

/** A multipart import whose CSV file is `bytes` long. */
const importForm = (bytes: number) => {
  const boundary = "mailroom-oversized"
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="mappings"\r\n\r\n{"email":"email"}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\nemail\r\n`
  const rows = Buffer.alloc(bytes, "a@example.com\r\n")
  return {
    body: Buffer.concat([Buffer.from(head), rows, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  }
}

const csv = importForm(5 * mebibyte)

const cases: ReadonlyArray<Case> = [
  { name: "9 MiB JSON to POST /contacts", path: "/v1/contacts", contentType: "application/json", body: jsonFilling(9 * mebibyte), shape: "envelope" },
  {
    name: "9 MiB JSON to POST /contacts, chunked",
    path: "/v1/contacts",
    contentType: "application/json",
    body: jsonFilling(9 * mebibyte),
    chunked: true,
    shape: "envelope",
  },
  { name: "8.1 MiB JSON to POST /emails/send", path: "/v1/emails/send", contentType: "application/json", body: jsonFilling(8.1 * mebibyte), shape: "envelope" },
  { name: "8.1 MiB JSON to POST /emails/batch", path: "/v1/emails/batch", contentType: "application/json", body: jsonFilling(8.1 * mebibyte), shape: "envelope" },
  {
    name: "8.1 MiB JSON to POST /templates/{id}/render", path: "/v1/templates/tpl_oversized/render",
    contentType: "application/json", body: jsonFilling(8.1 * mebibyte), shape: "envelope", deprecated: true,
  },
  {
    name: "9 MiB JSON to POST /templates, chunked", path: "/v1/templates", contentType: "application/json",
    body: jsonFilling(9 * mebibyte), chunked: true, shape: "envelope", deprecated: true,
  },
  { name: "5 MiB CSV to POST /contacts/import", path: "/v1/contacts/import", contentType: csv.contentType, body: csv.body, shape: "plain" },
]

/** The request line and headers of one case, and its body as it goes on the wire. */
const wire = (testCase: Case, basePath: string, key: string) => {
  const framing = testCase.chunked === true ? "Transfer-Encoding: chunked" : `Content-Length: ${testCase.body.length}`
  const head = `POST ${basePath}${testCase.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
    `Content-Type: ${testCase.contentType}\r\n${framing}\r\n\r\n`
  if (testCase.chunked !== true) return { head, body: testCase.body }
  const pieces: Array<Buffer> = []
  for (let offset = 0; offset < testCase.body.length; offset += 64 * 1024) {
    const piece = testCase.body.subarray(offset, offset + 64 * 1024)
    pieces.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"))
  }
  pieces.push(Buffer.from("0\r\n\r\n"))
  return { head, body: Buffer.concat(pieces) }
}

/** Connects, sends `head`, then writes `chunk` over and over until `stopAfterBytes` are written or the connection
 *  fails, reading whatever comes back; once stopped, writes one byte every 250 ms, which fails once the server has
 *  closed the connection (the server ends its side first, so its close shows only to a write). Resolves with how
 *  much was written, the answer that arrived, and how long the connection lasted. */
const sendWithoutEnd = (port: number, head: string, chunk: Buffer, stopAfterBytes: number) =>
  new Promise<{ readonly written: number; readonly answer: Outcome | undefined; readonly ms: number }>((resolve) => {
    const started = Date.now()
    // Half-open allowed: the client does not end its side when the server ends its own, as a client still busy
    // writing its body would not.
    const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: true })
    const received: Array<Buffer> = []
    let written = 0
    let poke: NodeJS.Timeout | undefined
    socket.on("data", (data: Buffer) => received.push(data))
    socket.on("error", () => undefined)
    socket.once("close", () => {
      clearInterval(poke)
      resolve({ written, answer: parseAnswer(Buffer.concat(received)), ms: Date.now() - started })
    })
    socket.once("connect", () => {
      socket.write(head)
      const writeNext = () => {
        while (!socket.destroyed && written < stopAfterBytes) {
          written += chunk.length
          if (!socket.write(chunk)) return void socket.once("drain", writeNext)
        }
        poke = setInterval(() => socket.write("x"), 250)
      }
      writeNext()
    })
  })

/** Runs the oversized-body contract against one framework adapter, mounted under `basePath` (default /mailroom; ""
 *  for a host that serves Mailroom's handler itself). */
export const oversizedBodySuite = (
  framework: string,
  start: StartAdapterHost,
  makeMailroom: MakeOversizedBodyMailroom,
  basePath = "/mailroom",
) =>
  describe(`${framework} adapter: oversized bodies are answered 413`, () => {
    let mailroom: KeepAliveMailroom
    let host: AdapterHost
    let key: string
    let port: number

    beforeAll(async () => {
      mailroom = await makeMailroom()
      host = await start(mailroom, basePath)
      port = Number(new URL(host.origin).port)
      const response = await fetch(`${host.origin}${basePath}/admin/accounts`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: '{"plan":"pro"}',
      })
      key = ((await response.json()) as { apiKey: string }).apiKey
    })
    afterAll(async () => {
      await host?.close()
      await mailroom?.close()
    })

    describe.each(["write-first", "read-first"] as const)("to a client that %s", (mode) => {
      it.each(cases)("$name", async (testCase) => {
        const { head, body } = wire(testCase, basePath, key)
        const outcomes: Array<Outcome> = []
        for (let round = 0; round < rounds; round++) outcomes.push(await exchange(port, head, body, mode))
        const failed = outcomes.filter((outcome) => outcome.kind === "failed")
        expect(failed, `${failed.length} of ${rounds} rounds got no answer`).toEqual([])
        for (const outcome of outcomes) {
          if (outcome.kind !== "answer") continue
          expect(outcome.status).toBe(413)
          const answer = JSON.parse(outcome.body) as unknown
          if (testCase.shape === "plain") expect(answer).toEqual({ error: expect.stringMatching(/\S/) })
          else expect(answer).toMatchObject({ success: false, error: { code: "PAYLOAD_TOO_LARGE", fix_action: expect.any(String) } })
          if (testCase.deprecated === true) {
            expect(outcome.headers).toMatchObject({ deprecation: "true", sunset: "Fri, 30 Apr 2027 00:00:00 GMT" })
          }
        }
      }, 120_000)
    })

    const declaring = (bytes: number) =>
      `POST ${basePath}/v1/contacts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n`

    it("stops reading a client that keeps sending, past some tens of MiB", async () => {
      const { written, answer } = await sendWithoutEnd(port, declaring(1024 * mebibyte), Buffer.alloc(mebibyte, 32), 1024 * mebibyte)
      expect(answer).toMatchObject({ kind: "answer", status: 413 })
      expect(written).toBeGreaterThan(8 * mebibyte)
      expect(written).toBeLessThan(128 * mebibyte)
    }, 60_000)

    it("closes the connection of a client that stops sending, within seconds", async () => {
      const { written, answer, ms } = await sendWithoutEnd(port, declaring(100 * mebibyte), Buffer.alloc(mebibyte, 32), 2 * mebibyte)
      expect(written).toBe(2 * mebibyte)
      expect(answer).toMatchObject({ kind: "answer", status: 413 })
      // Kept open a while for the client to read its answer, closed once the time limit has passed.
      expect(ms).toBeGreaterThan(1_000)
      expect(ms).toBeLessThan(15_000)
    }, 30_000)
  })
