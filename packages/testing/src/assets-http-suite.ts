/** Image assets over HTTP (docs/templates.md, "Image assets"), with real images made by sharp: upload, what the
 *  decoded image decides (lies about the type, truncated files, decompression bombs, other formats, too large), the
 *  processing (WebP to PNG or JPEG, at most 1,200 px wide, EXIF orientation applied, metadata stripped), the immutable
 *  URL and its headers, list, delete (the URL keeps serving), scopes, plan and application credentials, and a design
 *  that shows an uploaded logo. Each backend runs it through the facade (packages/mailroom/test/gallery-http.test.ts). */
import sharp from "sharp"
import { crc32, deflateSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectError, type HttpTarget, makeClient } from "./http-suite/client.js"

const image = (width: number, height: number, alpha = true) =>
  sharp({ create: { width, height, channels: alpha ? 4 : 3, background: { r: 36, g: 84, b: 214, alpha: alpha ? 0.5 : 1 } } })

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64")

/** A PNG chunk: length, type, data, CRC. */
const chunk = (type: string, data: Buffer) => {
  const head = Buffer.alloc(4)
  head.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, "ascii"), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([head, body, crc])
}

/** A decompression bomb: a valid PNG header for 50,000 × 50,000 grey pixels (2.5 gigapixels) whose data, a few KiB of
 *  zlib, would inflate to gigabytes. */
const bombPng = () => {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(50_000, 0)
  ihdr.writeUInt32BE(50_000, 4)
  ihdr.set([8, 0, 0, 0, 0], 8)
  const rows = deflateSync(Buffer.alloc(50_001 * 64), { level: 9 })
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), chunk("IDAT", rows), chunk("IEND", Buffer.alloc(0))])
}

