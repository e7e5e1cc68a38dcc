/** /v1/contacts/lists: lists, their members and dynamic segments. Spec: audience "Contact lists". List routes answer
 *  { data } (pages add pagination); the member writes also carry success. An id of another account answers 404
 *  LIST_NOT_FOUND (the service scopes by account). */
import {
  type AddMembersInput, type AddMembersResult, type CreateListInput, EmailAddress, type ListDetails, type ListMember,
  Lists, ListsParams, type ListWithCount, MembersParams, pagination, type RemoveMembersInput, type UpdateListInput,
} from "@mailroom/core"
import { Effect, Schema } from "effect"
import { Hono } from "hono"
import { requireScope } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { paginatedEnvelope } from "../envelope.js"
import { decodeQuery, readJson } from "../validation.js"

/** DELETE members for a single member: contactId or email in the query string. */
export const RemoveMemberParams = Schema.Struct({
  contactId: Schema.optional(Schema.NonEmptyString),
  email: Schema.optional(EmailAddress),
})

/** A list as the API answers it: the fields of the spec's Contact list table, dates as ISO 8601 strings. */
export const ListResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  type: Schema.String,
  segmentRules: Schema.NullOr(Schema.Unknown),
  suppressionGroupId: Schema.NullOr(Schema.String),
  trackingEnabled: Schema.Boolean,
  contactCount: Schema.Number,
  isArchived: Schema.Boolean,
  createdAt: Schema.Date,
  updatedAt: Schema.Date,
  lastSyncedAt: Schema.NullOr(Schema.Date),
})

/** The single-list read adds the list's topic and its membership rows. */
export const ListDetailResponse = Schema.Struct({
  ...ListResponse.fields,
  suppressionGroup: Schema.NullOr(Schema.Struct({
    id: Schema.String,
    name: Schema.String,
    publicLabel: Schema.NullOr(Schema.String),
  })),
  _count: Schema.Struct({ members: Schema.Number }),
})

export const MemberResponse = Schema.Struct({
  id: Schema.String,
  contactId: Schema.String,
  contact: Schema.Struct({
    id: Schema.String,
    email: Schema.String,
    firstName: Schema.NullOr(Schema.String),
    lastName: Schema.NullOr(Schema.String),
    status: Schema.String,
    subscribedAt: Schema.Date,
    createdAt: Schema.Date,
  }),
  addedAt: Schema.Date,
  removedAt: Schema.NullOr(Schema.Date),
  suppressionStatuses: Schema.Array(Schema.String),
})

/** `data` of POST members. */
export const AddMembersResponse = Schema.Struct({
  added: Schema.Number,
  alreadyMembers: Schema.Number,
  notFound: Schema.Array(Schema.String),
  blocked: Schema.Array(Schema.Struct({ email: Schema.String, reason: Schema.String })),
})

// A failure to encode is a bug in stored data, not bad input: it dies.
const encodeList = ({ list, contactCount }: ListWithCount) =>
  Schema.encode(ListResponse)({ ...list, contactCount }).pipe(Effect.orDie)

const encodeDetails = (details: ListDetails) =>
  Schema.encode(ListDetailResponse)({
    ...details.list,
    contactCount: details.contactCount,
    suppressionGroup: details.suppressionGroup,
    _count: { members: details.memberRows },
  }).pipe(Effect.orDie)

const encodeMembers = (members: ReadonlyArray<ListMember>) =>
  Schema.encode(Schema.Array(MemberResponse))(members).pipe(Effect.orDie)

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`

/** The legacy `message` of POST members: what happened, in one sentence. */
const addMessage = (result: AddMembersResult) =>
  [
    `${plural(result.added, "member", "members")} added`,
    ...(result.alreadyMembers > 0 ? [`${result.alreadyMembers} already ${result.alreadyMembers === 1 ? "a member" : "members"}`] : []),
    ...(result.notFound.length > 0 ? [`${result.notFound.length} not found`] : []),
    ...(result.blocked.length > 0 ? [`${result.blocked.length} blocked`] : []),
  ].join(", ")

const read = requireScope("contacts:read")
const write = requireScope("contacts:write")

export const listRoutes = new Hono<MailroomEnv>()
  .get("/contacts/lists", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const params = yield* decodeQuery(c, ListsParams)
      const lists = yield* Lists
      const page = yield* lists.list(c.get("account"), params)
      return c.json(paginatedEnvelope(yield* Effect.forEach(page.lists, encodeList), params, page.total))
    })))
  .post("/contacts/lists", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* readJson<typeof CreateListInput.Encoded>(c)
      const lists = yield* Lists
      return c.json({ data: yield* encodeDetails(yield* lists.create(c.get("account"), body)) }, 201)
    })))
  .get("/contacts/lists/:id", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const lists = yield* Lists
      return c.json({ data: yield* encodeDetails(yield* lists.get(c.get("account"), c.req.param("id"))) })
    })))
  .patch("/contacts/lists/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* readJson<typeof UpdateListInput.Encoded>(c)
      const lists = yield* Lists
      return c.json({ data: yield* encodeDetails(yield* lists.update(c.get("account"), c.req.param("id"), body)) })
    })))
  .delete("/contacts/lists/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const lists = yield* Lists
      yield* lists.archive(c.get("account"), c.req.param("id"))
      return c.json({ success: true })
    })))
  .get("/contacts/lists/:id/members", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const params = yield* decodeQuery(c, MembersParams)
      const lists = yield* Lists
      const page = yield* lists.members(c.get("account"), c.req.param("id"), params)
      return c.json({
        data: yield* encodeMembers(page.members),
        counts: page.counts,
        pagination: pagination(params, page.total),
      })
    })))
  .post("/contacts/lists/:id/members", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* readJson<typeof AddMembersInput.Encoded>(c)
      const lists = yield* Lists
      const result = yield* lists.addMembers(c.get("account"), c.req.param("id"), body)
      return c.json({
        success: true,
        data: yield* Schema.encode(AddMembersResponse)(result).pipe(Effect.orDie),
        added: result.added,
        skipped: result.alreadyMembers,
        message: addMessage(result),
      })
    })))
  // A single member may be named in the query (contactId or email) instead of the body.
  .delete("/contacts/lists/:id/members", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const single = yield* decodeQuery(c, RemoveMemberParams)
      const input: typeof RemoveMembersInput.Encoded = single.contactId !== undefined || single.email !== undefined
        ? {
          ...(single.contactId !== undefined ? { contactIds: [single.contactId] } : {}),
          ...(single.email !== undefined ? { emails: [single.email] } : {}),
        }
        : yield* readJson<typeof RemoveMembersInput.Encoded>(c)
      const lists = yield* Lists
      return c.json({ success: true, data: yield* lists.removeMembers(c.get("account"), c.req.param("id"), input) })
    })))

export { ListsParams, MembersParams } from "@mailroom/core"
