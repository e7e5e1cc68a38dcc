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

/** The whole body as bytes, or PayloadTooLarge when it (or its declared length) exceeds `limitBytes`. */
export const readBody = (request: Request, limitBytes: number): Effect.Effect<Uint8Array, PayloadTooLarge | ValidationFailed> =>
  Effect.gen(function* () {
    const declared = declaredLength(request)
    if (declared !== undefined && declared > limitBytes) return yield* new PayloadTooLarge({ limitBytes })
    if (request.body === null) return new Uint8Array(0)
    const stream = request.body
    const bytes = yield* Effect.tryPromise({
      try: () => readAtMost(stream, limitBytes),
      catch: () => new ValidationFailed({ detail: "the request body could not be read" }),
    })
    if (bytes === undefined) return yield* new PayloadTooLarge({ limitBytes })
    return bytes
  })
