/** Reading a request body under a size limit: refused up front on Content-Length, and again while streaming, so a
 *  missing or understated Content-Length cannot get a larger body through. */
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
        if (declared !== undefined) return new Uint8Array(await request.arrayBuffer())
        return request.body === null ? new Uint8Array(0) : readAtMost(request.body, limitBytes)
      },
      catch: () => new ValidationFailed({ detail: "the request body could not be read" }),
    }),
    // Node's HTTP parser never delivers more than the declared length; a Request built in process may, and is refused.
    (bytes) => bytes === undefined || bytes.length > limitBytes ? Effect.fail(new PayloadTooLarge({ limitBytes })) : Effect.succeed(bytes),
  )
}
