/** GET /assets/<hash>.png|jpg: the bytes of an image asset, without an API key (mail shows them to anyone). The URL
 *  names the content, so the answer never changes: cached for a year as immutable, with the hash as its ETag; a
 *  request that already has it (If-None-Match) gets 304. Unknown files answer a plain 404. */
import { Assets, immutableCacheControl } from "@mailroom/core"
import { Effect, Option } from "effect"
import { Hono } from "hono"
import type { MailroomEnv } from "../env.js"

const notFound = () => new Response("Not found\n", { status: 404, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } })

export const publicAssetRoutes = new Hono<MailroomEnv>()
  .get("/assets/:file", (c) =>
    c.get("run")(Effect.gen(function* () {
      const found = yield* (yield* Assets).content(c.req.param("file"))
      if (Option.isNone(found)) return notFound()
      const etag = `"${found.value.hash}"`
      const headers = { "cache-control": immutableCacheControl, etag, "x-content-type-options": "nosniff" }
      const match = c.req.header("if-none-match")
      if (match !== undefined && match.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)) {
        return new Response(null, { status: 304, headers })
      }
      return new Response(Buffer.from(found.value.bytes), {
        status: 200,
        headers: { ...headers, "content-type": found.value.contentType, "content-length": String(found.value.bytes.length) },
      })
    })))
