/** The HttpTransport port: one webhook POST to an address that Mailroom has already checked. Engine: undici with a
 *  dispatcher pinned to that address (@mailroom/net). */
import { Context, Effect, type Either, Schema } from "effect"

export interface PinnedPost {
  /** The endpoint's URL: its host is sent as Host and as the TLS server name, its path and query are requested. */
  readonly url: URL
  /** The address to connect to, already checked against the URL rules. The transport never resolves the host itself. */
  readonly address: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** The whole exchange (connect, TLS, request, answer) must finish within this time. */
  readonly timeoutMs: number
  /** Bytes of the answer's body kept as the snippet; the rest is not read. */
  readonly maxResponseBytes: number
}

export interface PostAnswer {
  readonly status: number
  /** The start of the answer's body, decoded as UTF-8, at most `maxResponseBytes`. */
  readonly snippet: string
  readonly durationMs: number
}

/** No answer: the deadline passed, the connection was refused or reset, TLS failed. Redirects are answers (3xx), not
 *  errors, and are never followed. */
export class HttpTransportError extends Schema.TaggedError<HttpTransportError>()("HttpTransportError", {
  reason: Schema.Literal("timeout", "refused", "reset", "tls", "other"),
  detail: Schema.String,
  durationMs: Schema.Number,
}) {
  override get message() { return this.detail }
}

/** What became of one POST: the answer, or why there was none. */
export type PostOutcome = Either.Either<PostAnswer, HttpTransportError>

export interface HttpTransportService {
  readonly post: (request: PinnedPost) => Effect.Effect<PostAnswer, HttpTransportError>
}

/** Until a host provides an engine (the facade provides @mailroom/net's UndiciTransport), every POST fails saying so. */
export class HttpTransport extends Context.Reference<HttpTransport>()("@mailroom/core/HttpTransport", {
  defaultValue: (): HttpTransportService => ({
    post: () => Effect.fail(new HttpTransportError({ reason: "other", detail: "no HTTP transport is configured", durationMs: 0 })),
  }),
}) {}
