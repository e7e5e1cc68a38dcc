/** /v1/suppression-groups: topics and their opt-outs, with the older …/suppressions paths. Spec: audience "Topics
 *  (suppression groups)". Answers { success, data } (pages add meta). An unknown or foreign topic id answers 404
 *  RESOURCE_NOT_FOUND. The member routes only edit the group. */
import {
  CreateTopicInput, EmailAddress, limitParam, PageParam, suppressionLimits, type Topic, topicLimits, TopicMemberInput,
  type TopicOptOut, Topics, type TopicWithCount, UpdateTopicInput,
} from "@mailroom/core"
import { Effect, Schema } from "effect"
import { Hono } from "hono"
import { requireScope } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { ok, pageEnvelope } from "../envelope.js"
import { decodeJson, decodeQuery } from "../validation.js"
import { emailParam } from "./suppressions.js"

/** GET /suppression-groups: page, limit 1-100 (default 25), published true|false. */
export const TopicsParams = Schema.Struct({
  page: Schema.optionalWith(PageParam, { default: () => 1 }),
  limit: Schema.optionalWith(limitParam(topicLimits.maxPageSize), { default: () => topicLimits.pageSize }),
  published: Schema.optionalWith(Schema.BooleanFromString, { default: () => false }),
})

/** GET …/members: page, limit 1-100 (default 50). */
export const TopicMembersParams = Schema.Struct({
  page: Schema.optionalWith(PageParam, { default: () => 1 }),
  limit: Schema.optionalWith(limitParam(topicLimits.maxPageSize), { default: () => topicLimits.memberPageSize }),
})

/** Body of the older POST …/suppressions/bulk: opt many addresses out (add) or back in (remove). */
export const TopicBulkInput = Schema.Struct({
  action: Schema.Literal("add", "remove"),
  emails: Schema.Array(EmailAddress).pipe(
    Schema.minItems(1, { message: () => "emails must hold at least one address" }),
    Schema.maxItems(suppressionLimits.bulk, { message: () => `emails holds at most ${suppressionLimits.bulk} addresses` }),
  ),
})

export const TopicResponse = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  isDefault: Schema.Boolean,
  publicLabel: Schema.NullOr(Schema.String),
  publicDescription: Schema.NullOr(Schema.String),
  isPublishedOnUnsub: Schema.Boolean,
  sortOrder: Schema.Number,
  createdAt: Schema.Date,
  updatedAt: Schema.Date,
  _count: Schema.Struct({ members: Schema.Number }),
})

export const OptOutResponse = Schema.Struct({ email: Schema.String, createdAt: Schema.Date })

const encodeTopic = ({ topic, optOuts }: TopicWithCount) =>
  Schema.encode(TopicResponse)({ ...topic, _count: { members: optOuts } }).pipe(Effect.orDie)
const encodeOptOuts = (optOuts: ReadonlyArray<TopicOptOut>) =>
  Schema.encode(Schema.Array(OptOutResponse))(optOuts).pipe(Effect.orDie)

const read = requireScope("suppressions:read")
const write = requireScope("suppressions:write")

type Routes = Hono<MailroomEnv>

/** The member routes, mounted at …/members and at the older …/suppressions. */
const memberRoutes = (routes: Routes, path: "members" | "suppressions"): Routes =>
  routes
    .get(`/suppression-groups/:id/${path}`, read, (c) =>
      c.get("run")(Effect.gen(function* () {
        const params = yield* decodeQuery(c, TopicMembersParams)
        const topics = yield* Topics
        const page = yield* topics.members(c.get("account"), c.req.param("id"), params)
        return c.json(pageEnvelope(yield* encodeOptOuts(page.optOuts), params, page.total))
      })))
    .post(`/suppression-groups/:id/${path}/bulk`, write, (c) =>
      c.get("run")(Effect.gen(function* () {
        const body = yield* decodeJson(c, TopicBulkInput)
        const topics = yield* Topics
        return c.json(ok(yield* topics.bulkMembers(c.get("account"), c.req.param("id"), body)))
      })))
    .post(`/suppression-groups/:id/${path}`, write, (c) =>
      c.get("run")(Effect.gen(function* () {
        const body = yield* decodeJson(c, TopicMemberInput)
        const topics = yield* Topics
        return c.json(ok(yield* topics.addMember(c.get("account"), c.req.param("id"), body.email)), 201)
      })))
    .delete(`/suppression-groups/:id/${path}/:email`, write, (c) =>
      c.get("run")(Effect.gen(function* () {
        const { email } = yield* emailParam(c.req.param("email"))
        const topics = yield* Topics
        return c.json(ok(yield* topics.removeMember(c.get("account"), c.req.param("id"), email)))
      })))

const topicRoutesBase: Routes = new Hono<MailroomEnv>()
  .get("/suppression-groups", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const params = yield* decodeQuery(c, TopicsParams)
      const topics = yield* Topics
      const page = yield* topics.list(c.get("account"), params)
      return c.json(pageEnvelope(yield* Effect.forEach(page.topics, encodeTopic), params, page.total))
    })))
  .post("/suppression-groups", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, CreateTopicInput)
      const topics = yield* Topics
      return c.json(ok(yield* encodeTopic(yield* topics.create(c.get("account"), body))), 201)
    })))
  .get("/suppression-groups/:id", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const topics = yield* Topics
      return c.json(ok(yield* encodeTopic(yield* topics.get(c.get("account"), c.req.param("id")))))
    })))
  .patch("/suppression-groups/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* decodeJson(c, UpdateTopicInput)
      const topics = yield* Topics
      return c.json(ok(yield* encodeTopic(yield* topics.update(c.get("account"), c.req.param("id"), body))))
    })))
  .delete("/suppression-groups/:id", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const topics = yield* Topics
      const topic: Topic = yield* topics.remove(c.get("account"), c.req.param("id"))
      return c.json(ok({ id: topic.id, deleted: true }))
    })))

export const topicRoutes: Routes = memberRoutes(memberRoutes(topicRoutesBase, "members"), "suppressions")
