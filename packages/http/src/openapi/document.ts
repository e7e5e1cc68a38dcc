/** The OpenAPI 3.1 document of every /v1 route, generated from the route-description registry (routes-*.ts): the
 *  request schemas are those the routes decode with, converted by effect/JSONSchema; the errors are the envelope of
 *  errors.ts with each status's codes from its table. Nothing here is written by hand twice. */
import type { ErrorCode } from "@mailroom/core"
import { JSONSchema, type Schema } from "effect"
import { docsBaseUrl, fixActionByCode, importStatusByReason, statusByCode } from "../errors.js"
import { type Access, allErrorCodes, ErrorEnvelope, PlainError, type RouteDescription, type Success } from "./describe.js"
import { brandRoutes } from "./brands.js"
import { analyticsRoutes } from "./analytics.js"
import { trackingDomainRoutes } from "./tracking-domains.js"
import { designRoutes } from "./designs.js"
import { designGalleryRoutes } from "./design-gallery.js"
import { designManifestRoutes } from "./design-manifest.js"
import { campaignRoutes } from "./campaigns.js"
import { legacyTemplateRoutes } from "./legacy-templates.js"
import { audienceRoutes } from "./routes-audience.js"
import { platformRoutes } from "./routes-platform.js"
import { referenceRoutes } from "./routes-reference.js"
import { validationRoutes } from "./validation.js"

/** Every /v1 route, as the document describes it. */
export const routeDescriptions: ReadonlyArray<RouteDescription> = [
  ...audienceRoutes, ...platformRoutes, ...validationRoutes, ...designGalleryRoutes, ...designManifestRoutes, ...designRoutes, ...brandRoutes, ...trackingDomainRoutes, ...campaignRoutes, ...legacyTemplateRoutes, ...referenceRoutes,
  ...analyticsRoutes,
]

type Json = Record<string, unknown>

/** effect/JSONSchema marks `unknown` with `$id: "/schemas/unknown"`; repeated in one document, the same $id is an
 *  error, and the mark says nothing a reader needs. */
const withoutIds = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutIds)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== "$id").map(([key, v]) => [key, withoutIds(v)]))
}

/** The codes every route with its kind of access and input can answer, besides its own. */
const commonErrors = (route: RouteDescription): ReadonlyArray<ErrorCode> => [
  ...(route.access === "public" ? [] : ["UNAUTHORIZED", "INVALID_CREDENTIALS", "SCOPE_INSUFFICIENT"] as const),
  ...(route.body !== undefined || route.query !== undefined || route.params !== undefined ? ["VALIDATION_ERROR"] as const : []),
  ...(route.body !== undefined ? ["PAYLOAD_TOO_LARGE"] as const : []),
  "RATE_LIMIT_EXCEEDED",
  "INTERNAL_ERROR",
]

const exampleError = (code: ErrorCode): Json => ({
  success: false,
  error: {
    code,
    message: code === "VALIDATION_ERROR" ? "email: must be a valid email address" : `${code.toLowerCase().replaceAll("_", " ")}`,
    fix_action: fixActionByCode[code],
    docs_url: `${docsBaseUrl}#${code.toLowerCase()}`,
    ...(code === "VALIDATION_ERROR" ? { context: { field: "email" } } : {}),
    ...(code === "RATE_LIMIT_EXCEEDED" ? { context: { retry_after: 1 } } : {}),
  },
})

const securityOf = (access: Access, path: string): Array<Json> => {
  if (access !== "public") return [{ apiKey: [] }]
  return path.startsWith("/v1/unsubscribe/one-click") ? [{ linkToken: [] }] : []
}

const operationId = (route: RouteDescription) =>
  route.method + route.path.replace(/^\/v1/, "").split(/[/-]/).filter((part) => part !== "")
    .map((part) => part.startsWith("{") ? `By${part[1]!.toUpperCase()}${part.slice(2, -1)}` : part[0]!.toUpperCase() + part.slice(1))
    .join("")

