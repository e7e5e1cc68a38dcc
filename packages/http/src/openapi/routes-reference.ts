/** The two routes that serve the reference itself, as the document describes them. */
import { Schema } from "effect"
import type { RouteDescription } from "./describe.js"

export const openApiPath = "/v1/openapi.json"
export const referencePath = "/v1/reference"

export const referenceRoutes: ReadonlyArray<RouteDescription> = [
  {
    method: "get", path: openApiPath, tag: "Reference", summary: "This OpenAPI 3.1 document", access: "public",
    success: { status: 200, description: "The document", schema: Schema.Record({ key: Schema.String, value: Schema.Unknown }) },
    errors: [],
  },
  {
    method: "get", path: referencePath, tag: "Reference", summary: "The API reference page, rendered from this document",
    access: "public",
    success: { status: 200, description: "An HTML page that loads nothing from other sites", contentType: "text/html", schema: Schema.String },
    errors: [],
  },
]
