/** GET /v1/openapi.json and GET /v1/reference: the document, and the Scalar reference page rendered from it. The page
 *  is @effect/platform's HttpApiScalar, which embeds Scalar's script in the page instead of loading it from a CDN; its
 *  default fonts (loaded from Scalar's site) are turned off, and a Content-Security-Policy keeps the page from
 *  reaching any other origin. */
import type { OpenApi as OpenApiTypes } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Hono } from "hono"
import type { MailroomEnv } from "../env.js"
import { makeOpenApiDocument } from "./document.js"
import { openApiPath, referencePath } from "./routes-reference.js"

/** Both live under /v1, so a server URL relative to either (`..`) names where the host mounted Mailroom, whatever the
 *  mount point: `/api/v1/openapi.json` resolves `..` to `/api/`. */
const serverUrl = ".."

/** The page's script and styles are inline; it calls nothing but this server (the "try it" requests). */
export const referencePolicy = [
  "default-src 'none'",
  "script-src 'unsafe-inline' 'unsafe-eval'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join("; ")

/** Renders the Scalar page once, through @effect/platform's own handler: an HttpApi with no groups whose OpenAPI
 *  document is replaced by ours (the OpenApi.Transform annotation). Loaded on first use: the page is 3 MB. */
const renderReferencePage = async (document: Record<string, unknown>): Promise<string> => {
  const { HttpApi, HttpApiBuilder, HttpApiScalar, HttpServer, OpenApi } = await import("@effect/platform")
  const api = HttpApi.make("mailroom").annotate(OpenApi.Transform, () => document as unknown as OpenApiTypes.OpenAPISpec)
  const apiLayer = HttpApiBuilder.api(api)
  const { handler, dispose } = HttpApiBuilder.toWebHandler(Layer.mergeAll(
    HttpApiScalar.layer({ path: referencePath, scalar: { withDefaultFonts: false } }).pipe(Layer.provide(apiLayer)),
    apiLayer,
    HttpServer.layerContext,
  ))
  try {
    const response = await handler(new Request(`http://localhost${referencePath}`))
    return await response.text()
  } finally {
    await dispose()
  }
}

export interface ReferenceOptions {
  /** Whether GET /v1/reference serves the page (the document is served either way once these routes are mounted). */
  readonly page: boolean
}

export const apiReferenceRoutes = (options: ReferenceOptions) => {
  const document = makeOpenApiDocument({ serverUrl })
  const body = JSON.stringify(document)
  let page: Promise<string> | undefined
  const routes = new Hono<MailroomEnv>().get(openApiPath, () =>
    new Response(body, { headers: { "content-type": "application/json", "cache-control": "no-cache" } }))
  if (!options.page) return routes
  return routes.get(referencePath, async (c) => {
    page ??= renderReferencePage(document)
    try {
      return new Response(await page, {
        headers: {
          "content-type": "text/html; charset=utf-8",
          "content-security-policy": referencePolicy,
          "x-content-type-options": "nosniff",
        },
      })
    } catch (cause) {
      page = undefined
      return c.get("run")(Effect.die(cause))
    }
  })
}
