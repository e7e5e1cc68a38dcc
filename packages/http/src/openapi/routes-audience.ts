/** The audience routes (contacts, lists, subscriptions, suppressions, topics, forms, the public consent routes) as the
 *  OpenAPI document describes them, with the schemas their routes decode with. */
import {
  AddMembersInput, AddSuppressionInput, BulkCreateInput, BulkDeleteInput, BulkSuppressionInput, ContactListParams,
  CreateContactInput, CreateFormInput, CreateListInput, CreateTopicInput, EmailAddress, ImportResult, ListsParams,
  MembersParams, PublicUnsubscribeBody, RemoveMembersInput, SubscribeInput, TagsInput, TopicMemberInput, UnsubscribeInput,
  UpdateContactInput, UpdateFormInput, UpdateListInput, UpdateSubscriptionInput, UpdateTopicInput,
} from "@mailroom/core"
import { Schema } from "effect"
import { ContactResponse } from "../contact-response.js"
import { ExportParams } from "../routes/export.js"
import { FormResponse, FormsParams } from "../routes/forms.js"
import {
  AddMembersResponse, ListDetailResponse, ListResponse, MemberResponse, RemoveMemberParams,
} from "../routes/lists.js"
import { SuppressionResponse, SuppressionsParams } from "../routes/suppressions.js"
import { OptOutResponse, TopicBulkInput, TopicMembersParams, TopicResponse, TopicsParams } from "../routes/topics.js"
import { Id, Ok, Page, Paginated, type RouteDescription } from "./describe.js"
import {
  BulkCreateResponse, BulkDeleteResponse, BulkSuppressionResponse, RemoveMembersResponse, SuppressionRemoved, TagCount,
  TopicBulkResponse, TopicOptedIn, TopicOptedOut, Deleted, FormSubmitResponse, Message, PublicUnsubscribeResponse, ResendResponse,
  SubscribeResponse, SubscriptionStatusResponse, UnsubscribeResponse,
} from "./response-schemas.js"

const contactsRead = { apiKey: "contacts:read" } as const
const contactsWrite = { apiKey: "contacts:write" } as const
const suppressionsRead = { apiKey: "suppressions:read" } as const
const suppressionsWrite = { apiKey: "suppressions:write" } as const
const byId = { id: Id }
const byEmail = { email: EmailAddress }

