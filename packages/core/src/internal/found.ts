/** The lookups of a row by id that fail when there is none: one account's row of that id, another account's id
 *  answering as if it did not exist. */
import { Effect, Option } from "effect"
import { ResourceNotFound } from "../errors.js"

/** The value an Option lookup found, or the failure `missing` makes when it found none. */
export const orFailWith = <E>(missing: () => E) =>
  <A, E2, R>(lookup: Effect.Effect<Option.Option<A>, E2, R>): Effect.Effect<A, E | E2, R> =>
    Effect.flatMap(lookup, Option.match({ onNone: () => Effect.fail(missing()), onSome: Effect.succeed }))

/** The value an Option lookup found, or RESOURCE_NOT_FOUND naming `resource` and `id`. */
export const orNotFound = (resource: string, id: string) => orFailWith(() => new ResourceNotFound({ resource, id }))
