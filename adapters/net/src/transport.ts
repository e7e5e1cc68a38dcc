/** The HttpTransport port over undici. Each request goes through an Agent whose connect.lookup answers only the
 *  address Mailroom checked, so the host is never resolved a second time between the check and the connect (DNS
 *  rebinding). TLS is verified against the URL's host name. Redirects are never followed, and at most a bounded
 *  snippet of the answer is read. At most `maxInFlight` requests are under way at once, whoever makes them; the others
 *  wait their turn, in order. */
import { HttpTransport, HttpTransportError, type HttpTransportService, type PinnedPost } from "@mailroom/core"
import { Effect, Layer } from "effect"
import { isIP, type LookupFunction } from "node:net"
import { performance } from "node:perf_hooks"
import { rootCertificates } from "node:tls"
import { Agent, type Dispatcher, errors, request } from "undici"

export interface UndiciTransportOptions {
  /** Extra certificate authorities to trust (PEM), beside the system's: for tests against a local HTTPS receiver. */
  readonly ca?: string | ReadonlyArray<string>
  /** Pinned agents kept for reuse of their connections (keyed by origin and address). Default 256. */
  readonly maxAgents?: number
  /** Requests under way at once, across every caller; the others wait their turn (the deadline of a request starts
   *  when its turn comes). Default 16, Mailroom's delivery concurrency. */
  readonly maxInFlight?: number
}

/** Runs at most `permits` tasks at once, the others in the order they came. Plain callbacks: a webhook POST is the hot
 *  path of delivery, and a turn costs no fiber. */
const makeTurns = (permits: number) => {
  let free = permits
  const waiting = new Set<() => void>()
  return {
    /** Calls `start` now or when a turn frees; answers how to give up the wait (a no-op once started). */
    take: (start: () => void): (() => void) => {
      if (free > 0) {
        free--
        start()
        return () => undefined
      }
      waiting.add(start)
      return () => { waiting.delete(start) }
    },
    /** Ends a turn: the first waiting task starts in it. */
    give: () => {
      const next = waiting.values().next()
      if (next.done === true) {
        free++
        return
      }
      waiting.delete(next.value)
      next.value()
    },
  }
}

const decoder = new TextDecoder("utf-8", { fatal: false })

/** Answers whose body is empty by definition or by its declared length: nothing to read. */
const emptyBody = (status: number, headers: Record<string, string | Array<string> | undefined>) =>
  status === 204 || status === 304 || headers["content-length"] === "0"


/** A lookup that answers `address` whatever it is asked. */
const pinnedLookup = (address: string): LookupFunction => {
  const family = isIP(address)
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: Array<unknown>) => void) => {
    if (options?.all) callback(null, [{ address, family }])
    else callback(null, address, family)
  }) as unknown as LookupFunction
}

const codeOf = (cause: unknown): string | undefined => {
  let current: unknown = cause
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    if ("code" in current && typeof current.code === "string") return current.code
    current = "cause" in current ? current.cause : undefined
  }
  return undefined
}

const classify = (cause: unknown, timedOut: boolean, durationMs: number): HttpTransportError => {
  const code = codeOf(cause)
  const detail = cause instanceof Error ? cause.message : String(cause)
  if (timedOut || cause instanceof errors.HeadersTimeoutError || cause instanceof errors.BodyTimeoutError ||
    cause instanceof errors.ConnectTimeoutError || code === "UND_ERR_CONNECT_TIMEOUT") {
    return new HttpTransportError({ reason: "timeout", detail: "no answer within the delivery deadline", durationMs })
  }
  if (code === "ECONNREFUSED") return new HttpTransportError({ reason: "refused", detail: `connection refused (${detail})`, durationMs })
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE") {
    return new HttpTransportError({ reason: "reset", detail: `connection reset (${detail})`, durationMs })
  }
  if (code !== undefined && (code.startsWith("ERR_TLS") || code.includes("CERT") || code.startsWith("ERR_SSL") ||
    code === "DEPTH_ZERO_SELF_SIGNED_CERT" || code === "UNABLE_TO_VERIFY_LEAF_SIGNATURE")) {
    return new HttpTransportError({ reason: "tls", detail: `TLS failed (${code}: ${detail})`, durationMs })
  }
  return new HttpTransportError({ reason: "other", detail: code === undefined ? detail : `${code}: ${detail}`, durationMs })
}

