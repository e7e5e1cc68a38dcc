/** The transport contract of a framework adapter: what reaches Mailroom's handler is what the client sent, below
 *  the base path, and what the handler answers reaches the client unchanged and streamed. Each adapter package
 *  runs it over a real HTTP server on 127.0.0.1, with a hand-written handler in place of Mailroom. */
import { createHash } from "node:crypto"
import type { Server } from "node:http"
import { type AddressInfo, connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import type { HttpTarget } from "./http-suite/client.js"

/** The part of a Mailroom an adapter mounts: its handler, which adapters call with the connection's peer address. */
export interface FetchHandler {
  readonly fetch: (request: Request, options?: { readonly clientAddress?: string | null }) => Promise<Response>
}

/** A host server listening on 127.0.0.1; `origin` is `http://127.0.0.1:<port>`. */
export interface AdapterHost {
  readonly origin: string
  readonly close: () => Promise<void>
}

/**
 * Starts the framework on 127.0.0.1 with an ephemeral port. The host registers its own route
 * `GET /host/hello` (answering 200 "hello from the host") and then mounts `handler` at `basePath`
 * ("/mailroom", or "" for the root). Paths that neither knows get the framework's own 404.
 */
export type StartAdapterHost = (handler: FetchHandler, basePath: string) => Promise<AdapterHost>

/** Sends a POST to `path` that declares a 100-byte body, writes ten bytes of it and hangs up: a client that leaves
 *  in the middle of its body. Resolves once the connection is closed and the host has had a moment to react. */
export const abandonBody = async (origin: string, path: string): Promise<void> => {
  const socket = connect(Number(new URL(origin).port), "127.0.0.1")
  await new Promise((resolve) => socket.once("connect", resolve))
  socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nonly ten b`)
  await new Promise((resolve) => setTimeout(resolve, 50))
  socket.destroy()
  await new Promise((resolve) => setTimeout(resolve, 50))
}

/** Waits for `server` to listen and returns it as an AdapterHost whose close() also ends kept-alive sockets. */
export const adapterHostOf = async (server: Server): Promise<AdapterHost> => {
  if (!server.listening) await new Promise<void>((resolve) => server.once("listening", () => resolve()))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()))
      server.closeAllConnections()
    }),
  }
}

/** An httpSuite target that sends each request over real HTTP to `host` under `basePath`, and on close stops the
 *  host, then `release` (the Mailroom behind it). */
export const targetOverHttp = (host: AdapterHost, basePath: string, release: () => Promise<void>): HttpTarget => ({
  fetch: (request) => {
    const { pathname, search } = new URL(request.url)
    return fetch(new Request(`${host.origin}${basePath}${pathname}${search}`, request))
  },
  close: async () => {
    await host.close()
    await release()
  },
})

const mebibyte = 1024 * 1024
const chunkSize = 64 * 1024
/** How long a test waits for the server to notice a client that went away. The close reaches the server within
 *  milliseconds; the margin is for a machine busy with other test files, where one second was seen to run out. */
const closeNoticed = { timeout: 10_000 }

/** Chunk number `index` of the deterministic byte sequence the probe streams out. */
const chunkOf = (index: number, size = chunkSize): Uint8Array => new Uint8Array(size).fill(index % 251)

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

const deferred = <A = void>() => {
  let resolve!: (value: A) => void
  const promise = new Promise<A>((done) => { resolve = done })
  return { promise, resolve }
}

/** What the probe saw of one request. */
interface SeenRequest {
  readonly method: string
  readonly url: string
  readonly signal: AbortSignal
  readonly clientAddress: string | null | undefined
}

/** The handler mounted in place of Mailroom: a few paths, each exercising one part of the transport. */
const makeProbe = () => {
  const seen: Array<SeenRequest> = []
  const release = deferred()
  const stream = { produced: 0, cancelled: false }

  /** `bytes` bytes in 64 KiB chunks, produced only as fast as the transport pulls them. */
  const produce = (bytes: number) => {
    stream.produced = 0
    stream.cancelled = false
    let index = 0
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (stream.produced >= bytes) return controller.close()
        const chunk = chunkOf(index++, Math.min(chunkSize, bytes - stream.produced))
        stream.produced += chunk.byteLength
        controller.enqueue(chunk)
      },
      cancel() { stream.cancelled = true },
    }, { highWaterMark: 0 })
  }

  const routes: Record<string, (request: Request, url: URL) => Promise<Response> | Response> = {
    "/echo": async (request, url) => {
      const body = new Uint8Array(await request.arrayBuffer())
      return Response.json({
        method: request.method,
        path: url.pathname,
        search: url.search,
        host: url.host,
        headers: Object.fromEntries(request.headers),
        bodyBytes: body.byteLength,
        bodySha256: sha256(body),
        bodyText: body.byteLength <= 4096 ? new TextDecoder().decode(body) : null,
      })
    },
    "/status": () => {
      const headers = new Headers({ "content-type": "application/json", "x-mailroom-probe": "created" })
      headers.append("set-cookie", "first=1; Path=/; HttpOnly")
      headers.append("set-cookie", "second=2; Path=/; Secure")
      return new Response(JSON.stringify({ created: true }), { status: 201, headers })
    },
    "/empty": () => new Response(null, { status: 204, headers: { "x-mailroom-probe": "empty" } }),
    "/text": () => new Response("hello", { headers: { "content-type": "text/plain; charset=utf-8" } }),
    "/stream": () => {
      const encoder = new TextEncoder()
      return new Response(new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(encoder.encode("first\n"))
          await release.promise
          controller.enqueue(encoder.encode("second\n"))
          controller.close()
        },
      }), { headers: { "content-type": "text/plain; charset=utf-8" } })
    },
    "/large": (_request, url) => new Response(produce(Number(url.searchParams.get("bytes"))), {
      headers: { "content-type": "application/octet-stream" },
    }),
  }

  const handler: FetchHandler = {
    fetch: async (request, options) => {
      const url = new URL(request.url)
      seen.push({ method: request.method, url: request.url, signal: request.signal, clientAddress: options?.clientAddress })
      const route = routes[url.pathname === "/" || url.pathname.startsWith("/echo") ? "/echo" : url.pathname]
      return route
        ? route(request, url)
        : Response.json({ error: { code: "ROUTE_NOT_FOUND" } }, { status: 404 })
    },
  }
  return { handler, seen, release, stream }
}

/** A request body streamed from the client in `count` chunks of 64 KiB, with its digest. */
const streamedBody = (count: number) => {
  const hash = createHash("sha256")
  for (let index = 0; index < count; index++) hash.update(chunkOf(index))
  let index = 0
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index === count) return controller.close()
      controller.enqueue(chunkOf(index++))
    },
  })
  return { body, bytes: count * chunkSize, sha256: hash.digest("hex") }
}

/** Reads from `reader` until `predicate` holds for the text read so far, and answers that text. */
const readUntil = async (reader: ReadableStreamDefaultReader<Uint8Array>, predicate: (text: string) => boolean) => {
  const decoder = new TextDecoder()
  let text = ""
  while (!predicate(text)) {
    const { done, value } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
  }
  return text
}

/** Runs the transport contract against one framework adapter. */
export const adapterSuite = (framework: string, start: StartAdapterHost) => {
  describe(`${framework} adapter, mounted at /mailroom`, () => {
    const probe = makeProbe()
    let host: AdapterHost
    const at = (path: string) => `${host.origin}/mailroom${path}`

    beforeAll(async () => { host = await start(probe.handler, "/mailroom") })
    afterAll(async () => { probe.release.resolve(); await host?.close() })

    it("strips the base path and keeps the query string and the host", async () => {
      const response = await fetch(at("/echo/a%20b?limit=2&q=%2F"))
      const echo = await response.json()
      expect(response.status).toBe(200)
      expect(echo).toMatchObject({ method: "GET", path: "/echo/a%20b", search: "?limit=2&q=%2F", host: new URL(host.origin).host })
    })

    it("hands the handler the peer address of the connection, whatever X-Forwarded-For claims", async () => {
      await (await fetch(at("/echo"), { headers: { "x-forwarded-for": "203.0.113.9" } })).arrayBuffer()
      expect(probe.seen.at(-1)!.clientAddress).toBe("127.0.0.1")
      await (await fetch(at("/echo"), { method: "POST", body: "x".repeat(100_000) })).arrayBuffer()
      expect(probe.seen.at(-1)!.clientAddress).toBe("127.0.0.1")
    })

    it("sends the base path itself to the handler's root", async () => {
      const echo = await (await fetch(at("?page=1"))).json()
      expect(echo).toMatchObject({ path: "/", search: "?page=1" })
    })

    it("leaves paths outside the base path to the host", async () => {
      const before = probe.seen.length
      const hello = await fetch(`${host.origin}/host/hello`)
      expect(await hello.text()).toBe("hello from the host")
      const elsewhere = await fetch(`${host.origin}/elsewhere/v1/contacts`)
      expect(elsewhere.status).toBe(404)
      await elsewhere.arrayBuffer()
      expect(probe.seen.length).toBe(before)
    })

    it.each(["POST", "PUT", "PATCH", "DELETE"])("forwards %s with its headers and body", async (method) => {
      const response = await fetch(at("/echo"), {
        method,
        headers: { "content-type": "application/json", authorization: "Bearer svc_live_test", "x-request-id": "req-1" },
        body: JSON.stringify({ email: "ada@example.com" }),
      })
      const echo = await response.json()
      expect(echo).toMatchObject({
        method,
        bodyText: '{"email":"ada@example.com"}',
        headers: { "content-type": "application/json", authorization: "Bearer svc_live_test", "x-request-id": "req-1" },
      })
    })

    it("streams a large request body to the handler byte for byte", async () => {
      const upload = streamedBody(8 * mebibyte / chunkSize)
      const response = await fetch(at("/echo"), {
        method: "POST",
        headers: { "content-type": "application/octet-stream" },
        body: upload.body,
        duplex: "half",
      } as RequestInit)
      const echo = await response.json()
      expect(echo).toMatchObject({ bodyBytes: upload.bytes, bodySha256: upload.sha256 })
      expect(echo.headers["transfer-encoding"]).toBe("chunked")
    })

    it("answers with the handler's status, headers and every Set-Cookie", async () => {
      const response = await fetch(at("/status"))
      expect(response.status).toBe(201)
      expect(response.headers.get("content-type")).toBe("application/json")
      expect(response.headers.get("x-mailroom-probe")).toBe("created")
      expect(response.headers.getSetCookie()).toEqual(["first=1; Path=/; HttpOnly", "second=2; Path=/; Secure"])
      expect(await response.json()).toEqual({ created: true })
    })

    it("answers 204 without a body", async () => {
      const response = await fetch(at("/empty"), { method: "DELETE" })
      expect(response.status).toBe(204)
      expect(response.headers.get("x-mailroom-probe")).toBe("empty")
      expect(await response.text()).toBe("")
    })

    it("answers HEAD with the headers of GET and no body", async () => {
      const response = await fetch(at("/text"), { method: "HEAD" })
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8")
      expect(await response.text()).toBe("")
      expect(probe.seen.at(-1)!.method).toBe("HEAD")
    })

    it("streams the response: the first chunk arrives before the handler finishes", async () => {
      const response = await fetch(at("/stream"))
      const reader = response.body!.getReader()
      expect(await readUntil(reader, (text) => text.includes("first\n"))).toBe("first\n")
      probe.release.resolve()
      expect(await readUntil(reader, (text) => text.includes("second\n"))).toBe("second\n")
      expect((await reader.read()).done).toBe(true)
    })

    it("delivers a large response body whole", async () => {
      const bytes = 16 * mebibyte
      const response = await fetch(at(`/large?bytes=${bytes}`))
      const body = new Uint8Array(await response.arrayBuffer())
      const expected = createHash("sha256")
      for (let index = 0; index < bytes / chunkSize; index++) expected.update(chunkOf(index))
      expect(body.byteLength).toBe(bytes)
      expect(sha256(body)).toBe(expected.digest("hex"))
    })

    it("pulls the response only as fast as the client reads it", async () => {
      const bytes = 256 * mebibyte
      const response = await fetch(at(`/large?bytes=${bytes}`))
      const reader = response.body!.getReader()
      await reader.read()
      await new Promise((resolve) => setTimeout(resolve, 300))
      // Socket buffers on both sides hold a few MiB; without backpressure the whole body would be produced.
      expect(probe.stream.produced).toBeLessThan(32 * mebibyte)
      await reader.cancel()
      await vi.waitFor(() => expect(probe.stream.cancelled).toBe(true), closeNoticed)
    })

    it("cancels the response stream and aborts the request signal when the client goes away", async () => {
      const controller = new AbortController()
      const response = await fetch(at(`/large?bytes=${256 * mebibyte}`), { signal: controller.signal })
      const request = probe.seen.at(-1)!
      await response.body!.getReader().read()
      controller.abort()
      await vi.waitFor(() => {
        expect(probe.stream.cancelled).toBe(true)
        expect(request.signal.aborted).toBe(true)
      }, closeNoticed)
      expect(probe.stream.produced).toBeLessThan(256 * mebibyte)
    })
  })

  describe(`${framework} adapter, mounted at the root`, () => {
    const probe = makeProbe()
    let host: AdapterHost

    beforeAll(async () => { host = await start(probe.handler, "") })
    afterAll(async () => { probe.release.resolve(); await host?.close() })

    it("hands the handler the peer address of the connection", async () => {
      await (await fetch(`${host.origin}/echo`)).arrayBuffer()
      expect(probe.seen.at(-1)!.clientAddress).toBe("127.0.0.1")
    })

    it("passes paths through unchanged", async () => {
      const echo = await (await fetch(`${host.origin}/echo/v1/contacts?page=2`)).json()
      expect(echo).toMatchObject({ path: "/echo/v1/contacts", search: "?page=2" })
    })

    it("keeps the host's own routes", async () => {
      const before = probe.seen.length
      expect(await (await fetch(`${host.origin}/host/hello`)).text()).toBe("hello from the host")
      expect(probe.seen.length).toBe(before)
    })

    it("lets the handler answer paths it does not know", async () => {
      const response = await fetch(`${host.origin}/v1/unknown`)
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: { code: "ROUTE_NOT_FOUND" } })
    })
  })
}
