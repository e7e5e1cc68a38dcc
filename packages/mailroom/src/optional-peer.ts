/** Loading the optional peers of the facade. Postgres (@mailroom/postgres, with pg and pg-boss) is installed only by
 *  the hosts that use it, and loaded only when `database` names it; a host that configures it without installing it
 *  gets an error naming the package to install, rather than Node's "Cannot find package". */

/** A package the configuration needs is not installed. */
export class MissingPeerError extends Error {
  override readonly name = "MissingPeerError"
  constructor(
    /** The package to install. */
    readonly packageName: string,
    /** What needs it, as the configuration says it (`DATABASE_URL postgres://…`). */
    readonly neededFor: string,
  ) {
    super(`${neededFor} needs the package ${packageName}, which is not installed: run npm install ${packageName}`)
  }
}

/** An optional peer: the package a host installs, and how the facade imports it. */
export interface OptionalPeer<M> {
  readonly packageName: string
  readonly load: () => Promise<M>
}

/** The package Node could not find, from an ERR_MODULE_NOT_FOUND error ("Cannot find package 'pg' imported from …"). */
const missingPackage = (error: unknown): string | undefined => {
  if ((error as { code?: unknown } | null)?.code !== "ERR_MODULE_NOT_FOUND") return undefined
  const message = error instanceof Error ? error.message : String(error)
  return /Cannot find (?:package|module) '((?:@[^/']+\/)?[^/']+)/.exec(message)?.[1]
}

/** Imports `peer`. When it, or a package it imports, is not installed, rejects with MissingPeerError naming that
 *  package; any other failure is passed on as it is. */
export const importOptionalPeer = async <M>(peer: OptionalPeer<M>, neededFor: string): Promise<M> => {
  try {
    return await peer.load()
  } catch (error) {
    const missing = missingPackage(error)
    if (missing === undefined) throw error
    // Node's own error is left out: its message says less, and hosts print the innermost cause of a failure.
    throw new MissingPeerError(missing, neededFor)
  }
}

/** The Postgres backend and its shared rate limits. */
export const postgresPeer: OptionalPeer<typeof import("@mailroom/postgres")> = {
  packageName: "@mailroom/postgres",
  load: () => import("@mailroom/postgres"),
}

export const postgresRateLimitsPeer: OptionalPeer<typeof import("@mailroom/postgres/rate-limits")> = {
  packageName: "@mailroom/postgres",
  load: () => import("@mailroom/postgres/rate-limits"),
}

/** How the configuration names Postgres, for MissingPeerError: the scheme only, as the URL may hold a password. */
export const postgresNeededFor = "a postgres:// database"