const contactExample = { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace", tags: ["newsletter"] }

const contacts: ReadonlyArray<RouteDescription> = [
  {
    method: "get", path: "/v1/contacts", tag: "Contacts", summary: "List contacts", access: contactsRead,
    query: ContactListParams, success: { status: 200, description: "A page of contacts", schema: Page(ContactResponse) },
    errors: [],
  },
  {
    method: "post", path: "/v1/contacts", tag: "Contacts", summary: "Create a contact", access: contactsWrite,
    body: { schema: CreateContactInput, example: contactExample },
    success: { status: 201, description: "The contact created", schema: Ok(ContactResponse) },
    errors: ["DUPLICATE_CONTACT", "FREE_TIER_CONTACT_LIMIT", "TAG_LIMIT_EXCEEDED"],
  },
  {
    method: "get", path: "/v1/contacts/tags", tag: "Contacts", summary: "List the tags in use", access: contactsRead,
    success: { status: 200, description: "Every tag with its number of contacts", schema: Ok(Schema.Array(TagCount)) }, errors: [],
  },
  {
    method: "post", path: "/v1/contacts/bulk", tag: "Contacts", summary: "Create contacts in bulk", access: contactsWrite,
    body: { schema: BulkCreateInput, example: { contacts: [contactExample] } },
    success: { status: 200, description: "How many were created and skipped", schema: Ok(BulkCreateResponse) },
    errors: ["FREE_TIER_CONTACT_LIMIT"],
  },
  {
    method: "delete", path: "/v1/contacts/bulk", tag: "Contacts", summary: "Delete contacts in bulk", access: contactsWrite,
    body: { schema: BulkDeleteInput }, success: { status: 200, description: "How many were deleted", schema: Ok(BulkDeleteResponse) },
    errors: [],
  },
  {
    method: "get", path: "/v1/contacts/export", tag: "Contacts", summary: "Export contacts as CSV or JSON", access: contactsRead,
    query: ExportParams,
    success: { status: 200, description: "Every matching contact, streamed", contentType: "text/csv", schema: Schema.String },
    alternatives: [{ status: 200, description: "As JSON (format=json)", schema: Schema.Array(ContactResponse) }],
    errors: [],
  },
  {
    method: "post", path: "/v1/contacts/import", tag: "Contacts", summary: "Import contacts from a CSV file",
    access: contactsWrite, errorShape: "plain",
    body: {
      contentType: "multipart/form-data",
      schema: Schema.Struct({
        file: Schema.String.annotations({ format: "binary", description: "The CSV file" }),
        mappings: Schema.optional(Schema.String.annotations({ description: "JSON object: CSV column to contact field" })),
        listId: Schema.optional(Schema.String),
      }),
    },
    success: { status: 200, description: "What was imported", schema: ImportResult }, errors: ["IMPORT_REJECTED"],
  },
  {
    method: "get", path: "/v1/contacts/{id}", tag: "Contacts", summary: "Read a contact", access: contactsRead,
    params: byId, success: { status: 200, description: "The contact", schema: Ok(ContactResponse) },
    errors: ["RESOURCE_NOT_FOUND"],
  },
  {
    method: "patch", path: "/v1/contacts/{id}", tag: "Contacts", summary: "Update a contact", access: contactsWrite,
    params: byId, body: { schema: UpdateContactInput, example: { firstName: "Ada" } },
    success: { status: 200, description: "The contact updated", schema: Ok(ContactResponse) },
    errors: ["RESOURCE_NOT_FOUND", "DUPLICATE_CONTACT", "INVALID_STATUS_TRANSITION", "TAG_LIMIT_EXCEEDED"],
  },
  {
    method: "delete", path: "/v1/contacts/{id}", tag: "Contacts", summary: "Delete a contact", access: contactsWrite,
    params: byId, success: { status: 200, description: "The contact was deleted", schema: Ok(Message) },
    errors: ["RESOURCE_NOT_FOUND"],
  },
  {
    method: "post", path: "/v1/contacts/{id}/tags", tag: "Contacts", summary: "Add tags to a contact",
    access: contactsWrite, params: byId, body: { schema: TagsInput, example: { tags: ["vip"] } },
    success: { status: 200, description: "The contact with its tags", schema: Ok(ContactResponse) },
    errors: ["RESOURCE_NOT_FOUND", "TAG_LIMIT_EXCEEDED"],
  },
  {
    method: "delete", path: "/v1/contacts/{id}/tags/{tag}", tag: "Contacts", summary: "Remove a tag from a contact",
    access: contactsWrite, params: { ...byId, tag: Schema.String },
    success: { status: 200, description: "The contact with its tags", schema: Ok(ContactResponse) },
    errors: ["RESOURCE_NOT_FOUND"],
  },
]

const lists: ReadonlyArray<RouteDescription> = [
  {
    method: "get", path: "/v1/contacts/lists", tag: "Lists", summary: "List contact lists", access: contactsRead,
    query: ListsParams, success: { status: 200, description: "A page of lists", schema: Paginated(ListResponse) }, errors: [],
  },
  {
    method: "post", path: "/v1/contacts/lists", tag: "Lists", summary: "Create a list or segment", access: contactsWrite,
    body: { schema: CreateListInput, example: { name: "Newsletter" } },
    success: { status: 201, description: "The list created", schema: Schema.Struct({ data: ListDetailResponse }) },
    errors: ["TOPIC_NOT_FOUND"],
  },
  {
    method: "get", path: "/v1/contacts/lists/{id}", tag: "Lists", summary: "Read a list", access: contactsRead,
    params: byId, success: { status: 200, description: "The list", schema: Schema.Struct({ data: ListDetailResponse }) },
    errors: ["LIST_NOT_FOUND"],
  },
  {
    method: "patch", path: "/v1/contacts/lists/{id}", tag: "Lists", summary: "Update a list", access: contactsWrite,
    params: byId, body: { schema: UpdateListInput },
    success: { status: 200, description: "The list updated", schema: Schema.Struct({ data: ListDetailResponse }) },
    errors: ["LIST_NOT_FOUND", "TOPIC_NOT_FOUND"],
  },
  {
    method: "delete", path: "/v1/contacts/lists/{id}", tag: "Lists", summary: "Archive a list", access: contactsWrite,
    params: byId, success: { status: 200, description: "Archived", schema: Schema.Struct({ success: Schema.Literal(true) }) },
    errors: ["LIST_NOT_FOUND"],
  },
  {
    method: "get", path: "/v1/contacts/lists/{id}/members", tag: "Lists", summary: "List a list's members",
    access: contactsRead, params: byId, query: MembersParams,
    success: { status: 200, description: "A page of members", schema: Paginated(MemberResponse) }, errors: ["LIST_NOT_FOUND"],
  },
  {
    method: "post", path: "/v1/contacts/lists/{id}/members", tag: "Lists", summary: "Add members to a list",
    access: contactsWrite, params: byId, body: { schema: AddMembersInput },
    success: {
      status: 200, description: "What was added",
      schema: Schema.Struct({ success: Schema.Literal(true), message: Schema.String, data: AddMembersResponse }),
    },
    errors: ["LIST_NOT_FOUND"],
  },
  {
    method: "delete", path: "/v1/contacts/lists/{id}/members", tag: "Lists",
    summary: "Remove members from a list (contactId or email in the query for one, a body for several)",
    access: contactsWrite, params: byId, query: RemoveMemberParams, body: { schema: RemoveMembersInput, required: false },
    success: { status: 200, description: "How many were removed", schema: Ok(RemoveMembersResponse) }, errors: ["LIST_NOT_FOUND", "NOT_A_MEMBER"],
  },
]

const subscriptions: ReadonlyArray<RouteDescription> = [
  {
    method: "post", path: "/v1/subscriptions", tag: "Subscriptions", summary: "Subscribe an address",
    description: "201 when the contact was created, 200 when it existed.", access: contactsWrite,
    body: { schema: SubscribeInput, example: { email: "ada@example.com", firstName: "Ada" } },
    success: { status: 201, description: "Subscribed; the contact was created", schema: Ok(SubscribeResponse) },
    alternatives: [{ status: 200, description: "Subscribed; the contact existed", schema: Ok(SubscribeResponse) }],
    errors: ["LIST_NOT_FOUND", "TOPIC_NOT_FOUND", "RECIPIENT_UNSUBSCRIBED", "RECIPIENT_SUPPRESSED", "CONTACT_BLOCKED", "FREE_TIER_CONTACT_LIMIT"],
  },
  {
    method: "post", path: "/v1/subscriptions/unsubscribe", tag: "Subscriptions", summary: "Unsubscribe an address",
    access: contactsWrite, body: { schema: UnsubscribeInput, example: { email: "ada@example.com", scope: "all" } },
    success: { status: 200, description: "Unsubscribed", schema: Ok(UnsubscribeResponse) },
    errors: ["LIST_NOT_FOUND", "TOPIC_NOT_FOUND"],
  },
  {
    method: "get", path: "/v1/subscriptions/{email}", tag: "Subscriptions", summary: "Read an address's subscription status",
    access: contactsRead, params: byEmail,
    success: { status: 200, description: "The status", schema: Ok(SubscriptionStatusResponse) }, errors: [],
  },
  {
    method: "patch", path: "/v1/subscriptions/{email}", tag: "Subscriptions", summary: "Change an address's subscriptions",
    access: contactsWrite, params: byEmail, body: { schema: UpdateSubscriptionInput },
    success: { status: 200, description: "The status after the change", schema: Ok(SubscriptionStatusResponse) },
    errors: ["CONTACT_NOT_FOUND", "LIST_NOT_FOUND", "TOPIC_NOT_FOUND", "RECIPIENT_SUPPRESSED", "CONTACT_BLOCKED"],
  },
  {
    method: "post", path: "/v1/subscriptions/{email}/resend-confirmation", tag: "Subscriptions",
    summary: "Send the confirmation mail again", access: contactsWrite, params: byEmail,
    success: { status: 200, description: "Sent", schema: Ok(ResendResponse) },
    errors: ["CONTACT_NOT_FOUND", "NO_PENDING_CONFIRMATION", "TEMPLATE_NOT_FOUND", "TEMPLATE_NOT_PUBLISHED", "TEMPLATE_RETIRED"],
  },
]

const suppressions: ReadonlyArray<RouteDescription> = [
  {
    method: "get", path: "/v1/suppressions", tag: "Suppressions", summary: "List suppressions", access: suppressionsRead,
    query: SuppressionsParams, success: { status: 200, description: "A page of suppressions", schema: Page(SuppressionResponse) },
    errors: [],
  },
  {
    method: "post", path: "/v1/suppressions", tag: "Suppressions", summary: "Suppress an address", access: suppressionsWrite,
    body: { schema: AddSuppressionInput, example: { email: "ada@example.com", reason: "Manual" } },
    success: { status: 201, description: "The suppression", schema: Ok(SuppressionResponse) }, errors: [],
  },
  {
    method: "post", path: "/v1/suppressions/bulk", tag: "Suppressions", summary: "Add or remove suppressions in bulk",
    access: suppressionsWrite, body: { schema: BulkSuppressionInput },
    success: { status: 200, description: "What changed", schema: Ok(BulkSuppressionResponse) }, errors: [],
  },
  {
    method: "get", path: "/v1/suppressions/{email}", tag: "Suppressions", summary: "Read an address's suppression",
    access: suppressionsRead, params: byEmail,
    success: { status: 200, description: "The suppression", schema: Ok(SuppressionResponse) }, errors: ["RESOURCE_NOT_FOUND"],
  },
  {
    method: "delete", path: "/v1/suppressions/{email}", tag: "Suppressions", summary: "Remove an address's suppression",
    access: suppressionsWrite, params: byEmail,
    success: { status: 200, description: "Removed", schema: Ok(SuppressionRemoved) }, errors: ["RESOURCE_NOT_FOUND"],
  },
]

/** The member routes of a topic, at …/members and at the older …/suppressions. */
const topicMembers = (path: "members" | "suppressions"): ReadonlyArray<RouteDescription> => [
  {
    method: "get", path: `/v1/suppression-groups/{id}/${path}`, tag: "Topics", summary: "List a topic's opt-outs",
    access: suppressionsRead, params: byId, query: TopicMembersParams,
    success: { status: 200, description: "A page of opt-outs", schema: Page(OptOutResponse) }, errors: ["RESOURCE_NOT_FOUND"],
  },
  {
    method: "post", path: `/v1/suppression-groups/{id}/${path}/bulk`, tag: "Topics", summary: "Opt addresses in or out in bulk",
    access: suppressionsWrite, params: byId, body: { schema: TopicBulkInput },
    success: { status: 200, description: "What changed", schema: Ok(TopicBulkResponse) }, errors: ["RESOURCE_NOT_FOUND"],
  },
  {
    method: "post", path: `/v1/suppression-groups/{id}/${path}`, tag: "Topics", summary: "Opt an address out of a topic",
    access: suppressionsWrite, params: byId, body: { schema: TopicMemberInput, example: { email: "ada@example.com" } },
    success: { status: 201, description: "Opted out; `added` is false when it already was", schema: Ok(TopicOptedOut) }, errors: ["RESOURCE_NOT_FOUND"],
  },
  {
    method: "delete", path: `/v1/suppression-groups/{id}/${path}/{email}`, tag: "Topics",
    summary: "Opt an address back in to a topic", access: suppressionsWrite, params: { ...byId, ...byEmail },
    success: { status: 200, description: "Opted back in; `removed` is false when it was not opted out", schema: Ok(TopicOptedIn) }, errors: ["RESOURCE_NOT_FOUND"],
  },
]

const topics: ReadonlyArray<RouteDescription> = [
  {
    method: "get", path: "/v1/suppression-groups", tag: "Topics", summary: "List topics", access: suppressionsRead,
    query: TopicsParams, success: { status: 200, description: "A page of topics", schema: Page(TopicResponse) }, errors: [],
  },
  {
    method: "post", path: "/v1/suppression-groups", tag: "Topics", summary: "Create a topic", access: suppressionsWrite,
    body: { schema: CreateTopicInput, example: { name: "Product news" } },
    success: { status: 201, description: "The topic", schema: Ok(TopicResponse) }, errors: ["DUPLICATE_TOPIC"],
  },
  {
    method: "get", path: "/v1/suppression-groups/{id}", tag: "Topics", summary: "Read a topic", access: suppressionsRead,
    params: byId, success: { status: 200, description: "The topic", schema: Ok(TopicResponse) }, errors: ["RESOURCE_NOT_FOUND"],
  },
  {
    method: "patch", path: "/v1/suppression-groups/{id}", tag: "Topics", summary: "Update a topic", access: suppressionsWrite,
    params: byId, body: { schema: UpdateTopicInput },
    success: { status: 200, description: "The topic", schema: Ok(TopicResponse) }, errors: ["RESOURCE_NOT_FOUND", "DUPLICATE_TOPIC"],
  },
  {
    method: "delete", path: "/v1/suppression-groups/{id}", tag: "Topics", summary: "Delete a topic", access: suppressionsWrite,
    params: byId, success: { status: 200, description: "Deleted", schema: Ok(Deleted) }, errors: ["RESOURCE_NOT_FOUND"],
  },
  ...topicMembers("members"),
  ...topicMembers("suppressions"),
]

const forms: ReadonlyArray<RouteDescription> = [
  {
    method: "get", path: "/v1/forms", tag: "Forms", summary: "List signup forms", access: contactsWrite, query: FormsParams,
    success: { status: 200, description: "A page of forms", schema: Page(FormResponse) }, errors: [],
  },
  {
    method: "post", path: "/v1/forms", tag: "Forms", summary: "Create a signup form", access: contactsWrite,
    body: { schema: CreateFormInput, example: { name: "Footer signup", allowedOrigins: ["https://example.com"] } },
    success: { status: 201, description: "The form", schema: Ok(FormResponse) },
    errors: ["LIST_NOT_FOUND", "TOPIC_NOT_FOUND", "TEMPLATE_NOT_FOUND", "TEMPLATE_NOT_PUBLISHED", "TEMPLATE_RETIRED"],
  },
  {
    method: "get", path: "/v1/forms/{id}", tag: "Forms", summary: "Read a signup form", access: contactsWrite, params: byId,
    success: { status: 200, description: "The form", schema: Ok(FormResponse) }, errors: ["RESOURCE_NOT_FOUND"],
  },
  {
    method: "patch", path: "/v1/forms/{id}", tag: "Forms", summary: "Update a signup form", access: contactsWrite,
    params: byId, body: { schema: UpdateFormInput },
    success: { status: 200, description: "The form", schema: Ok(FormResponse) },
    errors: ["RESOURCE_NOT_FOUND", "LIST_NOT_FOUND", "TOPIC_NOT_FOUND", "TEMPLATE_NOT_FOUND", "TEMPLATE_NOT_PUBLISHED", "TEMPLATE_RETIRED"],
  },
  {
    method: "delete", path: "/v1/forms/{id}", tag: "Forms", summary: "Delete a signup form", access: contactsWrite,
    params: byId, success: { status: 200, description: "Deleted", schema: Ok(Deleted) }, errors: ["RESOURCE_NOT_FOUND"],
  },
  {
    method: "options", path: "/v1/forms/{id}/submit", tag: "Forms", summary: "CORS preflight of a form submission",
    access: "public", params: byId,
    success: { status: 204, description: "The origin is allowed" },
    alternatives: [{ status: 403, description: "The origin is not allowed: no CORS headers" }],
    errors: [],
  },
  {
    method: "post", path: "/v1/forms/{id}/submit", tag: "Forms", summary: "Submit a signup form",
    description: "Public. JSON, urlencoded or multipart fields named as the form's fields. Answers JSON when the request " +
      "asks for it (Accept: application/json or a JSON body), else redirects.",
    access: "public", params: byId,
    body: { schema: Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean) }), example: { email: "ada@example.com" } },
    success: { status: 200, description: "Submitted (JSON)", schema: FormSubmitResponse },
    alternatives: [{ status: 303, description: "Submitted: redirect to the form's success page", headers: { location: "The page to show" } }],
    errors: ["RESOURCE_NOT_FOUND", "ORIGIN_NOT_ALLOWED", "RECIPIENT_SUPPRESSED", "CONTACT_BLOCKED", "FREE_TIER_CONTACT_LIMIT"],
  },
]

