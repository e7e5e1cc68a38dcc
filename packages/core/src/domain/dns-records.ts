/** Reading a domain's records back by their meaning, not their text: the ownership value, SPF (RFC 7208) parsed and
 *  found to include SPF_INCLUDE where it takes effect, DKIM (RFC 6376) whose `p=` is the domain's public key, DMARC
 *  (RFC 7489) parsed. Plain functions of the TXT values found at a record's host. */
import type { RecordProblem, RecordState } from "./domain.js"

const verified: RecordState = { status: "verified", problem: null }
const missing = (problem: RecordProblem): RecordState => ({ status: "pending", problem })
const wrong = (problem: RecordProblem): RecordState => ({ status: "failed", problem })
const recordProblem = (message: string): RecordProblem => ({ code: "DNS_RECORD_MISSING", message })

/** The ownership record: `mailroom-verify=<id>` among the TXT values at the hostname. */
export const checkOwnership = (values: ReadonlyArray<string>, host: string, expected: string): RecordState => {
  if (values.some((value) => value.trim() === expected)) return verified
  const other = values.find((value) => value.trim().startsWith("mailroom-verify="))
  const problem = (message: string): RecordProblem => ({ code: "DNS_VERIFICATION_FAILED", message })
  return other === undefined
    ? missing(problem(`no TXT record ${expected} at ${host}`))
    : wrong(problem(`the TXT record at ${host} is ${other.trim()}, which is not this domain's; publish ${expected}`))
}

// SPF -------------------------------------------------------------------------------------------------------------

const spfMechanisms = new Set(["all", "include", "a", "mx", "ptr", "ip4", "ip6", "exists"])

export interface SpfTerm {
  readonly text: string
  /** `+`, `-`, `~` or `?` for a mechanism (`+` when none is written); undefined for a modifier. */
  readonly qualifier: string | undefined
  /** The mechanism's or modifier's name, lower-cased. */
  readonly name: string
  /** What follows `:` (a mechanism) or `=` (a modifier), or "". */
  readonly value: string
}

/** The terms of an SPF record after `v=spf1`, or the reason it is not a valid one. */
export const parseSpf = (record: string): { readonly terms: ReadonlyArray<SpfTerm> } | { readonly invalid: string } => {
  const [version, ...parts] = record.trim().split(/\s+/)
  if (version?.toLowerCase() !== "v=spf1") return { invalid: "it does not start with v=spf1" }
  const terms: Array<SpfTerm> = []
  for (const text of parts) {
    const modifier = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(text)
    if (modifier !== null) {
      terms.push({ text, qualifier: undefined, name: modifier[1]!.toLowerCase(), value: modifier[2]! })
      continue
    }
    const mechanism = /^([+\-~?]?)([a-z0-9]+)(?:[:/](.*))?$/i.exec(text)
    const name = mechanism?.[2]?.toLowerCase()
    if (mechanism === null || name === undefined || !spfMechanisms.has(name)) return { invalid: `${text} is not an SPF mechanism` }
    if ((name === "include" || name === "exists") && (mechanism[3] ?? "") === "") return { invalid: `${text} names no domain` }
    terms.push({ text, qualifier: mechanism[1] === "" ? "+" : mechanism[1], name, value: mechanism[3] ?? "" })
  }
  if (terms.filter((term) => term.name === "redirect").length > 1) return { invalid: "it has two redirect= modifiers" }
  return { terms }
}

const isSpf = (value: string) => /^v=spf1(\s|$)/i.test(value.trim())
const sameHost = (a: string, b: string) => a.toLowerCase().replace(/\.$/, "") === b.toLowerCase().replace(/\.$/, "")

/** The record with `include:<include>` where it takes effect: before its `all` mechanism, or before a redirect=
 *  modifier when it has no `all`, or at its end. A record that includes it already is answered as it is. */
export const withSpfInclude = (record: string, include: string): string => {
  const parts = record.trim().split(/\s+/)
  if (parts.some((part) => /^\+?include:/i.test(part) && sameHost(part.replace(/^\+?include:/i, ""), include))) return parts.join(" ")
  const at = parts.findIndex((part, index) => index > 0 && /^[+\-~?]?all$/i.test(part))
  const redirect = parts.findIndex((part) => /^redirect=/i.test(part))
  const position = at !== -1 ? at : redirect !== -1 ? redirect : parts.length
  return [...parts.slice(0, position), `include:${include}`, ...parts.slice(position)].join(" ")
}

/** The SPF record at the hostname, and the SPF value to show from now on: the plain record when the domain has none,
 *  its own record with the include added otherwise (a domain has one SPF record, RFC 7208 §3.2). */
