/** The domain errors of templates (designs, releases, legacy templates, sending by template), each carrying its code.
 *  Kept apart from errors.ts, which re-exports them into MailroomError. Spec: sending "Errors" and "Designs". */
import { Schema } from "effect"

/** A design or legacy template that is unknown in this account (another account's id, or another application's for
 *  an application credential). */
export class TemplateNotFound extends Schema.TaggedError<TemplateNotFound>()("TemplateNotFound", {
  id: Schema.String,
}) {
  readonly code = "TEMPLATE_NOT_FOUND"
  override get message() { return `template ${this.id} was not found` }
}

/** A write carried an expectedRevision that is not the draft's current revision: someone changed it meanwhile. */
export class RevisionConflict extends Schema.TaggedError<RevisionConflict>()("RevisionConflict", {
  id: Schema.String,
  expected: Schema.Number,
  current: Schema.Number,
}) {
  readonly code = "REVISION_CONFLICT"
  override get message() {
    return `template ${this.id} is at revision ${this.current}, not ${this.expected}; read it again and repeat the change on the current draft`
  }
}

/** Another design of the account already has this application key, key and locale. */
export class DesignAlreadyExists extends Schema.TaggedError<DesignAlreadyExists>()("DesignAlreadyExists", {
  applicationKey: Schema.String,
  key: Schema.String,
  locale: Schema.String,
}) {
  readonly code = "DESIGN_ALREADY_EXISTS"
  override get message() {
    return `a template with key ${this.key} and locale ${this.locale} already exists in application ${this.applicationKey}`
  }
}

/** DELETE /designs/{id} of a template that has sent mail: its releases stay, since messages name them. */
export class TemplateInUse extends Schema.TaggedError<TemplateInUse>()("TemplateInUse", {
  id: Schema.String,
  sends: Schema.Number,
}) {
  readonly code = "TEMPLATE_IN_USE"
  override get message() {
    return `template ${this.id} has sent ${this.sends} ${this.sends === 1 ? "message" : "messages"} and cannot be deleted; retire it instead`
  }
}

/** A send named a template that has no release yet. */
export class TemplateNotPublished extends Schema.TaggedError<TemplateNotPublished>()("TemplateNotPublished", {
  id: Schema.String,
}) {
  readonly code = "TEMPLATE_NOT_PUBLISHED"
  override get message() { return `template ${this.id} has never been published; publish its draft before sending with it` }
}

/** A send named a retired template; `replacementId` names the template to use instead, when it was given. */
export class TemplateRetired extends Schema.TaggedError<TemplateRetired>()("TemplateRetired", {
  id: Schema.String,
  replacementId: Schema.NullOr(Schema.String),
}) {
  readonly code = "TEMPLATE_RETIRED"
  override get message() {
    return this.replacementId === null
      ? `template ${this.id} is retired; restore it or send with another template`
      : `template ${this.id} is retired; send with its replacement ${this.replacementId}`
  }
}

/** The account's plan holds as many Studio templates as it allows (Micro 25, Pro 100, Scale 500). The sending spec
 *  answers a plan's count limit with API_KEY_LIMIT_REACHED (custom domains), and templates follow it. */
export class TemplateLimitReached extends Schema.TaggedError<TemplateLimitReached>()("TemplateLimitReached", {
  plan: Schema.String,
  limit: Schema.Number,
}) {
  readonly code = "API_KEY_LIMIT_REACHED"
  override get message() {
    return `the ${this.plan} plan allows at most ${this.limit} templates; delete one or upgrade the plan`
  }
}

/** An application credential sent from an address that is not one of its allowed senders; or an account key sent an
 *  application template (`application`) from an address that none of that application's credentials allows. */
export class SenderNotAllowed extends Schema.TaggedError<SenderNotAllowed>()("SenderNotAllowed", {
  from: Schema.String,
  allowed: Schema.Array(Schema.String),
  application: Schema.optional(Schema.String),
}) {
  readonly code = "SENDER_NOT_ALLOWED"
  override get message() {
    const allowed = this.allowed.join(", ") || "none"
    return this.application === undefined
      ? `${this.from} is not an allowed sender of this application credential (allowed: ${allowed})`
      : `${this.from} is not an allowed sender of application ${this.application}'s templates (allowed: ${allowed}; ` +
        `an application's allowed senders are those of its credentials)`
  }
}

/** A manifest past one of its limits (templates, blocks of one template, bytes of JSON): 413, and nothing changes. */
export class ManifestTooLarge extends Schema.TaggedError<ManifestTooLarge>()("ManifestTooLarge", {
  field: Schema.String,
  detail: Schema.String,
}) {
  readonly code = "PAYLOAD_TOO_LARGE"
  override get message() { return `${this.field}: ${this.detail}` }
}

export type TemplateError =
  | TemplateNotFound | RevisionConflict | DesignAlreadyExists | TemplateInUse | TemplateNotPublished | TemplateRetired
  | TemplateLimitReached | SenderNotAllowed | ManifestTooLarge
