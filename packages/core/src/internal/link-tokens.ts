/** The account and recipient that a mail link's signed token names, for the services behind the public link routes
 *  (unsubscribe and confirmation links). */
import { Effect } from "effect"
import type { Account } from "../domain/account.js"
import { type EmailAddress, parseEmail } from "../domain/email.js"
import type { TokenClaims } from "../domain/token.js"
import { InvalidToken } from "../errors.js"
import { Accounts } from "../services/accounts.js"
import { Tokens } from "../services/tokens.js"

/** What a verified token resolves to: the account it names and the recipient's address. */
export interface ResolvedToken {
  readonly account: Account
  readonly email: EmailAddress
  readonly claims: TokenClaims
}

export const linkTokens = Effect.gen(function* () {
  const accounts = yield* Accounts
  const tokens = yield* Tokens

  /** The account and address of a token's claims, or INVALID_TOKEN naming an account or address that does not exist. */
  const resolveClaims = (claims: TokenClaims) =>
    Effect.gen(function* () {
      const account = yield* accounts.get(claims.a).pipe(
        Effect.catchTag("ResourceNotFound", () => Effect.fail(new InvalidToken({ detail: "the link matches no account" }))),
      )
      const email = parseEmail(claims.r)
      if (email === undefined) return yield* Effect.fail(new InvalidToken({ detail: "the link matches no address" }))
      return { account, email, claims } satisfies ResolvedToken
    })

  /** The account and recipient of a genuine, unexpired token of `purpose`, or INVALID_TOKEN: forged, malformed,
   *  truncated, expired, of another purpose, or naming an account or address that does not exist (unmatched). */
  const resolveToken = (purpose: "unsubscribe" | "confirm", token: string) =>
    Effect.flatMap(tokens.verify(purpose, token), resolveClaims)

  return { resolveClaims, resolveToken } as const
})
