/** The tracking links of mail (CONTRACT.md "Tracking links"; docs/tracking.md), without an API key: the signed token is
 *  the credential, and the answer needs no database read.
 *
 *  - GET /o/<token>: the open pixel, a 1×1 transparent GIF that no cache keeps.
 *  - GET /l/<token>: 302 to the link's original target, which the token carries (never an open redirect: only a
 *    target signed into the token is reached); the hidden honeypot link answers a blank page.
 *  - A forged, altered or malformed token: a plain 404 page. HEAD is answered as GET without a body (and counted as
 *    a bot's). */
import { Tracking, type TrackingAnswer, type TrackingRequest } from "@mailroom/core"
import { Effect } from "effect"
import { type Context, Hono } from "hono"
import type { MailroomEnv } from "../env.js"

/** The smallest transparent GIF: 1×1, one transparent colour (43 bytes). */
export const pixelGif = Uint8Array.from(Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64"))

/** No cache (browser, proxy or mailbox) keeps a tracking answer: each open and click reaches Mailroom. */
const noStore = {
  "cache-control": "no-store, no-cache, must-revalidate, private, max-age=0",
  pragma: "no-cache",
  expires: "0",
} as const

const notFound = () =>
  new Response("<!doctype html><title>Not found</title><h1>Not found</h1><p>This link is not valid.</p>\n", {
    status: 404,
    headers: { "content-type": "text/html; charset=utf-8", ...noStore },
  })

const answer = (result: TrackingAnswer): Response => {
  switch (result.kind) {
    case "pixel":
      return new Response(pixelGif, { status: 200, headers: { "content-type": "image/gif", "content-length": String(pixelGif.length), ...noStore } })
    case "redirect":
      // No Referer from the redirect: the target does not see the token.
      return new Response(null, { status: 302, headers: { location: result.url, "referrer-policy": "no-referrer", ...noStore } })
    case "honeypot":
      return new Response("<!doctype html><title>Mailroom</title>\n", {
        status: 200,
        headers: { "content-type": "text/html; charset=utf-8", "x-robots-tag": "noindex", ...noStore },
      })
    case "not-found":
      return notFound()
  }
}

const trackingRequest = (c: Context<MailroomEnv>): TrackingRequest => ({
  method: c.req.method,
  headers: c.req.raw.headers,
  address: c.get("clientAddress"),
  trustedProxy: c.get("trustedProxy"),
})

export const trackingRoutes = new Hono<MailroomEnv>()
  .get("/o/:token", (c) =>
    c.get("run")(Effect.map(Effect.flatMap(Tracking, (tracking) => tracking.open(c.req.param("token"), trackingRequest(c))), answer)))
  .get("/l/:token", (c) =>
    c.get("run")(Effect.map(Effect.flatMap(Tracking, (tracking) => tracking.click(c.req.param("token"), trackingRequest(c))), answer)))
