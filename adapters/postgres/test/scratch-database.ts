/** A database of its own for a test that needs an empty schema or a particular locale, dropped when the scope closes. */
import { Effect } from "effect"
import pg from "pg"

const admin = async <A>(url: string, f: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

/** Creates an empty database on the server of `serverUrl` and answers its URL. `icuLocale` makes its default
 *  collation that ICU locale (the usual setup of a production server) instead of the server's default. */
export const scratchDatabase = (serverUrl: string, options: { readonly icuLocale?: string } = {}) => {
  const name = `mailroom_scratch_${Date.now()}_${Math.floor(Math.random() * 1e9)}`
  const locale = options.icuLocale === undefined ? "" : ` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '${options.icuLocale}'`
  return Effect.acquireRelease(
    Effect.promise(() => admin(serverUrl, (client) => client.query(`CREATE DATABASE ${name}${locale}`))).pipe(
      Effect.map(() => {
        const url = new URL(serverUrl)
        url.pathname = `/${name}`
        return url.toString()
      }),
    ),
    () => Effect.promise(() => admin(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))),
  )
}
