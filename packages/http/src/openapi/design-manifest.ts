/** /v1/designs/manifest as the OpenAPI document describes it, with the schemas the route and Manifests decode with
 *  (docs/templates.md, "Manifests"). */
import { ApplyManifestInput, ExportManifestParams, Manifest } from "@mailroom/core"
import { Schema } from "effect"
import { Ok, type RouteDescription } from "./describe.js"
import { DateString } from "./response-schemas.js"

const Installed = Schema.NullOr(Schema.Struct({ source: Schema.String, version: Schema.String, appliedAt: DateString }))
const Action = Schema.Literal("create", "update", "unchanged")

/** services/manifests.ts, exportManifest. */
const ExportResponse = Schema.Struct({ manifest: Manifest, installed: Installed, behind: Schema.NullOr(Schema.Boolean) })

/** services/manifests.ts, ManifestPlan. */
const PlanResponse = Schema.Struct({
  dryRun: Schema.Boolean,
  applied: Schema.Boolean,
  applicationKey: Schema.String,
  source: Schema.String,
  version: Schema.String,
  installed: Installed,
  behind: Schema.Boolean,
  brands: Schema.Array(Schema.Struct({ key: Schema.String, name: Schema.String, action: Action, id: Schema.NullOr(Schema.String) })),
  designs: Schema.Array(Schema.Struct({
    key: Schema.String, locale: Schema.String, action: Action, id: Schema.NullOr(Schema.String),
    changed: Schema.Array(Schema.String), publishedVersion: Schema.NullOr(Schema.Number),
  })),
  assets: Schema.Array(Schema.Struct({ hash: Schema.String, url: Schema.String, action: Schema.Literal("create", "unchanged") })),
})

/** A manifest as GET /designs/manifest answers it: one brand and one design bound to it. */
const exampleManifest = {
  format: "mailroom.manifest/1",
  applicationKey: "account",
  source: "src_5f0c1e2d3b4a69788796a5b4c3d2e1f0",
  version: "9b2f6c1d0e8a7b6c5d4e3f2a1b0c9d8e",
  exportedAt: "2026-11-29T16:00:00.000Z",
  brands: [{ key: "brd_1m8m14sz03xvdfepn8k3xdrnm", name: "Northwind Post", colors: { primary: "#7a1f1f" } }],
  assets: [],
  designs: [{
    key: "welcome", locale: "en", brand: "brd_1m8m14sz03xvdfepn8k3xdrnm",
    draft: { name: "Welcome", subject: "Welcome, {{first_name}}", blocks: [{ type: "heading", text: "Hi {{first_name}}" }] },
    live: null,
  }],
}

export const designManifestRoutes: ReadonlyArray<RouteDescription> = [
  {
    method: "get", path: "/v1/designs/manifest", tag: "Designs",
    summary: "Export an application's designs, brands and asset references as a manifest", access: { apiKey: "templates:read" },
    query: ExportManifestParams,
    success: { status: 200, description: "The manifest, what the application last installed, and whether installedVersion is behind", schema: Ok(ExportResponse) },
    errors: ["PLAN_UPGRADE_REQUIRED"],
  },
  {
    method: "post", path: "/v1/designs/manifest", tag: "Designs",
    summary: "Plan (dryRun) or apply a manifest in one transaction, publishing changed designs with publish",
    access: { apiKey: "templates:write" },
    body: { schema: ApplyManifestInput, example: { manifest: exampleManifest, dryRun: true, publish: false } },
    success: { status: 200, description: "The plan, entry by entry (applied when dryRun is false)", schema: Ok(PlanResponse) },
    errors: ["PLAN_UPGRADE_REQUIRED", "API_KEY_LIMIT_REACHED", "REVISION_CONFLICT"],
  },
]