const consent: ReadonlyArray<RouteDescription> = [
  {
    method: "post", path: "/v1/unsubscribe", tag: "Consent links", summary: "Unsubscribe with the token of a mail's link",
    access: "public", body: { schema: PublicUnsubscribeBody, example: { token: "<token of the unsubscribe link>" } },
    success: { status: 200, description: "Unsubscribed", schema: PublicUnsubscribeResponse }, errors: ["INVALID_TOKEN"],
  },
  {
    method: "post", path: "/v1/unsubscribe/one-click", tag: "Consent links", summary: "RFC 8058 one-click unsubscribe",
    access: "public",
    body: { contentType: "application/x-www-form-urlencoded", schema: Schema.Struct({ "List-Unsubscribe": Schema.Literal("One-Click") }) },
    success: { status: 200, description: "Received", schema: PublicUnsubscribeResponse }, errors: ["VALIDATION_ERROR"],
  },
  {
    method: "get", path: "/v1/unsubscribe/one-click", tag: "Consent links", summary: "Redirect to the unsubscribe page",
    description: "A GET never unsubscribes: it sends the person to the page that asks.",
    access: "public",
    success: { status: 303, description: "Redirect to /u/{token}", headers: { location: "The unsubscribe page" } },
    errors: ["VALIDATION_ERROR"],
  },
]

export const audienceRoutes: ReadonlyArray<RouteDescription> = [
  ...contacts, ...lists, ...subscriptions, ...suppressions, ...topics, ...forms, ...consent,
]
