/** The plan's cap on ACTIVE contacts (the Free plan's 100), shared by every service that can activate contacts. */
import { type Context, Effect } from "effect"
import { type Account, type ActiveRoom, planLimits } from "../domain/account.js"
import type { StoreError } from "../errors.js"
import type { Store } from "../ports/store.js"

/** The account's room under its plan's cap, or undefined when the plan has none. Locks the account first, inside the
 *  caller's transaction, so that concurrent writers cannot both take the last place. */
export const activeRoom = (
  store: Context.Tag.Service<typeof Store>,
  account: Account,
): Effect.Effect<ActiveRoom | undefined, StoreError> => {
  const limit = planLimits[account.plan].activeContacts
  if (limit === null) return Effect.succeed(undefined)
  return store.accounts.lock(account.id).pipe(
    Effect.zipRight(store.contacts.countActive(account.id)),
    Effect.map((active) => ({ room: Math.max(0, limit - active), limit })),
  )
}
