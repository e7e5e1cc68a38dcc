/** The dev mail viewer (docs/dev-outbox.md): a page at /admin/mail that shows the dev outbox as Mailpit and
 *  letter_opener do. Mounted only while mail is kept in the dev outbox (no SMTP relay) and an admin token is set.
 *
 *  Sign-in: the operator types ADMIN_TOKEN into a form (POST /admin/mail/login); Mailroom answers a session cookie,
 *  HttpOnly, SameSite=Strict, scoped to the viewer's path, valid 12 hours, and signed with the admin token (an HMAC of
 *  its expiry), so that nothing is stored and changing ADMIN_TOKEN ends every session. The token never appears in a
 *  URL. The viewer's own JSON routes read that cookie only (the operator API keeps its Bearer token); the one that
 *  changes state (DELETE, clearing the outbox) also needs the header `X-Mailroom-Viewer: 1`, which a page of another
 *  origin cannot send without a CORS preflight that Mailroom never grants.
 *
 *  Each message's html is served on its own URL with a Content-Security-Policy that allows no script, no request
 *  outside the message (images as data: only) and sandboxes the document, and the page shows it in an iframe whose
 *  sandbox allows nothing. */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { type DevOutboxEntry, devOutboxLimits, ResourceNotFound, Store } from "@mailroom/core"
import { Effect, Either, Option } from "effect"
import { Hono, type Context } from "hono"
import { guardAttempt } from "../auth.js"
import { readBody } from "../body.js"
import type { MailroomEnv } from "../env.js"
import { outboxAttachments, outboxEntriesJson, withInlineImages } from "../outbox-message.js"
import { loginPage, viewerPage } from "../pages/outbox-viewer-page.js"
import type { PageTheme } from "../pages/layout.js"

export interface OutboxViewerOptions {
  readonly adminToken: string
  readonly theme: PageTheme
}

/** The session cookie's name and lifetime. */
export const viewerSession = { cookie: "mailroom_outbox_session", lifetimeMs: 12 * 60 * 60 * 1000 } as const

/** The header the viewer's script sends with DELETE. */
export const viewerHeader = "x-mailroom-viewer"

/** The policy of each message's html: nothing runs, nothing outside the message loads (the message's inline cid:
 *  images are served in the html as data: URLs), and the document is sandboxed even when opened on its own. */
export const messageFramePolicy =
  "default-src 'none'; img-src data: cid:; style-src 'unsafe-inline'; font-src data:; base-uri 'none'; " +
  "form-action 'none'; frame-ancestors 'self'; sandbox"

const sign = (adminToken: string, expiresAt: number) =>
  createHmac("sha256", adminToken).update(`mailroom outbox viewer\n${expiresAt}`).digest("base64url")

const sessionValue = (adminToken: string, now: number) => {
  const expiresAt = now + viewerSession.lifetimeMs
  return `${expiresAt}.${sign(adminToken, expiresAt)}`
}

