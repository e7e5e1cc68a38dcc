/** The ImageProcessor port: decodes an uploaded image to learn what it really is, and makes it fit for email. The
 *  facade provides sharp's (@mailroom/templates, imageProcessorLayer). */
import { Context, type Effect, Schema } from "effect"
import type { StoredFormat, UploadFormat } from "../domain/asset.js"

/** Why an image was refused: not an image of an allowed format (`unsupported`, with what it is when known), a file
 *  that does not decode whole (`corrupt`, truncated ones among them), or more pixels than allowed (`too-many-pixels`). */
export class ImageRejected extends Schema.TaggedError<ImageRejected>()("ImageRejected", {
  reason: Schema.Literal("unsupported", "corrupt", "too-many-pixels"),
  detail: Schema.String,
}) {}

export interface ProcessedImage {
  readonly input: UploadFormat
  readonly format: StoredFormat
  readonly bytes: Uint8Array
  readonly width: number
  readonly height: number
}

export interface ImageProcessorService {
  /** Decodes `bytes` (refusing formats other than PNG, JPEG and WebP, truncated files, and images of more than
   *  `maxPixels`), applies the EXIF orientation, resizes to at most `maxWidth` wide, strips metadata, and writes PNG
   *  (or JPEG for a JPEG, or an opaque WebP photo). */
  readonly process: (
    bytes: Uint8Array,
    limits: { readonly maxWidth: number; readonly maxPixels: number },
  ) => Effect.Effect<ProcessedImage, ImageRejected>
}

export class ImageProcessor extends Context.Tag("@mailroom/core/ImageProcessor")<ImageProcessor, ImageProcessorService>() {}