/** Builds the document. `serverUrl`: where the /v1 paths are served from (the host's mount point). */
export const makeOpenApiDocument = (options: { readonly serverUrl?: string; readonly version?: string } = {}): Json => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const jsonSchema = (schema: Schema.Schema.Any): Json =>
    withoutIds(JSONSchema.fromAST(schema.ast, { definitions, definitionPath: "#/components/schemas/", target: "openApi3.1" })) as Json

  const content = (success: Success): Json | undefined =>
    success.schema === undefined
      ? undefined
      : { [success.contentType ?? "application/json"]: { schema: jsonSchema(success.schema), ...(success.example === undefined ? {} : { example: success.example }) } }

  const successResponse = (success: Success): Json => ({
    description: success.description,
    ...(success.headers === undefined ? {} : {
      headers: Object.fromEntries(Object.entries(success.headers).map(([name, description]) => [name, { description, schema: { type: "string" } }])),
    }),
    ...(content(success) === undefined ? {} : { content: content(success) }),
  })

  const errorResponses = (route: RouteDescription): Json => {
    const own = route.errorShape === "plain" ? route.errors.filter((code) => code !== "IMPORT_REJECTED") : route.errors
    const byStatus = new Map<number, Array<ErrorCode>>()
    for (const code of new Set([...commonErrors(route), ...own])) {
      const status = statusByCode[code]
      byStatus.set(status, [...(byStatus.get(status) ?? []), code])
    }
    const plainStatuses = route.errorShape === "plain" ? new Set(Object.values(importStatusByReason)) : new Set<number>()
    const responses: Json = {}
    for (const status of [...new Set([...byStatus.keys(), ...plainStatuses])].sort()) {
      const codes = byStatus.get(status) ?? []
      const envelope = codes.length === 0 ? undefined : jsonSchema(ErrorEnvelope(codes))
      const schema = envelope === undefined
        ? jsonSchema(PlainError)
        : plainStatuses.has(status) ? { oneOf: [envelope, jsonSchema(PlainError)] } : envelope
      const description = [
        ...codes.map((code) => `\`${code}\``),
        ...(plainStatuses.has(status) ? ["`{ error }` (the CSV import's own refusal)"] : []),
      ].join(", ")
      responses[String(status)] = {
        description,
        ...(status === 429 ? { headers: { "Retry-After": { description: "Seconds to wait", schema: { type: "integer" } } } } : {}),
        content: {
          "application/json": {
            schema,
            example: codes.length === 0 ? { error: "the file is not a CSV file" } : exampleError(codes[0]!),
          },
        },
      }
    }
    return responses
  }

  const parameters = (route: RouteDescription): Array<Json> => {
    const path = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name, in: "path", required: true,
      schema: route.params?.[name!] === undefined ? { type: "string" } : jsonSchema(route.params[name!]!),
    }))
    const query = route.query === undefined ? [] : (() => {
      const object = jsonSchema(route.query) as { properties?: Record<string, Json>; required?: Array<string> }
      return Object.entries(object.properties ?? {}).map(([name, schema]) => ({
        name, in: "query", required: object.required?.includes(name) ?? false, schema,
      }))
    })()
    const headers = Object.entries(route.headers ?? {}).map(([name, description]) => ({
      name, in: "header", required: false, description, schema: { type: "string" },
    }))
    return [...path, ...query, ...headers]
  }

  const operation = (route: RouteDescription): Json => ({
    operationId: operationId(route),
    tags: [route.tag],
    summary: route.summary,
    ...(route.deprecated === true ? { deprecated: true } : {}),
    description: [
      route.description,
      route.access === "public" ? "No API key: this route is public." : `Scope: \`${route.access.apiKey}\`.`,
    ].filter((line) => line !== undefined).join("\n\n"),
    security: securityOf(route.access, route.path),
    ...(parameters(route).length === 0 ? {} : { parameters: parameters(route) }),
    ...(route.body === undefined ? {} : {
      requestBody: {
        required: route.body.required ?? true,
        content: {
          [route.body.contentType ?? "application/json"]: {
            schema: jsonSchema(route.body.schema),
            ...(route.body.example === undefined ? {} : { example: route.body.example }),
          },
        },
      },
    }),
    responses: {
      ...Object.fromEntries([route.success, ...(route.alternatives ?? [])].reverse().map((s) => [String(s.status), successResponse(s)])),
      ...errorResponses(route),
    },
  })

  const paths: Record<string, Json> = {}
  for (const route of routeDescriptions) paths[route.path] = { ...paths[route.path], [route.method]: operation(route) }

  return {
    openapi: "3.1.0",
    info: {
      title: "Mailroom API",
      version: options.version ?? "1",
      description: "Contacts, lists, consent (subscriptions, suppressions, topics, forms), sending, sending domains, " +
        "address validation, webhooks, designs and brands, campaigns and analytics. Every error answers the envelope " +
        "`{ success: false, error: { code, message, fix_action, docs_url, context? } }`.",
    },
    servers: [{ url: options.serverUrl ?? "/" }],
    tags: [...new Set(routeDescriptions.map((route) => route.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ...(withoutIds(definitions) as Json), Error: jsonSchema(ErrorEnvelope(allErrorCodes)) },
      securitySchemes: {
        apiKey: {
          type: "http", scheme: "bearer", bearerFormat: "svc_live_… or svc_test_…",
          description: "An API key, as `Authorization: Bearer <key>`. Its scopes decide the routes it reaches.",
        },
        appCredential: {
          type: "http", scheme: "bearer", bearerFormat: "svc_app_…",
          description: "An application credential, as `Authorization: Bearer <credential>`. It reaches only the " +
            "template API (/designs and /capabilities) of its application, acting with templates:read, templates:write " +
            "and emails:send, and sends only from its allowed senders; every other route refuses it (401 INVALID_CREDENTIALS).",
        },
        linkToken: {
          type: "apiKey", in: "query", name: "token",
          description: "The signed token of a mail's unsubscribe link (`{TRACK_URL}/u/<token>`).",
        },
      },
    },
  }
}