export const assetsHttpSuite = (name: string, makeTarget: () => Promise<HttpTarget>) =>
  describe(`image assets over HTTP (${name})`, () => {
    let target: HttpTarget | undefined
    beforeAll(async () => { target = await makeTarget() })
    afterAll(async () => { await target?.close() })
    const client = makeClient(() => target!)
    const upload = (key: string, data: Uint8Array | string, extra: Record<string, unknown> = {}) =>
      client.call("POST", "/v1/designs/assets", { key, body: { data: typeof data === "string" ? data : b64(data), ...extra } })
    /** GET of an asset URL, as a mailbox would fetch it: no API key. */
    const fetchUrl = async (url: string, headers: Record<string, string> = {}) => {
      const response = await target!.fetch(new Request(url, { headers }))
      return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) }
    }

    it("a WebP logo is served as PNG at its immutable URL, named by its hash, with a year's immutable Cache-Control and an ETag", async () => {
      const { key } = await client.account({ plan: "pro" })
      const webp = await image(300, 120).webp().toBuffer()
      const answer = await upload(key, webp, { name: "logo.webp", contentType: "image/webp" })
      expect(answer.status, answer.text).toBe(201)
      const asset = answer.json.data
      expect(asset).toMatchObject({ name: "logo.webp", contentType: "image/png", width: 300, height: 120, converted: true })
      expect(asset.url).toMatch(new RegExp(`/assets/${asset.hash}\\.png$`))
      const served = await fetchUrl(asset.url)
      expect(served.status).toBe(200)
      expect(served.headers.get("content-type")).toBe("image/png")
      expect(served.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      expect(served.headers.get("etag")).toBe(`"${asset.hash}"`)
      expect((await sharp(served.bytes).metadata()).format).toBe("png")
      expect(served.bytes.length).toBe(asset.size)
      expect((await fetchUrl(asset.url, { "if-none-match": `"${asset.hash}"` })).status).toBe(304)
      // An opaque WebP photo becomes a JPEG.
      const photo = await upload(key, await image(200, 100, false).webp().toBuffer())
      expect(photo.json.data.contentType).toBe("image/jpeg")
      expect((await sharp((await fetchUrl(photo.json.data.url)).bytes).metadata()).format).toBe("jpeg")
      // The URL of the wrong extension, or of an unknown hash, answers 404.
      expect((await fetchUrl(asset.url.replace(/\.png$/, ".jpg"))).status).toBe(404)
      expect((await fetchUrl(asset.url.replace(/[0-9a-f]{64}/, "0".repeat(64)))).status).toBe(404)
    })

    it("resizes to at most 1,200 px wide, applies the EXIF orientation and strips metadata", async () => {
      const { key } = await client.account({ plan: "pro" })
      const wide = await upload(key, await image(2400, 600, false).png().toBuffer())
      expect(wide.status, wide.text).toBe(201)
      expect(wide.json.data).toMatchObject({ width: 1200, height: 300, contentType: "image/png" })
      const rotated = await image(200, 100, false).jpeg().withMetadata({ orientation: 6 }).toBuffer()
      expect((await sharp(rotated).metadata()).orientation).toBe(6)
      const turned = await upload(key, rotated, { contentType: "image/jpeg" })
      expect(turned.json.data).toMatchObject({ width: 100, height: 200, contentType: "image/jpeg" })
      const stored = await sharp((await fetchUrl(turned.json.data.url)).bytes).metadata()
      expect(stored.orientation).toBeUndefined()
      expect(stored.exif).toBeUndefined()
      expect([stored.width, stored.height]).toEqual([100, 200])
    })

    it("refuses lies about the type, other formats, truncated files and decompression bombs with 400; too large with 413; nothing is stored", async () => {
      const { key } = await client.account({ plan: "pro" })
      const png = await image(64, 64).png().toBuffer()
      const lie = await upload(key, png, { contentType: "image/jpeg" })
      expectError(lie, 400, "VALIDATION_ERROR", "contentType")
      expect(lie.json.error.message).toMatch(/PNG/)
      const gif = await image(64, 64).gif().toBuffer()
      const disguised = await upload(key, gif, { contentType: "image/png", name: "logo.png" })
      expectError(disguised, 400, "VALIDATION_ERROR", "data")
      expect(disguised.json.error.message).toMatch(/GIF/)
      expectError(await upload(key, Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>")), 400, "VALIDATION_ERROR", "data")
      expectError(await upload(key, "not base64 at all!"), 400, "VALIDATION_ERROR", "data")
      const photo = await sharp({ create: { width: 400, height: 300, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 40 } } }).jpeg().toBuffer()
      const truncated = await upload(key, photo.subarray(0, Math.floor(photo.length / 2)), { contentType: "image/jpeg" })
      expectError(truncated, 400, "VALIDATION_ERROR", "data")
      expect(truncated.json.error.message).toMatch(/truncated or damaged/)
      const bomb = await upload(key, bombPng())
      expectError(bomb, 400, "VALIDATION_ERROR", "data")
      expect(bomb.json.error.message).toMatch(/more than 40000000 pixels/)
      const noise = await sharp({ create: { width: 600, height: 450, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 60 } } }).png().toBuffer()
      expect(noise.length).toBeGreaterThan(700 * 1024)
      const large = await upload(key, noise)
      expectError(large, 413, "PAYLOAD_TOO_LARGE")
      expect(large.json.error.message).toContain(String(700 * 1024))
      expect((await client.call("GET", "/v1/designs/assets", { key })).json.data).toEqual([])
    })

    it("lists newest first with a cursor; the same image twice is one asset; DELETE hides it and its URL keeps serving", async () => {
      const { key } = await client.account({ plan: "pro" })
      const first = (await upload(key, await image(40, 40).png().toBuffer(), { name: "a" })).json.data
      const second = (await upload(key, await image(50, 40).png().toBuffer(), { name: "b" })).json.data
      const again = await upload(key, await image(40, 40).png().toBuffer(), { name: "a again" })
      expect(again.json.data.id).toBe(first.id)
      const page = await client.call("GET", "/v1/designs/assets?limit=1", { key })
      expect(page.json.data.map((a: any) => a.id)).toEqual([second.id])
      expect(page.json.pagination.hasMore).toBe(true)
      const next = await client.call("GET", `/v1/designs/assets?limit=1&cursor=${page.json.pagination.nextCursor}`, { key })
      expect(next.json.data.map((a: any) => a.id)).toEqual([first.id])
      expect((await client.call("GET", `/v1/designs/assets/${first.id}`, { key })).json.data.url).toBe(first.url)
      const deleted = await client.call("DELETE", `/v1/designs/assets/${first.id}`, { key })
      expect(deleted.json.data).toEqual({ id: first.id, deleted: true })
      expect((await client.call("GET", "/v1/designs/assets", { key })).json.data.map((a: any) => a.id)).toEqual([second.id])
      expectError(await client.call("GET", `/v1/designs/assets/${first.id}`, { key }), 404, "RESOURCE_NOT_FOUND")
      expectError(await client.call("DELETE", `/v1/designs/assets/${first.id}`, { key }), 404, "RESOURCE_NOT_FOUND")
      // Mail already sent keeps its image.
      expect((await fetchUrl(first.url)).status).toBe(200)
      const other = await client.account({ plan: "pro" })
      expectError(await client.call("DELETE", `/v1/designs/assets/${second.id}`, { key: other.key }), 404, "RESOURCE_NOT_FOUND")
    })

    it("same rules as the designs routes: Micro plan, templates:read and templates:write, an application credential reaches its own assets", async () => {
      const starter = await client.account({ plan: "starter" })
      expectError(await upload(starter.key, await image(10, 10).png().toBuffer()), 403, "PLAN_UPGRADE_REQUIRED")
      expectError(await client.call("GET", "/v1/designs/assets", { key: starter.key }), 403, "PLAN_UPGRADE_REQUIRED")
      const account = await client.account({ plan: "pro" })
      const reader = await client.key(account.id, ["templates:read"])
      expectError(await upload(reader.key, await image(10, 10).png().toBuffer()), 403, "SCOPE_INSUFFICIENT")
      expect((await client.call("GET", "/v1/designs/assets", { key: reader.key })).status).toBe(200)
      const own = (await upload(account.key, await image(12, 12).png().toBuffer())).json.data
      const issued = await client.call("POST", `/admin/accounts/${account.id}/app-credentials`, {
        key: "test-admin-token", body: { applicationKey: "shop", allowedSenders: ["shop@example.com"] },
      })
      const app = issued.json.key as string
      const shop = await upload(app, await image(14, 14).png().toBuffer())
      expect(shop.json.data.applicationKey).toBe("shop")
      expect((await client.call("GET", "/v1/designs/assets", { key: app })).json.data.map((a: any) => a.id)).toEqual([shop.json.data.id])
      expectError(await client.call("GET", `/v1/designs/assets/${own.id}`, { key: app }), 404, "RESOURCE_NOT_FOUND")
      expectError(await upload(app, await image(16, 16).png().toBuffer(), { applicationKey: "blog" }), 400, "VALIDATION_ERROR", "applicationKey")
    })

    it("a design showing an uploaded WebP logo renders and sends with the asset's PNG URL", async () => {
      const { key } = await client.account({ plan: "pro" })
      const logo = (await upload(key, await image(240, 80).webp().toBuffer(), { contentType: "image/webp" })).json.data
      const created = await client.call("POST", "/v1/designs", {
        key, body: {
          key: "with-logo", draft: {
            name: "With logo", subject: "Hello {{first_name}}",
            blocks: [{ type: "image", src: logo.url, alt: "Acme", width: 120 }, { type: "text", text: "Hi {{first_name}}" }],
          },
        },
      })
      expect(created.status, created.text).toBe(201)
      expect(created.json.data.draft.format).toBe("mjml")
      await client.call("POST", `/v1/designs/${created.json.data.id}/publish`, { key, body: { expectedRevision: 1 } })
      const live = await client.call("POST", `/v1/designs/${created.json.data.id}/preview`, { key, body: { source: "live", variables: { first_name: "Ada" } } })
      expect(live.json.data.html).toContain(`src="${logo.url}"`)
      expect(live.json.data.html).toContain('alt="Acme"')
      const sent = await client.call("POST", "/v1/emails/send", {
        key, body: { from: { email: "hello@example.com" }, to: [{ email: "ada@example.org" }], content: { templateId: created.json.data.id }, variables: { first_name: "Ada" } },
      })
      expect(sent.status, sent.text).toBe(200)
      expect(logo.url).toMatch(/\.png$/)
      expect((await fetchUrl(logo.url)).headers.get("content-type")).toBe("image/png")
    })
  })