export const makeUndiciTransport = (options: UndiciTransportOptions = {}) => {
  const maxAgents = options.maxAgents ?? 256
  const turns = makeTurns(Math.max(1, Math.floor(options.maxInFlight ?? 16)))
  const agents = new Map<string, Agent>()
  const ca = options.ca === undefined ? undefined : [...(typeof options.ca === "string" ? [options.ca] : options.ca)]

  const agentFor = (url: URL, address: string): Agent => {
    const key = `${url.origin}|${address}`
    const existing = agents.get(key)
    if (existing !== undefined) {
      // Most recently used last, so that the oldest goes first when the map is full.
      agents.delete(key)
      agents.set(key, existing)
      return existing
    }
    if (agents.size >= maxAgents) {
      const [oldestKey, oldest] = agents.entries().next().value as [string, Agent]
      agents.delete(oldestKey)
      void oldest.close().catch(() => undefined)
    }
    const agent = new Agent({
      connect: {
        lookup: pinnedLookup(address),
        ...(ca === undefined ? {} : { ca: [...rootCertificates, ...ca] }),
      },
      keepAliveTimeout: 4_000,
      connections: 32,
    })
    agents.set(key, agent)
    return agent
  }

  /** Reads at most `max` bytes of the body; leaving early destroys the stream, so the rest of a huge answer is never
   *  read (its connection closes). */
  const readSnippet = (body: Dispatcher.ResponseData["body"], max: number) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Array<Buffer> = []
      let size = 0
      let finished = false
      const done = () => {
        if (finished) return
        finished = true
        body.off("data", onData)
        resolve(decoder.decode(Buffer.concat(chunks, size)).replace(/\uFFFD$/, ""))
      }
      const onData = (chunk: Buffer) => {
        const room = max - size
        chunks.push(chunk.byteLength > room ? chunk.subarray(0, room) : chunk)
        size += Math.min(chunk.byteLength, room)
        if (size >= max) {
          body.destroy()
          done()
        }
      }
      body.on("data", onData)
      body.once("end", done)
      body.once("error", reject)
    })

  const post = (input: PinnedPost) =>
    Effect.async<{ status: number; snippet: string; durationMs: number }, HttpTransportError>((resume) => {
      // One controller for the deadline and for an interruption of the fiber (no AbortSignal.any per request).
      const abort = new AbortController()
      let deadline: ReturnType<typeof setTimeout> | undefined
      const leave = turns.take(() => {
        const started = performance.now()
        let timedOut = false
        deadline = setTimeout(() => {
          timedOut = true
          abort.abort()
        }, input.timeoutMs)
        const elapsed = () => Math.round(performance.now() - started)
        const run = async () => {
          const answer = await request(input.url, {
            method: "POST",
            headers: { ...input.headers, host: input.url.host },
            body: input.body,
            dispatcher: agentFor(input.url, input.address),
            signal: abort.signal,
            headersTimeout: input.timeoutMs,
            bodyTimeout: input.timeoutMs,
          })
          if (emptyBody(answer.statusCode, answer.headers)) {
            await answer.body.dump()
            return { status: answer.statusCode, snippet: "", durationMs: elapsed() }
          }
          const snippet = await readSnippet(answer.body, input.maxResponseBytes)
          return { status: answer.statusCode, snippet, durationMs: elapsed() }
        }
        run().then(
          (answer) => {
            clearTimeout(deadline)
            turns.give()
            resume(Effect.succeed(answer))
          },
          (cause: unknown) => {
            clearTimeout(deadline)
            turns.give()
            resume(Effect.fail(classify(cause, timedOut, elapsed())))
          },
        )
      })
      return Effect.sync(() => {
        leave()
        clearTimeout(deadline)
        abort.abort()
      })
    })

  const close = Effect.promise(() => Promise.all([...agents.values()].map((agent) => agent.close().catch(() => undefined))))

  return { service: { post } satisfies HttpTransportService, close }
}

export const UndiciTransport = {
  /** The transport, with its pinned agents closed when the layer's scope closes. */
  layer: (options: UndiciTransportOptions = {}): Layer.Layer<HttpTransport> =>
    Layer.scoped(HttpTransport, Effect.acquireRelease(
      Effect.sync(() => makeUndiciTransport(options)),
      (transport) => transport.close,
    ).pipe(Effect.map((transport) => transport.service))),
} as const
