/** The Ids port: every id and random token comes from here, so tests can make them predictable. */
import { Context, Layer } from "effect"
import { idPrefixes, type IdKind } from "../domain/ids.js"

export interface IdsService {
  /** A new id for this kind of resource: `<prefix>_` + time part + random part; later ids sort after earlier ones
   *  (to the millisecond). */
  readonly make: (kind: IdKind) => string
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

const randomChars = (count: number): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(count))
  let out = ""
  for (const byte of bytes) out += crockford[byte % 32]
  return out
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/** Ids from the system clock and the platform's cryptographic random source. */
export const makeRandomIds = (): IdsService => ({
  make: (kind) => `${idPrefixes[kind]}_${encodeTime(Date.now())}${randomChars(16)}`,
  token: (bytes) => hex(crypto.getRandomValues(new Uint8Array(bytes))),
})

/** Predictable ids for tests: `<prefix>_` + a zero-padded counter; tokens are counters too. */
export const makeSequentialIds = (): IdsService => {
  let next = 0
  const pad = () => String(++next).padStart(12, "0")
  return {
    make: (kind) => `${idPrefixes[kind]}_${pad()}`,
    token: (bytes) => pad().padStart(bytes * 2, "0"),
  }
}

export const IdsLive = Layer.sync(Ids, makeRandomIds)
