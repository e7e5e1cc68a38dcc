/** An endpoint's `secretPrefix` is the literal start of its secret, with nothing added (core's displaySecret). Earlier
 *  endpoints were stored with an ellipsis after the first ten characters: it is dropped, which leaves those ten, a
 *  true prefix. The secret itself is sealed, so the two more characters that new endpoints show cannot be read here;
 *  the next rotation stores them. */
import type { Migration } from "./migration.js"

const dropEllipsis = `UPDATE webhook_endpoints SET secret_prefix = substr(secret_prefix, 1, length(secret_prefix) - 1)
  WHERE secret_prefix LIKE '%…'`

export const literalSecretPrefix: Migration = {
  id: 15,
  name: "literal_secret_prefix",
  sqlite: [dropEllipsis],
  pg: [dropEllipsis],
}
