/** Image assets of the designs API (docs/templates.md, "Image assets"): logos and pictures uploaded base64-encoded,
 *  decoded to learn what they really are, made fit for email (at most 1,200 px wide, EXIF orientation applied,
 *  metadata stripped, WebP converted), and served from an immutable URL named by a hash of their content. Spec:
 *  "Designs (template API)" (assets) and "Limits" (logo asset: PNG, JPEG, WebP, up to 700 KiB). */
import { Schema } from "effect"
import type { AccountId } from "./account.js"

export const assetLimits = {
  /** The uploaded image, decoded from base64. */
  bytes: 700 * 1024,
  /** For a 600 px layout at 2x. */
  width: 1200,
  /** Decoded pixels an upload may hold: more is a decompression bomb, refused before it is decoded. */
  pixels: 40_000_000,
  nameLength: 255,
  pageSize: 25,
  maxPageSize: 100,
} as const

/** What an upload may be (as decoded), and what is stored and served: WebP becomes PNG, or JPEG for a photo without
 *  transparency, since Outlook on Windows shows no WebP. */
export const uploadFormats = ["png", "jpeg", "webp"] as const
export type UploadFormat = (typeof uploadFormats)[number]
export type StoredFormat = "png" | "jpeg"
export const contentTypes: Record<StoredFormat, string> = { png: "image/png", jpeg: "image/jpeg" }
export const extensions: Record<StoredFormat, string> = { png: "png", jpeg: "jpg" }

export const AssetId = Schema.String.pipe(Schema.brand("AssetId"))
export type AssetId = typeof AssetId.Type

export interface Asset {
  readonly id: AssetId
  readonly accountId: AccountId
  /** `account` for the account's own assets, or the application key of the credential that uploaded it. */
  readonly applicationKey: string
  readonly name: string | null
  /** SHA-256 of the stored bytes, hex: names the asset's URL and its ETag. */
  readonly hash: string
  readonly format: StoredFormat
  readonly width: number
  readonly height: number
  /** Bytes stored (after processing). */
  readonly size: number
  readonly createdAt: Date
  /** Set by DELETE: the asset leaves the list, and its URL keeps serving, since mail already sent shows it. */
  readonly deletedAt: Date | null
}

/** POST /designs/assets. `contentType` is what the client says the image is; the decoded image decides. */
export const UploadAssetInput = Schema.Struct({
  data: Schema.String.pipe(Schema.minLength(1, { message: () => "data is the image, base64-encoded" })),
  name: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(assetLimits.nameLength))),
  contentType: Schema.optional(Schema.String.pipe(Schema.maxLength(100))),
  applicationKey: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128))),
})
export type UploadAssetInput = typeof UploadAssetInput.Type

const base64 = /^[A-Za-z0-9+/]*={0,2}$/

/** The bytes of a base64 string (a data: URL's prefix and whitespace allowed), or undefined when it is not base64. */
export const decodeBase64 = (data: string): Uint8Array | undefined => {
  const stripped = data.replace(/^data:[^,]*;base64,/, "").replace(/\s+/g, "")
  if (stripped.length % 4 === 1 || !base64.test(stripped)) return undefined
  return Uint8Array.from(Buffer.from(stripped, "base64"))
}

/** The file name of an asset in its URL: its hash and its extension. */
export const assetFileName = (asset: Pick<Asset, "hash" | "format">): string => `${asset.hash}.${extensions[asset.format]}`

/** The immutable URL of an asset under APP_URL. */
export const assetUrl = (appUrl: string, asset: Pick<Asset, "hash" | "format">): string =>
  `${appUrl.replace(/\/+$/, "")}/assets/${assetFileName(asset)}`

/** The parts of an asset file name (`<64 hex>.png|jpg`), or undefined. */
export const parseAssetFileName = (file: string): { readonly hash: string; readonly format: StoredFormat } | undefined => {
  const match = /^([0-9a-f]{64})\.(png|jpg)$/.exec(file)
  return match === null ? undefined : { hash: match[1]!, format: match[2] === "png" ? "png" : "jpeg" }
}

/** The Cache-Control of an asset: its URL names its content, so it never changes. */
export const immutableCacheControl = "public, max-age=31536000, immutable"
