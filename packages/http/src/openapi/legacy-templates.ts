/** The deprecated legacy template API (/v1/templates) as the OpenAPI document describes it: every operation is marked
 *  deprecated and documents the Deprecation, Sunset and Link headers its answers carry (errors too). */
import {
  CreateLegacyTemplateInput, LegacyTemplateListParams, legacyTemplateHeaders, RenderLegacyTemplateInput,
  TestLegacyTemplateInput, UpdateLegacyTemplateInput,
} from "@mailroom/core"
import { Schema } from "effect"
import { Id, Ok, type RouteDescription, type Success } from "./describe.js"
import { DateString, Deleted } from "./response-schemas.js"

const read = { apiKey: "templates:read" } as const
const write = { apiKey: "templates:write" } as const
const byId = { id: Id }

const headers = {
  Deprecation: `\`${legacyTemplateHeaders.Deprecation}\`: the route is deprecated; use /v1/designs`,
  Sunset: `\`${legacyTemplateHeaders.Sunset}\`: the route keeps working until then`,
  Link: `\`${legacyTemplateHeaders.Link}\``,
}

const description = "Deprecated: the legacy template API, an adapter over designs (the template is the design with the " +
  "same id, application key `account`). Reads show the live release; writes publish at once."

/** routes/templates.ts, legacyTemplateBody. */
const LegacyTemplateResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  subject: Schema.String,
  html: Schema.NullOr(Schema.String),
  text: Schema.NullOr(Schema.String),
  variables: Schema.Array(Schema.String),
  themeId: Schema.NullOr(Schema.String),
  createdAt: DateString,
  updatedAt: DateString,
})

const LegacyTemplatePage = Schema.Struct({
  data: Schema.Array(LegacyTemplateResponse),
  pagination: Schema.Struct({ page: Schema.Number, limit: Schema.Number, total: Schema.Number, totalPages: Schema.Number }),
})

const Rendered = Schema.Struct({ subject: Schema.String, html: Schema.NullOr(Schema.String), text: Schema.String })
const TestSent = Schema.Struct({ id: Schema.String, status: Schema.Literal("queued"), templateId: Schema.String })

const success = (status: number, what: string, schema: Schema.Schema.Any): Success => ({ status, description: what, schema, headers })

const legacy = (route: Omit<RouteDescription, "tag" | "deprecated" | "description">, note?: string): RouteDescription =>
  ({ ...route, tag: "Legacy templates", deprecated: true, description: note === undefined ? description : `${description}\n\n${note}` })

const example = { name: "Welcome", subject: "Welcome, {{name}}", html: "<p>Hello {{name}}</p>", text: "Hello {{name}}" }

export const legacyTemplateRoutes: ReadonlyArray<RouteDescription> = [
  legacy({
    method: "get", path: "/v1/templates", summary: "List templates (deprecated)", access: read, query: LegacyTemplateListParams,
    success: success(200, "A page of templates", LegacyTemplatePage), errors: [],
  }),
  legacy({
    method: "post", path: "/v1/templates", summary: "Create and publish a template (deprecated)", access: write,
    body: { schema: CreateLegacyTemplateInput, example },
    success: success(201, "The template, published", Ok(LegacyTemplateResponse)),
    errors: ["PLAN_UPGRADE_REQUIRED", "API_KEY_LIMIT_REACHED"],
  }),
  legacy({
    method: "get", path: "/v1/templates/{id}", summary: "Read a template (deprecated)", access: read, params: byId,
    success: success(200, "The template's live release", Ok(LegacyTemplateResponse)), errors: ["TEMPLATE_NOT_FOUND"],
  }),
  legacy({
    method: "put", path: "/v1/templates/{id}", summary: "Update and publish a template (deprecated)", access: write,
    params: byId, body: { schema: UpdateLegacyTemplateInput, example: { subject: "Hello again, {{name}}", themeId: null } },
    success: success(200, "The template, published", Ok(LegacyTemplateResponse)),
    errors: ["TEMPLATE_NOT_FOUND", "REVISION_CONFLICT"],
  }),
  legacy({
    method: "delete", path: "/v1/templates/{id}", summary: "Delete a template (deprecated)", access: write, params: byId,
    success: success(200, "Deleted; later sends naming it fail with TEMPLATE_NOT_FOUND", Ok(Deleted)),
    errors: ["TEMPLATE_NOT_FOUND"],
  }),
  legacy({
    method: "post", path: "/v1/templates/{id}/render", summary: "Render a template (deprecated)", access: read,
    params: byId, body: { schema: RenderLegacyTemplateInput, example: { variables: { name: "Ada" } } },
    success: success(200, "The rendered subject, HTML and text; variables not given stay as {{name}}", Ok(Rendered)),
    errors: ["TEMPLATE_NOT_FOUND"],
  }),
  legacy({
    method: "post", path: "/v1/templates/{id}/test", summary: "Send a test of a template (deprecated)", access: read,
    params: byId,
    body: { schema: TestLegacyTemplateInput, example: { to: "ada@example.com", from: { email: "hello@example.com" }, variables: { name: "Ada" } } },
    success: success(200, "The test message, queued (it counts against the monthly quota)", Ok(TestSent)),
    errors: ["TEMPLATE_NOT_FOUND", "QUOTA_EXCEEDED"],
  }, "A restricted key needs `emails:send` as well: the test is a real send through the sending pipeline."),
]