const cookieOf = (header: string | undefined, name: string): string | undefined => {
  for (const part of (header ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=")
    if (key === name) return value.join("=")
  }
  return undefined
}

/** Whether the request carries a session cookie signed with this admin token that has not expired. */
const hasSession = (c: Context<MailroomEnv>, adminToken: string): boolean => {
  const value = cookieOf(c.req.header("cookie"), viewerSession.cookie)
  const match = value === undefined ? null : /^([0-9]{1,15})\.([A-Za-z0-9_-]{43})$/.exec(value)
  if (match === null) return false
  const expiresAt = Number(match[1])
  if (expiresAt <= Date.now()) return false
  return timingSafeEqual(Buffer.from(match[2]!), Buffer.from(sign(adminToken, expiresAt)))
}

const sameToken = (given: string, adminToken: string) => {
  const digest = (text: string) => createHmac("sha256", "mailroom outbox viewer login").update(text).digest()
  return timingSafeEqual(digest(given), digest(adminToken))
}

/** The cookie's attributes. No Path: the browser scopes it to the directory of the login URL, the viewer's own path,
 *  wherever the host mounts Mailroom. */
const cookieAttributes = (c: Context<MailroomEnv>, maxAgeSeconds: number) =>
  `HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${new URL(c.req.url).protocol === "https:" ? "; Secure" : ""}`

const noStore = { "cache-control": "no-store", "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" } as const

const htmlDocument = (body: string, status: number, headers: Record<string, string>) =>
  new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", ...noStore, ...headers } })

/** `filename` for Content-Disposition: an ASCII fallback and the exact name (RFC 6266, RFC 5987). */
const dispositionOf = (filename: string) => {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_")
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`
}

const unauthorized = () =>
  new Response(JSON.stringify({ error: { code: "UNAUTHORIZED", message: "sign in to the mail viewer again" } }), {
    status: 401, headers: { "content-type": "application/json", ...noStore },
  })

export const outboxViewerRoutes = (options: OutboxViewerOptions) => {
  const { adminToken, theme } = options
  const signedIn = (c: Context<MailroomEnv>) => hasSession(c, adminToken)
  const entryOf = (id: string) =>
    Effect.flatMap(Store, (store) => store.devOutbox.get(id)).pipe(
      Effect.flatMap(Option.match({
        onNone: () => Effect.fail(new ResourceNotFound({ resource: "message", id })),
        onSome: (entry: DevOutboxEntry) => Effect.succeed(entry),
      })),
    )

  return new Hono<MailroomEnv>()
    .get("/", (c) => {
      if (!signedIn(c)) return loginPage({ theme, status: 200, action: "mail/login" })
      const nonce = randomBytes(16).toString("hex")
      return htmlDocument(viewerPage({ theme, nonce }), 200, {
        "content-security-policy":
          `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; ` +
          "frame-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        "x-robots-tag": "noindex, nofollow",
      })
    })
    .post("/login", async (c) => {
      const outcome = await guardAttempt(c, async () => {
        const bytes = await Effect.runPromise(Effect.either(readBody(c.req.raw, 8 * 1024)))
        const token = Either.isRight(bytes) ? new URLSearchParams(new TextDecoder().decode(bytes.right)).get("token") : null
        if (token === null || token === "") return loginPage({ theme, action: "login", status: 400, error: "Type the admin token (ADMIN_TOKEN)." })
        if (!sameToken(token, adminToken)) {
          return loginPage({ theme, action: "login", status: 401, error: "That is not the admin token. Check ADMIN_TOKEN and try again." })
        }
        return true
      })
      if (outcome !== true && outcome.status === 429) {
        // Past the client's failed authentications: the form again, saying so, with the JSON answer's Retry-After.
        const retryAfter = outcome.headers.get("retry-after")
        return loginPage({
          theme, action: "login", status: 429, error: "Too many wrong tokens came from your address. Wait a minute and try again.",
          headers: retryAfter === null ? undefined : { "retry-after": retryAfter },
        })
      }
      if (outcome !== true) return outcome
      return new Response(null, {
        status: 303,
        headers: {
          // Relative to /admin/mail/login: the viewer at /admin/mail, under whatever prefix the host mounts Mailroom.
          location: "../mail",
          "set-cookie": `${viewerSession.cookie}=${sessionValue(adminToken, Date.now())}; ${cookieAttributes(c, viewerSession.lifetimeMs / 1000)}`,
          ...noStore,
        },
      })
    })
    .post("/logout", (c) =>
      new Response(null, {
        status: 303,
        headers: { location: "../mail", "set-cookie": `${viewerSession.cookie}=; ${cookieAttributes(c, 0)}`, ...noStore },
      }))
    .get("/messages", (c) => {
      if (!signedIn(c)) return unauthorized()
      return c.get("run")(Effect.gen(function* () {
        const store = yield* Store
        const q = (c.req.query("q") ?? "").trim().slice(0, devOutboxLimits.maxSearch)
        const entries = yield* store.devOutbox.list({ q: q === "" ? undefined : q, limit: devOutboxLimits.maxLimit })
        return new Response(JSON.stringify({ data: yield* outboxEntriesJson(entries) }), {
          headers: { "content-type": "application/json", ...noStore },
        })
      }))
    })
    .delete("/messages", (c) => {
      if (!signedIn(c)) return unauthorized()
      if (c.req.header(viewerHeader) !== "1") {
        return new Response(JSON.stringify({ error: { code: "FORBIDDEN", message: `send ${viewerHeader}: 1` } }), {
          status: 403, headers: { "content-type": "application/json", ...noStore },
        })
      }
      return c.get("run")(Effect.gen(function* () {
        const store = yield* Store
        return new Response(JSON.stringify({ deleted: yield* store.devOutbox.clear() }), {
          headers: { "content-type": "application/json", ...noStore },
        })
      }))
    })
    .get("/messages/:id/html", (c) => {
      if (!signedIn(c)) return unauthorized()
      return c.get("run")(Effect.gen(function* () {
        const entry = yield* entryOf(c.req.param("id"))
        const html = entry.html ?? ""
        const shown = html.toLowerCase().includes("cid:") ? withInlineImages(html, yield* outboxAttachments(entry)) : html
        return htmlDocument(shown, 200, { "content-security-policy": messageFramePolicy })
      }))
    })
    .get("/messages/:id/raw", (c) => {
      if (!signedIn(c)) return unauthorized()
      return c.get("run")(Effect.map(entryOf(c.req.param("id")), (entry) =>
        new Response(entry.raw ?? "", {
          headers: {
            "content-type": "text/plain; charset=utf-8",
            "content-security-policy": "default-src 'none'; sandbox",
            ...(c.req.query("download") === "1" ? { "content-disposition": dispositionOf(`${entry.id}.eml`) } : {}),
            ...noStore,
          },
        })))
    })
    .get("/messages/:id/attachments/:index", (c) => {
      if (!signedIn(c)) return unauthorized()
      const id = c.req.param("id")
      const index = c.req.param("index")
      return c.get("run")(Effect.gen(function* () {
        const attachments = yield* outboxAttachments(yield* entryOf(id))
        const attachment = /^[0-9]{1,4}$/.test(index) ? attachments[Number(index)] : undefined
        if (attachment === undefined) return yield* Effect.fail(new ResourceNotFound({ resource: "attachment", id: `${id}/${index}` }))
        return new Response(attachment.content as Uint8Array<ArrayBuffer>, {
          headers: {
            // Always a download: an html attachment never renders at Mailroom's origin.
            "content-type": attachment.contentType,
            "content-disposition": dispositionOf(attachment.filename),
            "content-security-policy": "default-src 'none'; sandbox",
            ...noStore,
          },
        })
      }))
    })
}
