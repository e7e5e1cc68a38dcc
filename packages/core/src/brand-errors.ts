/** The domain errors of brands, each carrying its code. Kept apart from errors.ts, which re-exports them into
 *  MailroomError. Spec: sending "Designs (template API)" (brand rows), "Errors" (REVISION_CONFLICT). */
import { Schema } from "effect"

/** A brand that is unknown in this account (another account's id, or another application's for an application
 *  credential). */
export class BrandNotFound extends Schema.TaggedError<BrandNotFound>()("BrandNotFound", {
  id: Schema.String,
}) {
  readonly code = "BRAND_NOT_FOUND"
  override get message() { return `brand ${this.id} was not found` }
}

/** A PATCH carried an expectedUpdatedAt that is not the brand's updatedAt: someone changed it meanwhile. */
export class BrandRevisionConflict extends Schema.TaggedError<BrandRevisionConflict>()("BrandRevisionConflict", {
  id: Schema.String,
  expected: Schema.String,
  current: Schema.String,
}) {
  readonly code = "REVISION_CONFLICT"
  override get message() {
    return `brand ${this.id} was updated at ${this.current}, not ${this.expected}; read it again and repeat the change on the current brand`
  }
}

/** DELETE of a brand that templates use, or of the account's default brand. */
export class BrandInUse extends Schema.TaggedError<BrandInUse>()("BrandInUse", {
  id: Schema.String,
  templates: Schema.Number,
  campaigns: Schema.Number,
  isDefault: Schema.Boolean,
}) {
  readonly code = "BRAND_IN_USE"
  override get message() {
    const users = [
      ...(this.templates > 0 ? [`${this.templates} ${this.templates === 1 ? "template" : "templates"}`] : []),
      ...(this.campaigns > 0 ? [`${this.campaigns} ${this.campaigns === 1 ? "campaign" : "campaigns"}`] : []),
    ]
    return users.length > 0
      ? `brand ${this.id} is used by ${users.join(" and ")} (GET /designs/brands/${this.id}/usage); move them to another brand first`
      : `brand ${this.id} is the account's default brand; make another brand the default first`
  }
}

/** The account's plan holds as many brands as it allows (Micro 3, Pro 10, Scale 25). Like templates, answered with the
 *  spec's code for a plan's count limit. */
export class BrandLimitReached extends Schema.TaggedError<BrandLimitReached>()("BrandLimitReached", {
  plan: Schema.String,
  limit: Schema.Number,
}) {
  readonly code = "API_KEY_LIMIT_REACHED"
  override get message() {
    return `the ${this.plan} plan allows at most ${this.limit} brands; delete one or upgrade the plan`
  }
}

/** PUT of a tracking domain whose hostname another brand (of this account or another) holds. */
export class TrackingDomainInUse extends Schema.TaggedError<TrackingDomainInUse>()("TrackingDomainInUse", {
  hostname: Schema.String,
}) {
  readonly code = "TRACKING_DOMAIN_IN_USE"
  override get message() { return `the tracking domain ${this.hostname} is already used by another brand` }
}

/** GET or verify of the tracking domain of a brand that has none. */
export class TrackingDomainNotFound extends Schema.TaggedError<TrackingDomainNotFound>()("TrackingDomainNotFound", {
  brandId: Schema.String,
}) {
  readonly code = "RESOURCE_NOT_FOUND"
  override get message() {
    return `brand ${this.brandId} has no tracking domain; set one with PUT /designs/brands/${this.brandId}/tracking-domain`
  }
}

export type BrandError = BrandNotFound | BrandRevisionConflict | BrandInUse | BrandLimitReached | TrackingDomainInUse | TrackingDomainNotFound
