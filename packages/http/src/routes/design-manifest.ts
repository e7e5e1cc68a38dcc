/** /v1/designs/manifest: export an application's designs, brands and asset references (GET, templates:read), or plan
 *  and apply a manifest (POST, templates:write) in one transaction (docs/templates.md, "Manifests"). Registered before
 *  routes/designs.ts, whose /designs/{id} would otherwise take "manifest" for an id. */
import { type DesignCaller, ExportManifestParams, Manifests, manifestLimits } from "@mailroom/core"
import { Effect } from "effect"
import { type Context, Hono } from "hono"
import { requireScope } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { ok } from "../envelope.js"
import { decodeQuery, readJson } from "../validation.js"

const callerOf = (c: Context<MailroomEnv>): DesignCaller => ({ account: c.get("account"), application: c.get("application") ?? null })

export const designManifestRoutes = new Hono<MailroomEnv>()
  .get("/designs/manifest", requireScope("templates:read"), (c) =>
    c.get("run")(Effect.gen(function* () {
      const query = yield* decodeQuery(c, ExportManifestParams)
      return c.json(ok(yield* (yield* Manifests).exportManifest(callerOf(c), query)))
    })))
  .post("/designs/manifest", requireScope("templates:write"), (c) => {
    // A manifest is at most 8 MiB of JSON, whatever larger body the host allows elsewhere.
    c.set("bodyLimitBytes", Math.min(c.get("bodyLimitBytes"), manifestLimits.bytes))
    return c.get("run")(Effect.gen(function* () {
      const body = yield* readJson<unknown>(c)
      return c.json(ok(yield* (yield* Manifests).apply(callerOf(c), body)))
    }))
  })
