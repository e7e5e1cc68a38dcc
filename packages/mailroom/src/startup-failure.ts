// The one line the starter and the `mailroom` command print when Mailroom cannot open its database: the cause, found
// in the error's chain of causes, and what to change. The whole error is printed only with LOG_LEVEL=debug.
import { displayDatabase } from "./environment.js"

/** The error and its causes, outermost first. */
const causesOf = (error: unknown): ReadonlyArray<unknown> => {
  const chain: Array<unknown> = []
  for (let current = error; current !== undefined && current !== null && chain.length < 10; ) {
    chain.push(current)
    current = (current as { cause?: unknown }).cause
  }
  return chain
}

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === "string" ? code : undefined
}

const messageOf = (error: unknown): string => error instanceof Error ? error.message : String(error)

/** Host, port, database and user of a postgres:// URL, for messages (the password is never repeated). */
const postgresParts = (database: string) => {
  const url = new URL(database)
  return {
    server: `${url.hostname}:${url.port === "" ? "5432" : url.port}`,
    name: decodeURIComponent(url.pathname.slice(1)) || decodeURIComponent(url.username) || "postgres",
  }
}

/** What went wrong and what to change, from the innermost cause the starter knows. */
const advice = (database: string, error: unknown): string => {
  const causes = causesOf(error)
  const known = causes.find((cause) => codeOf(cause) !== undefined && codeOf(cause) !== "INTERNAL_ERROR")
  const code = codeOf(known)
  const isPostgres = /^postgres(ql)?:\/\//.test(database)
  if (isPostgres && code !== undefined) {
    const { server, name } = postgresParts(database)
    switch (code) {
      case "3D000":
        return `the database "${name}" does not exist on ${server}: create it (createdb ${name}) or name an existing one in DATABASE_URL`
      case "28P01":
      case "28000":
        return `PostgreSQL on ${server} refused the user or password: correct them in DATABASE_URL`
      case "ECONNREFUSED":
        return `nothing accepts connections at ${server}: start PostgreSQL there, or correct the host and port in DATABASE_URL`
      case "ENOTFOUND":
      case "EAI_AGAIN":
        return `the host ${server.replace(/:\d+$/, "")} is unknown: correct the host in DATABASE_URL`
      case "ETIMEDOUT":
      case "EHOSTUNREACH":
      case "ENETUNREACH":
        return `${server} cannot be reached (${code}): check the host and port in DATABASE_URL and the network`
    }
  }
  const innermost = causes.at(-1)
  return `${messageOf(innermost)}: check DATABASE_URL (LOG_LEVEL=debug prints the whole error)`
}

/** One line naming why Mailroom could not open `database`, and what to change. */
export const startupFailureLine = (database: string, error: unknown): string =>
  `Mailroom could not open ${displayDatabase(database)}: ${advice(database, error)}`
