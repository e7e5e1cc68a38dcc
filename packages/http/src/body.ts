/** Reading a request body under a size limit: refused up front on Content-Length, and again while streaming, so a
 *  missing or understated Content-Length cannot get a larger body through. And settling a body that an answer left
 *  unread (413, 401, 404, 429 …), so that a client keeping its connection alive never finds a half-read socket. */
import { PayloadTooLarge, ValidationFailed } from "@mailroom/core"
import { Effect } from "effect"

/** Default JSON body limit: 8 MiB (sending spec, "Limits"). */
export const defaultBodyLimitBytes = 8 * 1024 * 1024

const declaredLength = (request: Request): number | undefined => {
  const header = request.headers.get("content-length")
  if (header === null || !/^\d+$/.test(header.trim())) return undefined
  return Number(header)
}

const concat = (chunks: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  const out = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.length
  }
  return out
}

/** Bodies this route read to their end, and bodies it gave up on part way (its limit passed): a cancelled stream
 *  reads as ended, yet the rest of that body still waits on the connection. */
const bodyStates = new WeakMap<Request, "read" | "abandoned">()

/** Reads at most `limitBytes` from the stream; cancels it and answers undefined as soon as it holds more. */
const readAtMost = async (stream: ReadableStream<Uint8Array>, limitBytes: number): Promise<Uint8Array | undefined> => {
  const reader = stream.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return concat(chunks, size)
    size += value.length
    if (size > limitBytes) {
      await reader.cancel().catch(() => undefined)
      return undefined
    }
    chunks.push(value)
  }
}

/** The whole body as bytes, or PayloadTooLarge when it (or its declared length) exceeds `limitBytes`. With a declared
 *  length the body is read in one piece (the HTTP parser delivers exactly that many bytes); without one it is streamed
 *  and cut off at the limit. */
export const readBody = (request: Request, limitBytes: number): Effect.Effect<Uint8Array, PayloadTooLarge | ValidationFailed> => {
  const declared = declaredLength(request)
  if (declared !== undefined && declared > limitBytes) return Effect.fail(new PayloadTooLarge({ limitBytes }))
  if (declared === 0) return Effect.succeed(new Uint8Array(0))
  return Effect.flatMap(
    Effect.tryPromise({
      try: async () => {
        if (declared !== undefined) {
          const bytes = new Uint8Array(await request.arrayBuffer())
          bodyStates.set(request, "read")
          return bytes
        }
        if (request.body === null) return new Uint8Array(0)
        const bytes = await readAtMost(request.body, limitBytes)
        bodyStates.set(request, bytes === undefined ? "abandoned" : "read")
        return bytes
      },
      catch: () => new ValidationFailed({ detail: "the request body could not be read" }),
    }),
    // Node's HTTP parser never delivers more than the declared length; a Request built in process may, and is refused.
    (bytes) => bytes === undefined || bytes.length > limitBytes ? Effect.fail(new PayloadTooLarge({ limitBytes })) : Effect.succeed(bytes),
  )
}

/** How much of an unread body is read and discarded after an early answer so that the connection can serve the next
 *  request (Go's net/http reads the same amount). Past it, the answer closes the connection instead. */
export const drainLimitBytes = 256 * 1024

const hasNoBody = (request: Request): boolean => {
  if (request.method === "GET" || request.method === "HEAD") return true
  const length = request.headers.get("content-length")
  return length !== null ? length.trim() === "0" : request.headers.get("transfer-encoding") === null && request.body === null
}

/** Reads and discards what is left of the stream, up to `limitBytes`; true when it ended within them. */
const discard = async (stream: ReadableStream<Uint8Array>, limitBytes: number): Promise<boolean> => {
  let reader: ReadableStreamDefaultReader<Uint8Array>
  try {
    reader = stream.getReader()
  } catch {
    // Someone else holds the stream: whether it will be read to its end cannot be known.
    return false
  }
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return true
      size += value.byteLength
      if (size > limitBytes) break
    }
  } catch {
    return false
  }
  await reader.cancel().catch(() => undefined)
  return false
}

/**
 * Called once the answer is known: whether the connection can carry the client's next request. A body the route read
 * whole leaves nothing behind; one it did not read is read and discarded here when it is at most `drainLimitBytes`
 * (so a 401 or 404 to a small POST keeps the connection); a larger one, or one given up on part way (a streamed
 * body past its limit), answers false: the answer must then carry `Connection: close`, and the server closes the
 * connection after it instead of parsing the rest of the body as the next request.
 */
export const settleBody = async (request: Request): Promise<boolean> => {
  const state = bodyStates.get(request)
  if (state !== undefined) return state === "read"
  if (hasNoBody(request)) return true
  const declared = declaredLength(request)
  if (declared !== undefined && declared > drainLimitBytes) return false
  const body = request.body
  return body === null ? true : discard(body, drainLimitBytes)
}
