/** A bounded cache of the values used most recently: the statements a connection keeps prepared, by text; the clear
 *  webhook secrets of the endpoints delivered to last. */

/** Keeps the values of the last `max` keys used: `get` answers the kept value of `key`, or makes, keeps and answers a
 *  new one, dropping the least recently used key past `max` (`dropped` is told its value). A Map keeps insertion
 *  order: a hit moves its key to the end, so the first key is the least recently used. */
export const makeRecentCache = <K, V>(max: number, dropped: (value: V) => void = () => undefined) => {
  const values = new Map<K, V>()
  return {
    get: (key: K, make: () => V): V => {
      const kept = values.get(key)
      if (kept !== undefined) {
        values.delete(key)
        values.set(key, kept)
        return kept
      }
      const made = make()
      values.set(key, made)
      if (values.size > max) {
        const [oldest, value] = values.entries().next().value as [K, V]
        values.delete(oldest)
        dropped(value)
      }
      return made
    },
  }
}
