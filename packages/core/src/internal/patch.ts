/** PATCH semantics shared by every update: a field that was not sent keeps its value; null is a value (it clears). */

export type SentFields<T> = { [K in keyof T]?: Exclude<T[K], undefined> }

/** Those of `keys` that `patch` sent, to spread over the current record. Naming the keys keeps anything else a caller
 *  passes (an id, a timestamp) out of the record. */
export const sentFields = <T extends object, K extends keyof T>(patch: T, keys: ReadonlyArray<K>): SentFields<Pick<T, K>> => {
  const sent: SentFields<Pick<T, K>> = {}
  for (const key of keys) if (patch[key] !== undefined) sent[key] = patch[key] as Exclude<T[K], undefined>
  return sent
}
