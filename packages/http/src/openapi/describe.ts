/** The route-description registry's vocabulary: what each /v1 route takes and answers, written with the very Schemas
 *  the route decodes with, so that the OpenAPI document (document.ts) is generated from them and cannot drift. The
 *  errors a route answers are named by code; their statuses come from errors.ts's table. */
import type { ErrorCode, Scope } from "@mailroom/core"
import { Schema } from "effect"
import { statusByCode } from "../errors.js"

export type Method = "get" | "post" | "put" | "patch" | "delete" | "options"

/** Who may call a route: an API key (with the route's scope), or anyone (the public consent and form routes, which
 *  carry a signed token or a form id instead). */
export type Access = { readonly apiKey: Scope } | "public"

export interface Body {
  /** application/json unless said otherwise. */
  readonly contentType?: string
  /** The schema the route (or the service it calls) decodes the body with. */
  readonly schema: Schema.Schema.Any
  readonly required?: boolean
  readonly example?: unknown
}

export interface Success {
  readonly status: number
  readonly description: string
  /** The JSON body; none for an answer without one (a redirect, 204). */
  readonly schema?: Schema.Schema.Any
  /** application/json unless said otherwise. */
  readonly contentType?: string
  readonly headers?: Readonly<Record<string, string>>
  readonly example?: unknown
}

export interface RouteDescription {
  readonly method: Method
  /** The path as OpenAPI writes it, `{name}` for a parameter: `/v1/contacts/{id}`. */
  readonly path: string
  readonly tag: string
  readonly summary: string
  readonly description?: string
  readonly access: Access
  /** One schema per path parameter, by name; a parameter not named here is a plain string. */
  readonly params?: Readonly<Record<string, Schema.Schema.Any>>
  /** The Struct the route decodes the query string with. */
  readonly query?: Schema.Schema.Any
  /** Headers the route reads, by name, with what they mean. */
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: Body
  readonly success: Success
  /** Further answers besides the success (a second success status, a redirect). */
  readonly alternatives?: ReadonlyArray<Success>
  /** The codes the route itself answers. Those of authentication, scopes, rate limits, body reading and internal
   *  errors are added by the document for every route that has them. */
  readonly errors: ReadonlyArray<ErrorCode>
  /** The error body: the standard envelope, or CSV import's `{ error }`. */
  readonly errorShape?: "envelope" | "plain"
  /** A deprecated route (the legacy /templates API): marked so in the document. */
  readonly deprecated?: boolean
}

/** The envelope of every error answer (errors.ts, ErrorBody), for the given codes. */
export const ErrorEnvelope = (codes: ReadonlyArray<ErrorCode>) =>
  Schema.Struct({
    success: Schema.Literal(false),
    error: Schema.Struct({
      code: Schema.Literal(...(codes as [ErrorCode, ...Array<ErrorCode>])),
      message: Schema.String,
      fix_action: Schema.String,
      docs_url: Schema.String,
      context: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Number) })),
    }),
  })

/** CSV import's error body. */
export const PlainError = Schema.Struct({ error: Schema.String })

/** Every code the API answers, for the shared error component. */
export const allErrorCodes = Object.keys(statusByCode) as ReadonlyArray<ErrorCode>

/** `{ success: true, data }` of `schema`. */
export const Ok = <S extends Schema.Schema.Any>(data: S) => Schema.Struct({ success: Schema.Literal(true), data })

/** `{ success: true, data, meta }` (envelope.ts, pageEnvelope). */
export const Page = <S extends Schema.Schema.Any>(item: S) =>
  Schema.Struct({
    success: Schema.Literal(true),
    data: Schema.Array(item),
    meta: Schema.Struct({ page: Schema.Number, limit: Schema.Number, total_count: Schema.Number, has_more: Schema.Boolean }),
  })

/** `{ data, pagination }` (envelope.ts, paginatedEnvelope). */
export const Paginated = <S extends Schema.Schema.Any>(item: S) =>
  Schema.Struct({
    data: Schema.Array(item),
    pagination: Schema.Struct({ page: Schema.Number, limit: Schema.Number, total: Schema.Number, totalPages: Schema.Number }),
  })

/** An id in a path. */
export const Id = Schema.String.annotations({ description: "An id, as the API returned it" })
