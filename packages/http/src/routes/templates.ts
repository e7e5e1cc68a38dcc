/** /v1/templates: the deprecated legacy template API, an adapter over designs (core's LegacyTemplates). Spec: sending
 *  "Legacy templates (deprecated)". Single templates answer { success: true, data }, the list { data, pagination }.
 *  Every answer, errors and 401s included, carries the deprecation headers (legacyTemplateGroup, mounted ahead of
 *  authentication). Shapes the spec does not show are described in docs/templates.md. */
import {
  CreateLegacyTemplateInput, type LegacyTemplate, LegacyTemplateListParams, legacyTemplateHeaders, legacyTemplateLimits,
  LegacyTemplates, RenderLegacyTemplateInput, TestLegacyTemplateInput, UpdateLegacyTemplateInput,
} from "@mailroom/core"
import { Effect } from "effect"
import { Hono } from "hono"
import { createMiddleware } from "hono/factory"
import { requireScope } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { ok, paginatedEnvelope } from "../envelope.js"
import { decodeJson, decodeQuery } from "../validation.js"

/** The paths of the legacy group, for the app to mount legacyTemplateGroup on ahead of authentication. */
export const legacyTemplatePaths = ["/v1/templates", "/v1/templates/*"] as const

/** The legacy group's middleware: the JSON body limit of import and render (8 MiB, or the host's smaller limit), and
 *  the Deprecation, Sunset and Link headers on whatever answers, set once the answer is made. */
export const legacyTemplateGroup = createMiddleware<MailroomEnv>(async (c, next) => {
  c.set("bodyLimitBytes", Math.min(c.get("bodyLimitBytes"), legacyTemplateLimits.jsonBytes))
  await next()
  for (const [name, value] of Object.entries(legacyTemplateHeaders)) c.header(name, value)
})

/** A legacy template as the API shows it. Spec: "Legacy template". */
export const legacyTemplateBody = (template: LegacyTemplate) => ({
  id: template.id,
  name: template.name,
  subject: template.subject,
  html: template.html,
  text: template.text,
  variables: template.variables,
  themeId: template.themeId,
  createdAt: template.createdAt.toISOString(),
  updatedAt: template.updatedAt.toISOString(),
})

const read = requireScope("templates:read")
const write = requireScope("templates:write")
const send = requireScope("emails:send")

export const legacyTemplateRoutes = new Hono<MailroomEnv>()
  .get("/templates", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const params = yield* decodeQuery(c, LegacyTemplateListParams)
      const page = yield* (yield* LegacyTemplates).list(c.get("account"), params)
      return c.json(paginatedEnvelope(page.templates.map(legacyTemplateBody), params, page.total))
    })))
  .post("/templates", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, CreateLegacyTemplateInput)
      return c.json(ok(legacyTemplateBody(yield* (yield* LegacyTemplates).create(c.get("account"), body))), 201)
    })))
  .get("/templates/:id", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(legacyTemplateBody(yield* (yield* LegacyTemplates).get(c.get("account"), c.req.param("id")))))
    })))
  .put("/templates/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, UpdateLegacyTemplateInput)
      return c.json(ok(legacyTemplateBody(yield* (yield* LegacyTemplates).update(c.get("account"), c.req.param("id"), body))))
    })))
  .delete("/templates/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      return c.json(ok(yield* (yield* LegacyTemplates).remove(c.get("account"), c.req.param("id"))))
    })))
  .post("/templates/:id/render", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, RenderLegacyTemplateInput)
      return c.json(ok(yield* (yield* LegacyTemplates).render(c.get("account"), c.req.param("id"), body.variables)))
    })))
  .post("/templates/:id/test", read, send, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, TestLegacyTemplateInput)
      return c.json(ok(yield* (yield* LegacyTemplates).test(c.get("account"), c.req.param("id"), body)))
    })))
