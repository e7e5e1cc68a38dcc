/** The inputs of the Subscriptions API with the spec's limits, and the confirmation mail's default template. Spec:
 *  audience "Subscriptions" (POST /subscriptions, POST /subscriptions/unsubscribe, PATCH /subscriptions/{email}) and
 *  Limits ("Subscribe"). Unknown fields are refused by decodeInput. */
import { Schema } from "effect"
import { CustomFields, Metadata, PersonName, TagName } from "./contact.js"
import { EmailAddress } from "./email.js"
import { ConsentInput, consentLimits, UnsubscribeScopeInput } from "./subscription.js"

export const subscribeLimits = {
  phone: 40,
  listIds: 50,
  topicIds: 50,
  tags: 50,
  tagLength: 50,
  reason: consentLimits.reason,
} as const

const ids = (field: string, max: number) =>
  Schema.Array(Schema.String).pipe(Schema.maxItems(max, { message: () => `${field} holds at most ${max} ids` }))

/** https:// only (spec: redirectUrl). */
export const RedirectUrl = Schema.String.pipe(Schema.filter((value) => {
  try {
    return new URL(value).protocol === "https:" || "must be an https:// URL"
  } catch {
    return "must be an https:// URL"
  }
}))

/** Body of POST /subscriptions. */
export const SubscribeInput = Schema.Struct({
  email: EmailAddress,
  firstName: Schema.optional(Schema.NullOr(PersonName)),
  lastName: Schema.optional(Schema.NullOr(PersonName)),
  phone: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(subscribeLimits.phone, {
    message: () => `must be at most ${subscribeLimits.phone} characters`,
  })))),
  listIds: Schema.optional(ids("listIds", subscribeLimits.listIds)),
  topicIds: Schema.optional(ids("topicIds", subscribeLimits.topicIds)),
  tags: Schema.optional(Schema.Array(TagName).pipe(Schema.maxItems(subscribeLimits.tags, {
    message: () => `at most ${subscribeLimits.tags} tags`,
  }))),
  customFields: Schema.optional(CustomFields),
  metadata: Schema.optional(Schema.NullOr(Metadata)),
  doubleOptIn: Schema.optional(Schema.Boolean),
  confirmationTemplateId: Schema.optional(Schema.String),
  redirectUrl: Schema.optional(Schema.NullOr(RedirectUrl)),
  resubscribe: Schema.optional(Schema.Boolean),
  consent: Schema.optional(ConsentInput),
})
export type SubscribeInput = typeof SubscribeInput.Type

const reason = Schema.String.pipe(Schema.maxLength(subscribeLimits.reason, {
  message: () => `must be at most ${subscribeLimits.reason} characters`,
}))

/** Body of POST /subscriptions/unsubscribe: scope all (default), list with listId, or topic with topicId (`category`
 *  is the legacy name of topic). */
export const UnsubscribeInput = Schema.Struct({
  email: EmailAddress,
  scope: Schema.optional(UnsubscribeScopeInput),
  listId: Schema.optional(Schema.NullOr(Schema.String)),
  topicId: Schema.optional(Schema.NullOr(Schema.String)),
  reason: Schema.optional(Schema.NullOr(reason)),
})
export type UnsubscribeInput = typeof UnsubscribeInput.Type

/** Body of PATCH /subscriptions/{email}: at least one of topics, lists and unsubscribeAll. */
export const UpdateSubscriptionInput = Schema.Struct({
  topics: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Boolean })),
  lists: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Boolean })),
  unsubscribeAll: Schema.optional(Schema.Boolean),
  resubscribe: Schema.optional(Schema.Boolean),
  consent: Schema.optional(ConsentInput),
})
export type UpdateSubscriptionInput = typeof UpdateSubscriptionInput.Type

/** The confirmation mail Mailroom sends unless stored templates say otherwise. Handlebars variables: confirm_url,
 *  first_name, last_name, email. */
export const defaultConfirmationTemplate = {
  subject: "Please confirm your subscription",
  html: [
    "<p>{{#if first_name}}Hi {{first_name}},{{else}}Hello,{{/if}}</p>",
    "<p>Please confirm that you want to receive mail at {{email}}.</p>",
    "<p><a href=\"{{confirm_url}}\">Confirm my subscription</a></p>",
    "<p>This link is valid for 7 days. If you did not ask for this, ignore this message: you will not be subscribed.</p>",
  ].join("\n"),
  text: [
    "{{#if first_name}}Hi {{first_name}},{{else}}Hello,{{/if}}",
    "",
    "Please confirm that you want to receive mail at {{email}} by opening this link:",
    "",
    "{{confirm_url}}",
    "",
    "This link is valid for 7 days. If you did not ask for this, ignore this message: you will not be subscribed.",
  ].join("\n"),
} as const
