/** The HttpTransport port over undici. Each request goes through an Agent whose connect.lookup answers only the
 *  address Mailroom checked, so the host is never resolved a second time between the check and the connect (DNS
 *  rebinding). TLS is verified against the URL's host name. Redirects are never followed, and at most a bounded
 *  snippet of the answer is read. At most `maxInFlight` requests are under way at once, whoever makes them; the others
 *  wait their turn, in order. */
import {
  HttpTransport, HttpTransportError, type HttpTransportService, type PinnedPost, type PostAnswer, type PostOutcome,
} from "@mailroom/core"
import { Effect, Either, Layer } from "effect"
import type { EventEmitter } from "node:events"
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

/** The deadline and the abandonment of one request, as the EventEmitter-like signal that undici's request accepts
 *  (`on`, `addListener`, `removeListener`, `aborted`, `reason`): a request's only listener is undici's own, and an
 *  AbortController with its EventTarget costs several times more per request. */
class DeadlineSignal {
  aborted = false
  reason: unknown = undefined
  private listener: (() => void) | undefined = undefined
  on(_event: "abort", listener: () => void) {
    return this.addListener(_event, listener)
  }
  addListener(_event: "abort", listener: () => void) {
    this.listener = listener
    return this
  }
  removeListener(_event: "abort", listener: () => void) {
    if (this.listener === listener) this.listener = undefined
    return this
  }
  abort() {
    if (this.aborted) return
    this.aborted = true
    const listener = this.listener
    this.listener = undefined
    listener?.()
  }
}

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
  const maxInFlight = Math.max(1, Math.floor(options.maxInFlight ?? 16))
  const turns = makeTurns(maxInFlight)
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
      // No more connections than requests can be under way: with more, undici spreads the same requests over more
      // sockets (measured about 8% slower against one receiver).
      connections: maxInFlight,
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

  /** Makes one request when its turn comes and calls `done` once with its outcome (never synchronously); answers how
   *  to abandon it (no call of `done` after that). */
  const start = (input: PinnedPost, done: (outcome: PostOutcome) => void): (() => void) => {
    const signal = new DeadlineSignal()
    let deadline: ReturnType<typeof setTimeout> | undefined
    let abandoned = false
    const leave = turns.take(() => {
      const started = performance.now()
      deadline = setTimeout(() => signal.abort(), input.timeoutMs)
      const elapsed = () => Math.round(performance.now() - started)
      const run = async (): Promise<PostAnswer> => {
        const answer = await request(input.url, {
          method: "POST",
          headers: input.headers,
          body: input.body,
          dispatcher: agentFor(input.url, input.address),
          signal: signal as unknown as EventEmitter,
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
          if (!abandoned) done(Either.right(answer))
        },
        (cause: unknown) => {
          clearTimeout(deadline)
          turns.give()
          if (!abandoned) done(Either.left(classify(cause, signal.aborted, elapsed())))
        },
      )
    })
    return () => {
      abandoned = true
      leave()
      clearTimeout(deadline)
      signal.abort()
    }
  }

  const post = (input: PinnedPost) =>
    Effect.async<PostAnswer, HttpTransportError>((resume) => {
      const abandon = start(input, (outcome) => resume(outcome))
      return Effect.sync(abandon)
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
