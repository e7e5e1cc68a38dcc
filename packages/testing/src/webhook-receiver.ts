/** A real HTTP(S) webhook receiver on 127.0.0.1 for tests: it records every request with its raw body and answers as
 *  the test tells it (a status, a hang, a connection reset, a huge body). */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import http from "node:http"
import https from "node:https"
import type { AddressInfo, Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

export interface ReceivedRequest {
  readonly method: string
  readonly path: string
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string>>
  /** The body exactly as received. */
  readonly body: string
  readonly receivedAt: number
}

/** What the receiver does with one request. */
export type ReceiverAnswer =
  | { readonly status: number; readonly body?: string; readonly headers?: Readonly<Record<string, string>> }
  /** Never answers (until the receiver closes). */
  | { readonly hang: true }
  /** Destroys the connection without an answer. */
  | { readonly reset: true }
  /** Answers 200 with a body of `bytes` bytes, streamed. */
  | { readonly hugeBody: number }
  /** Holds the request open until `after` resolves, then answers as it says. */
  | { readonly after: Promise<ReceiverAnswer> }

export interface WebhookReceiver {
  /** `http(s)://127.0.0.1:port` (or the certificate's host name when TLS is on). */
  readonly origin: string
  readonly port: number
  readonly requests: Array<ReceivedRequest>
  /** Sets how the next requests are answered (default: 200 "ok"). */
  answer: (request: ReceivedRequest) => ReceiverAnswer
  /** Resolves once `count` requests have arrived. */
  readonly waitFor: (count: number, timeoutMs?: number) => Promise<ReadonlyArray<ReceivedRequest>>
  readonly close: () => Promise<void>
}

export interface TestCertificate {
  readonly key: string
  readonly cert: string
}

/** A self-signed certificate for `hostname` (and 127.0.0.1), made with the openssl command. */
export const makeTestCertificate = (hostname: string): TestCertificate => {
  const dir = mkdtempSync(join(tmpdir(), "mailroom-cert-"))
  try {
    execFileSync("openssl", [
      "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", `/CN=${hostname}`,
      "-addext", `subjectAltName=DNS:${hostname},IP:127.0.0.1`,
      "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"),
    ], { stdio: "ignore" })
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export interface ReceiverOptions {
  /** Serve HTTPS with this certificate. */
  readonly tls?: TestCertificate
  /** Listen on this address (default 127.0.0.1) and port (default: any free one). */
  readonly host?: string
  readonly port?: number
}

export const startWebhookReceiver = async (options: ReceiverOptions = {}): Promise<WebhookReceiver> => {
  const requests: Array<ReceivedRequest> = []
  const waiters: Array<{ count: number; resolve: () => void }> = []
  const sockets = new Set<Socket>()

  const receiver: WebhookReceiver = {
    origin: "",
    port: 0,
    requests,
    answer: () => ({ status: 200, body: "ok" }),
    waitFor: (count, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        if (requests.length >= count) return resolve(requests.slice(0, count))
        const timer = setTimeout(() => reject(new Error(`received ${requests.length} of ${count} requests`)), timeoutMs)
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(requests.slice(0, count))) })
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }

  const handler = (request: http.IncomingMessage, response: http.ServerResponse) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const received: ReceivedRequest = {
        method: request.method ?? "",
        path: request.url ?? "",
        headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : v ?? ""])),
        body: Buffer.concat(chunks).toString("utf8"),
        receivedAt: Date.now(),
      }
      requests.push(received)
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve()
      }
      respond(receiver.answer(received))
    })
    const respond = (answer: ReceiverAnswer): void => {
      if ("after" in answer) {
        void answer.after.then(respond)
        return
      }
      if ("hang" in answer) return
      if ("reset" in answer) {
        request.socket.destroy()
        return
      }
      if ("hugeBody" in answer) {
        response.writeHead(200, { "content-type": "text/plain" })
        const chunk = Buffer.alloc(64 * 1024, "x")
        let left = answer.hugeBody
        const write = () => {
          while (left > 0) {
            const part = left >= chunk.length ? chunk : chunk.subarray(0, left)
            left -= part.length
            if (!response.write(part)) return void response.once("drain", write)
          }
          response.end()
        }
        response.on("error", () => undefined)
        write()
        return
      }
      response.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers })
      response.end(answer.body ?? "")
    }
  }

  const server = options.tls === undefined
    ? http.createServer(handler)
    : https.createServer({ key: options.tls.key, cert: options.tls.cert }, handler)
  server.on("connection", (socket: Socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  server.on("secureConnection", (socket: Socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve()))
  const port = (server.address() as AddressInfo).port
  Object.assign(receiver, { port, origin: `${options.tls === undefined ? "http" : "https"}://127.0.0.1:${port}` })
  return receiver
}
