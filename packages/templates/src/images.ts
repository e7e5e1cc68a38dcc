/** The ImageProcessor of core, with sharp (libvips): the decoded image, not the declared type, decides what an upload
 *  is. Refused: formats other than PNG, JPEG and WebP; more pixels than allowed (checked from the header before any
 *  decoding, and by sharp's limitInputPixels while decoding); files that do not decode whole (failOn "warning":
 *  truncated ones among them). Kept: the EXIF orientation applied, at most `maxWidth` wide, no metadata (sharp writes
 *  none unless asked). Written: PNG stays PNG and JPEG stays JPEG; WebP becomes PNG when it has transparency and JPEG
 *  when it has none. */
import { ImageProcessor, ImageRejected, type ImageProcessorService, type UploadFormat } from "@mailroom/core"
import { Effect, Layer } from "effect"
import sharp from "sharp"

const allowed: ReadonlyArray<string> = ["png", "jpeg", "webp"]

const message = (error: unknown) => String(error instanceof Error ? error.message : error).split("\n")[0]!

export const sharpImageProcessor: ImageProcessorService = {
  process: (bytes, limits) =>
    Effect.gen(function* () {
      const options = { limitInputPixels: limits.maxPixels, failOn: "warning" as const }
      const metadata = yield* Effect.tryPromise({
        try: () => sharp(bytes, options).metadata(),
        catch: (error) => /pixel limit/i.test(message(error))
          ? new ImageRejected({ reason: "too-many-pixels", detail: `has more than ${limits.maxPixels} pixels; send a smaller image` })
          : new ImageRejected({ reason: "unsupported", detail: "is not a PNG, JPEG or WebP image" }),
      })
      const format = metadata.format
      if (format === undefined || !allowed.includes(format)) {
        return yield* Effect.fail(new ImageRejected({
          reason: "unsupported", detail: `is ${format === undefined ? "not an image" : `a ${format.toUpperCase()} image`}; send a PNG, JPEG or WebP image`,
        }))
      }
      const width = metadata.width ?? 0
      const height = metadata.height ?? 0
      if (width * height > limits.maxPixels) {
        return yield* Effect.fail(new ImageRejected({
          reason: "too-many-pixels", detail: `is ${width}×${height} pixels, more than ${limits.maxPixels}; send a smaller image`,
        }))
      }
      const input = format as UploadFormat
      const output = input === "png" || (input === "webp" && metadata.hasAlpha === true) ? "png" : "jpeg"
      const pipeline = sharp(bytes, options).rotate().resize({ width: limits.maxWidth, withoutEnlargement: true })
      const written = yield* Effect.tryPromise({
        try: () => (output === "png" ? pipeline.png({ compressionLevel: 9 }) : pipeline.jpeg({ quality: 85, mozjpeg: true }))
          .toBuffer({ resolveWithObject: true }),
        catch: (error) => /pixel limit/i.test(message(error))
          ? new ImageRejected({ reason: "too-many-pixels", detail: `has more than ${limits.maxPixels} pixels; send a smaller image` })
          : new ImageRejected({ reason: "corrupt", detail: `does not decode as a whole ${input.toUpperCase()} image (truncated or damaged): ${message(error)}` }),
      })
      return { input, format: output, bytes: Uint8Array.from(written.data), width: written.info.width, height: written.info.height } as const
    }),
}

export const imageProcessorLayer = Layer.succeed(ImageProcessor, sharpImageProcessor)
