/** A bounded map of compiled releases, least recently used first out. A Map keeps insertion order, so a hit is moved to
 *  the end and the first key is the one to evict. */
export interface BoundedCache<V> {
  readonly get: (key: string) => V | undefined
  readonly set: (key: string, value: V) => void
  readonly size: () => number
}

export const makeBoundedCache = <V>(capacity: number): BoundedCache<V> => {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`cache capacity must be a positive integer, not ${capacity}`)
  const entries = new Map<string, V>()
  return {
    get: (key) => {
      const value = entries.get(key)
      if (value !== undefined) {
        entries.delete(key)
        entries.set(key, value)
      }
      return value
    },
    set: (key, value) => {
      entries.delete(key)
      entries.set(key, value)
      if (entries.size > capacity) entries.delete(entries.keys().next().value!)
    },
    size: () => entries.size,
  }
}
