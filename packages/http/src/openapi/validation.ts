/** Address validation (/v1/emails/validate, and bulk validation as a job) as the OpenAPI document describes it, with
 *  the schemas the service decodes the bodies with. */
import { AddressChecks, BulkValidateInput, ValidateInput, ValidationJobError, ValidationJobStatus } from "@mailroom/core"
import { Schema } from "effect"
import { Id, Ok, type RouteDescription } from "./describe.js"
import { DateString } from "./response-schemas.js"

const send = { apiKey: "emails:send" } as const

/** routes/validation.ts, verdictBody. */
const VerdictResponse = Schema.Struct({
  email: Schema.String,
  valid: Schema.Boolean,
  checks: AddressChecks,
  suggestion: Schema.NullOr(Schema.String),
  reason: Schema.NullOr(Schema.String),
})

/** routes/validation.ts, bulkJobBody without its results. */
const BulkJobResponse = Schema.Struct({
  id: Schema.String,
  status: ValidationJobStatus,
  total: Schema.Number,
  processed: Schema.Number,
  progress: Schema.Number.annotations({ description: "Percent of the addresses checked" }),
  extended: Schema.Boolean,
  timeout: Schema.Number,
  continueOnError: Schema.Boolean,
  error: Schema.NullOr(ValidationJobError),
  createdAt: DateString,
  startedAt: Schema.NullOr(DateString),
  completedAt: Schema.NullOr(DateString),
})

/** A bulk result: the verdict, with the error of a check that could not be made. */
const BulkVerdict = Schema.Struct({
  ...VerdictResponse.fields,
  error: Schema.NullOr(Schema.Struct({ code: Schema.String, message: Schema.String })),
})

export const validationRoutes: ReadonlyArray<RouteDescription> = [
  {
    method: "post", path: "/v1/emails/validate", tag: "Address validation", summary: "Validate an address",
    description: "Checks syntax, the domain's mail servers, disposable and role addresses; with `extended`, an SMTP " +
      "handshake and catch-all check. Limited to 50 requests a second.",
    access: send, body: { schema: ValidateInput, example: { email: "ada@example.com" } },
    success: { status: 200, description: "The checks and the verdict", schema: Ok(VerdictResponse) },
    errors: ["DNS_LOOKUP_ERROR"],
  },
  {
    method: "post", path: "/v1/emails/validate/bulk", tag: "Address validation", summary: "Validate addresses in bulk",
    access: send, body: { schema: BulkValidateInput, example: { emails: ["ada@example.com", "bob@example.com"] } },
    success: { status: 202, description: "The job, queued; read it for its progress and results", schema: Ok(BulkJobResponse) },
    errors: [],
  },
  {
    method: "get", path: "/v1/emails/validate/bulk/{id}", tag: "Address validation", summary: "Read a bulk validation",
    access: send, params: { id: Id },
    success: {
      status: 200, description: "The job's progress; its results once it finished (null while it runs)",
      schema: Ok(Schema.Struct({ ...BulkJobResponse.fields, results: Schema.NullOr(Schema.Array(BulkVerdict)) })),
    },
    errors: ["NOT_FOUND"],
  },
]
