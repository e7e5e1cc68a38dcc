/** The answer cache of NodeDns: records kept for their TTL (bounded), "no such record" answers for at most a minute,
 *  failed lookups never. Lookups of the same question that overlap share one query. */

/** What a lookup answered: records with the TTL to keep them, or the authoritative "none" (ENOTFOUND, ENODATA). */
export type CachedAnswer<A> =
  | { readonly _tag: "Records"; readonly records: ReadonlyArray<A>; readonly ttlSeconds: number }
  | { readonly _tag: "None"; readonly code: string }

export interface DnsCacheOptions {
  /** Most answers kept; the oldest go first. Default 10 000. */
  readonly maxEntries?: number
  /** Longest time a record is kept, whatever its TTL. Default 3 600 s. */
  readonly maxTtlSeconds?: number
  /** How long a "no such record" answer is kept: at most 60 s, so that a record just published is seen within a
   *  minute. Default 30 s. */
  readonly negativeTtlSeconds?: number
}

/** A "no such record" answer is never kept longer than this. */
export const maxNegativeTtlSeconds = 60

interface Entry {
  readonly expiresAt: number
  readonly answer: CachedAnswer<unknown>
}

export interface DnsCache {
  /** The cached answer to `key`, or the answer of `query` (kept for its TTL; a rejection is passed on, not kept).
   *  `fresh` runs `query` whatever is cached, and keeps its answer in place of the cached one. */
  readonly get: <A>(key: string, query: () => Promise<CachedAnswer<A>>, fresh?: boolean) => Promise<CachedAnswer<A>>
}

export const makeDnsCache = (options: DnsCacheOptions, now: () => number): DnsCache => {
  const maxEntries = options.maxEntries ?? 10_000
  const maxTtl = options.maxTtlSeconds ?? 3_600
  const negativeTtl = Math.min(options.negativeTtlSeconds ?? 30, maxNegativeTtlSeconds)
  const entries = new Map<string, Entry>()
  const inFlight = new Map<string, Promise<CachedAnswer<unknown>>>()

  const keep = (key: string, answer: CachedAnswer<unknown>) => {
    const seconds = answer._tag === "Records" ? Math.min(answer.ttlSeconds, maxTtl) : negativeTtl
    if (seconds <= 0) return
    entries.delete(key)
    if (entries.size >= maxEntries) {
      const oldest = entries.keys().next()
      if (oldest.done !== true) entries.delete(oldest.value)
    }
    entries.set(key, { expiresAt: now() + seconds * 1000, answer })
  }

  const get = <A>(key: string, query: () => Promise<CachedAnswer<A>>, fresh = false): Promise<CachedAnswer<A>> => {
    const entry = entries.get(key)
    if (fresh) entries.delete(key)
    else if (entry !== undefined) {
      if (entry.expiresAt > now()) return Promise.resolve(entry.answer as CachedAnswer<A>)
      entries.delete(key)
    }
    const running = inFlight.get(key)
    if (running !== undefined) return running as Promise<CachedAnswer<A>>
    const started = query().then(
      (answer) => {
        inFlight.delete(key)
        keep(key, answer)
        return answer
      },
      (cause: unknown) => {
        inFlight.delete(key)
        throw cause
      },
    )
    inFlight.set(key, started)
    return started
  }

  return { get }
}