export const checkSpf = (
  values: ReadonlyArray<string>,
  host: string,
  include: string,
  plain: string,
): { readonly state: RecordState; readonly value: string } => {
  const records = values.filter(isSpf)
  if (records.length === 0) return { state: missing(recordProblem(`no SPF record (v=spf1 …) at ${host}`)), value: plain }
  if (records.length > 1) {
    return {
      state: wrong(recordProblem(
        `${host} has ${records.length} SPF records; a domain has one (RFC 7208 §3.2), and with two every SPF check fails. Merge them into one record`,
      )),
      value: withSpfInclude(records[0]!, include),
    }
  }
  const record = records[0]!
  const value = withSpfInclude(record, include)
  const parsed = parseSpf(record)
  if ("invalid" in parsed) return { state: wrong(recordProblem(`the SPF record at ${host} is not valid: ${parsed.invalid}`)), value }
  const terms = parsed.terms
  const allAt = terms.findIndex((term) => term.name === "all")
  const includeAt = terms.findIndex((term) => term.name === "include" && sameHost(term.value, include))
  if (includeAt === -1) return { state: wrong(recordProblem(`the SPF record at ${host} does not include ${include}; publish ${value}`)), value }
  const found = terms[includeAt]!
  if (found.qualifier !== "+") {
    return { state: wrong(recordProblem(`the SPF record at ${host} has ${found.text}: with that qualifier Mailroom's mail does not pass; write include:${include}`)), value }
  }
  if (allAt !== -1 && allAt < includeAt) {
    return { state: wrong(recordProblem(`in the SPF record at ${host}, include:${include} comes after ${terms[allAt]!.text}, so it is never evaluated; publish ${value}`)), value }
  }
  return { state: verified, value }
}

// DKIM and DMARC --------------------------------------------------------------------------------------------------

/** The tags of a DKIM or DMARC record (`k=v; k=v`), names lower-cased, values trimmed; undefined when it is not a tag
 *  list. */
export const parseTags = (record: string): ReadonlyMap<string, string> | undefined => {
  const tags = new Map<string, string>()
  for (const part of record.split(";")) {
    if (part.trim() === "") continue
    const at = part.indexOf("=")
    if (at <= 0) return undefined
    const name = part.slice(0, at).trim().toLowerCase()
    if (!/^[a-z][a-z0-9_]*$/.test(name) || tags.has(name)) return undefined
    tags.set(name, part.slice(at + 1).trim())
  }
  return tags
}

const isDkim = (value: string) => {
  const tags = parseTags(value)
  return tags !== undefined && (tags.get("v") === "DKIM1" || tags.has("p"))
}

/** The DKIM record at `<selector>._domainkey.<hostname>`: one record whose `p=` is the domain's public key. */
export const checkDkim = (values: ReadonlyArray<string>, host: string, publicKey: string, expected: string): RecordState => {
  const records = values.filter(isDkim)
  if (records.length === 0) return missing(recordProblem(`no DKIM record (v=DKIM1; k=rsa; p=…) at ${host}`))
  if (records.length > 1) {
    return wrong(recordProblem(`${host} has ${records.length} DKIM records; a selector has one key. Keep only ${expected}`))
  }
  const tags = parseTags(records[0]!)!
  const version = tags.get("v")
  if (version !== undefined && version !== "DKIM1") return wrong(recordProblem(`the DKIM record at ${host} has v=${version}; write v=DKIM1`))
  const keyType = tags.get("k")
  if (keyType !== undefined && keyType.toLowerCase() !== "rsa") {
    return wrong(recordProblem(`the DKIM record at ${host} has k=${keyType}; Mailroom signs with an RSA key (k=rsa)`))
  }
  const key = (tags.get("p") ?? "").replace(/\s+/g, "")
  if (key === "") return wrong(recordProblem(`the DKIM record at ${host} has an empty p= (a revoked key); publish ${expected}`))
  if (key !== publicKey) {
    return wrong(recordProblem(`the DKIM record at ${host} holds another public key than this domain's; publish ${expected}`))
  }
  return verified
}

const dmarcPolicies = new Set(["none", "quarantine", "reject"])
const isDmarc = (value: string) => /^v\s*=\s*DMARC1\s*(;|$)/i.test(value.trim())

/** The DMARC record at `_dmarc.<hostname>`: one valid record (v=DMARC1 first, a p= policy). */
export const checkDmarc = (values: ReadonlyArray<string>, host: string, expected: string): RecordState => {
  const records = values.filter(isDmarc)
  if (records.length === 0) return missing(recordProblem(`no DMARC record (v=DMARC1; …) at ${host}`))
  if (records.length > 1) {
    return wrong(recordProblem(`${host} has ${records.length} DMARC records; with more than one, receivers apply none (RFC 7489 §6.6.3). Keep only one, such as ${expected}`))
  }
  const tags = parseTags(records[0]!)
  if (tags === undefined) return wrong(recordProblem(`the DMARC record at ${host} is not a list of tag=value pairs; publish ${expected}`))
  const policy = tags.get("p")
  if (policy === undefined || !dmarcPolicies.has(policy.toLowerCase())) {
    return wrong(recordProblem(`the DMARC record at ${host} has no valid p= policy (none, quarantine or reject); publish ${expected}`))
  }
  return verified
}

/** The name a DNS panel makes when it appends the domain to a host that already ends with it. */
export const doubledName = (host: string, hostname: string): string => `${host}.${hostname}`

/** The message of a record found only at the doubled name. */
export const doubledNameProblem = (problem: RecordProblem, host: string, hostname: string): RecordProblem => {
  const relative = host === hostname ? "@" : host.slice(0, -(hostname.length + 1))
  return {
    code: problem.code,
    message: `the record is published at ${doubledName(host, hostname)} instead of ${host}: the DNS panel added ${hostname} to the host a second time. Enter the host as ${relative === "@" ? "@ (or leave it empty)" : relative}, without ${hostname}`,
  }
}
