/** The Ids port: every id and random token comes from here, so tests can make them predictable. */
import { Context, Layer } from "effect"
import { idPrefixes, type IdKind } from "../domain/ids.js"

export interface IdsService {
  /** A new id for this kind of resource: `<prefix>_` + time part + random part; later ids sort after earlier ones
   *  (to the millisecond). `at` is the time the resource is made, read from Effect's Clock by the caller (usually its
   *  createdAt), so that a test under TestClock controls the time part too. */
  readonly make: (kind: IdKind, at: Date) => string
  /** `bytes` random bytes as lowercase hex: for API keys, secrets and tokens. */
  readonly token: (bytes: number) => string
}

export class Ids extends Context.Tag("@mailroom/core/Ids")<Ids, IdsService>() {}

const crockford = "0123456789abcdefghjkmnpqrstvwxyz"

const encodeTime = (ms: number): string => {
  let out = ""
  for (let i = 0; i < 9; i++) {
    out = crockford[ms % 32]! + out
    ms = Math.floor(ms / 32)
  }
  return out
}

/** `count` random base-32 characters, one random byte each. The bytes are drawn from the platform's source a few KiB at
 *  a time: a call to the source costs more than the id it serves. Each byte is used once. */
const makeRandomChars = () => {
  const pool = new Uint8Array(4096)
  let used = pool.length
  return (count: number): string => {
    if (used + count > pool.length) {
      crypto.getRandomValues(pool)
      used = 0
    }
    let out = ""
    for (let i = used; i < used + count; i++) out += crockford[pool[i]! % 32]
    used += count
    return out
  }
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/** Ids from the system clock and the platform's cryptographic random source. */
export const makeRandomIds = (): IdsService => {
  const randomChars = makeRandomChars()
  // Ids made in the same millisecond as the previous one continue from it (its random part plus one, as ULID does), so
  // that ids sort in the order they were made even within a millisecond.
  let lastMs = -1
  let lastRandom = ""
  const nextRandom = (ms: number): string => {
    if (ms !== lastMs) {
      lastMs = ms
      lastRandom = randomChars(16)
      return lastRandom
    }
    const digits = lastRandom.split("")
    let i = digits.length - 1
    while (i >= 0 && digits[i] === crockford[31]) digits[i--] = crockford[0]!
    if (i < 0) return (lastRandom = randomChars(16))
    digits[i] = crockford[crockford.indexOf(digits[i]!) + 1]!
    return (lastRandom = digits.join(""))
  }
  return {
    make: (kind, at) => `${idPrefixes[kind]}_${encodeTime(at.getTime())}${nextRandom(at.getTime())}`,
    token: (bytes) => hex(crypto.getRandomValues(new Uint8Array(bytes))),
  }
}

/** The time part of an id made by either Ids of this module, or undefined when `id` has none. */
export const idTime = (id: string): Date | undefined => {
  const match = /^[a-z]+_([0-9a-hjkmnp-tv-z]{9})/.exec(id)
  if (match === null) return undefined
  let ms = 0
  for (const char of match[1]!) ms = ms * 32 + crockford.indexOf(char)
  return new Date(ms)
}

/** Predictable ids for tests: `<prefix>_` + the time part of `at` + a zero-padded counter that starts after `start`
 *  (tests sharing a database across runs pass a different start each run); tokens are counters too. */
export const makeSequentialIds = (start = 0): IdsService => {
  let next = start
  const pad = () => String(++next).padStart(12, "0")
  return {
    make: (kind, at) => `${idPrefixes[kind]}_${encodeTime(at.getTime())}${pad()}`,
    token: (bytes) => pad().padStart(bytes * 2, "0"),
  }
}

export const IdsSequential = (start = 0) => Layer.sync(Ids, () => makeSequentialIds(start))

export const IdsLive = Layer.sync(Ids, makeRandomIds)
