/** /v1/subscriptions: subscribe, unsubscribe, the subscription status and its PATCH, and resend-confirmation. Spec:
 *  audience "Subscriptions". Answers { success, data }. The Subscriptions service decodes the bodies itself (unknown
 *  fields refused); addresses in the path are URL-encoded once, and one that does not decode to a valid address
 *  (double-encoded, say) is a VALIDATION_ERROR naming `email`. The client address recorded as consent evidence is
 *  the one the router resolved (trusted proxies only: docs/embedding.md). */
import {
  type SubscribeInput, Subscriptions, type UnsubscribeInput, type UpdateSubscriptionInput,
} from "@mailroom/core"
import { Effect } from "effect"
import { Hono } from "hono"
import { requireScope } from "../auth.js"
import type { MailroomEnv } from "../env.js"
import { ok } from "../envelope.js"
import { readJson } from "../validation.js"

const read = requireScope("contacts:read")
const write = requireScope("contacts:write")

export const subscriptionRoutes = new Hono<MailroomEnv>()
  .post("/subscriptions", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* readJson<typeof SubscribeInput.Encoded>(c)
      const subscriptions = yield* Subscriptions
      const result = yield* subscriptions.subscribe(c.get("account"), body, { clientAddress: c.get("clientAddress") })
      return c.json(ok(result), result.created ? 201 : 200)
    })))
  .post("/subscriptions/unsubscribe", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* readJson<typeof UnsubscribeInput.Encoded>(c)
      const subscriptions = yield* Subscriptions
      return c.json(ok(yield* subscriptions.unsubscribe(c.get("account"), body, { method: "api" })))
    })))
  .get("/subscriptions/:email", read, (c) =>
    c.get("run")(Effect.gen(function* () {
      const subscriptions = yield* Subscriptions
      return c.json(ok(yield* subscriptions.status(c.get("account"), c.req.param("email"))))
    })))
  .patch("/subscriptions/:email", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const body = yield* readJson<typeof UpdateSubscriptionInput.Encoded>(c)
      const subscriptions = yield* Subscriptions
      const status = yield* subscriptions.update(c.get("account"), c.req.param("email"), body, {
        clientAddress: c.get("clientAddress"),
        channel: "api",
      })
      return c.json(ok(status))
    })))
  .post("/subscriptions/:email/resend-confirmation", write, (c) =>
    c.get("run")(Effect.gen(function* () {
      const subscriptions = yield* Subscriptions
      return c.json(ok(yield* subscriptions.resendConfirmation(c.get("account"), c.req.param("email"), { via: "api" })))
    })))
