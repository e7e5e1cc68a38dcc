/** The unsubscribe link of mail and POST /unsubscribe: which scope and which list or topic a request leaves. Spec:
 *  audience "Public unsubscribe endpoints" (scope in any case and the legacy `category` for topic, as
 *  UnsubscribeScopeInput reads it; the legacy `suppressionGroupId` for topicId), "Versioning"; CONTRACT.md "Streams
 *  and links in mail". */
import { Effect, Schema } from "effect"
import { ValidationFailed } from "../errors.js"
import { type UnsubscribeScope, UnsubscribeScopeInput } from "./subscription.js"
import type { TokenClaims } from "./token.js"

/** POST /unsubscribe's body. `suppressionGroupId` and `category` are legacy names of `topicId`. Unknown fields, a
 *  bare `contactId` among them, are refused. */
export const PublicUnsubscribeBody = Schema.Struct({
  token: Schema.String.pipe(Schema.minLength(1, { message: () => "is required" })),
  scope: Schema.optional(UnsubscribeScopeInput),
  listId: Schema.optional(Schema.String),
  topicId: Schema.optional(Schema.String),
  suppressionGroupId: Schema.optional(Schema.String),
  category: Schema.optional(Schema.String),
  reason: Schema.optional(Schema.String.pipe(Schema.maxLength(500, { message: () => "is at most 500 characters" }))),
})

/** Which topic id the body names, under any of its three names; they must agree when several are sent. */
export const topicOf = (body: typeof PublicUnsubscribeBody.Type): Effect.Effect<string | undefined, ValidationFailed> => {
  const named = (["topicId", "suppressionGroupId", "category"] as const).filter((field) => body[field] !== undefined)
  const values = new Set(named.map((field) => body[field]))
  if (values.size > 1) {
    return Effect.fail(new ValidationFailed({
      field: named[1]!,
      detail: `names another topic than ${named[0]}; send one of topicId, suppressionGroupId, category`,
    }))
  }
  return Effect.succeed(named.length === 0 ? undefined : body[named[0]!])
}

/** The scope and its id for an unsubscribe: the body's, or else the list or topic the token names. */
export const scopeOf = (scope: UnsubscribeScope, listId: string | undefined, topicId: string | undefined) => {
  if (scope === "list" && listId === undefined) {
    return Effect.fail(new ValidationFailed({ field: "listId", detail: "is required when scope is list" }))
  }
  if (scope === "topic" && topicId === undefined) {
    return Effect.fail(new ValidationFailed({ field: "topicId", detail: "is required when scope is topic" }))
  }
  return Effect.succeed({
    scope,
    listId: scope === "list" ? listId! : null,
    topicId: scope === "topic" ? topicId! : null,
  })
}

/** What the token of an unsubscribe link makes the recipient leave: its topic, else its list, else everything. */
export const linkScope = (claims: TokenClaims) =>
  claims.t !== undefined ? { scope: "topic" as const, listId: null, topicId: claims.t }
  : claims.l !== undefined ? { scope: "list" as const, listId: claims.l, topicId: null }
  : { scope: "all" as const, listId: null, topicId: null }
