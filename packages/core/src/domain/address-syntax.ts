/** The syntax check of address validation: the practical rules of RFC 5321 (section 4.1.2 and the size limits of
 *  4.5.3.1), with quoted local parts, UTF-8 local parts (RFC 6531) and IDN domains converted to punycode. Address
 *  literals (`user@[192.0.2.1]`) are refused: mail to them bypasses MX and no mailbox provider hands them out. */
import { domainToASCII } from "node:url"
import { Either } from "effect"

export const addressSyntaxLimits = {
  /** RFC 5321 4.5.3.1.1, in octets. */
  localPartOctets: 64,
  /** RFC 5321 4.5.3.1.2, in octets (of the punycode form). */
  domainOctets: 255,
  /** RFC 5321 4.5.3.1.3: a path is at most 256 octets with its angle brackets. */
  addressOctets: 254,
  labelOctets: 63,
} as const

/** An address that passed the syntax check. */
export interface ParsedAddress {
  /** The local part as written (quotes kept): servers may treat it case-sensitively, so it is never folded. */
  readonly localPart: string
  /** The domain, lower-case, an IDN in punycode. */
  readonly domain: string
  /** `localPart@domain`: the form lookups and the probe use. */
  readonly address: string
}

const octets = (text: string) => Buffer.byteLength(text, "utf8")

/** atext of RFC 5322 3.2.3, plus any non-ASCII character (RFC 6531 extends atext with UTF-8). */
const atom = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~\u0080-\uFFFF-]+$/u
/** A quoted string of RFC 5321 4.1.2: qtextSMTP (printable ASCII but `"` and `\`, space included) or a quoted pair. */
const quoted = /^"(?:[\x20\x21\x23-\x5B\x5D-\x7E\u0080-\uFFFF]|\\[\x20-\x7E])*"$/u
const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/

const checkLocalPart = (local: string): string | undefined => {
  if (local === "") return "the local part (before @) is empty"
  if (octets(local) > addressSyntaxLimits.localPartOctets) {
    return `the local part is longer than ${addressSyntaxLimits.localPartOctets} octets`
  }
  if (local.startsWith("\"")) return quoted.test(local) ? undefined : "the quoted local part is not closed or holds a character it may not"
  if (!local.split(".").every((part) => atom.test(part))) {
    return "the local part holds a character that must be quoted, or an empty part between dots"
  }
  return undefined
}

const checkDomain = (domain: string): Either.Either<string, string> => {
  if (domain === "") return Either.left("the domain (after @) is empty")
  if (domain.startsWith("[")) return Either.left("address literals such as [192.0.2.1] are not accepted; use a domain name")
  // domainToASCII answers "" for what it cannot convert (a numeric last label, read as an IPv4 address, among them);
  // it lower-cases and turns an IDN into punycode (UTS 46).
  const ascii = domainToASCII(domain)
  if (ascii === "") return Either.left(`${domain} is not a valid domain name`)
  if (octets(ascii) > addressSyntaxLimits.domainOctets) {
    return Either.left(`the domain is longer than ${addressSyntaxLimits.domainOctets} octets`)
  }
  const labels = ascii.split(".")
  if (labels.length < 2) return Either.left(`${ascii} has no top-level domain (such as .com)`)
  if (!labels.every((part) => label.test(part))) {
    return Either.left(`${ascii} is not a valid domain name: each label is 1-63 letters, digits or hyphens`)
  }
  return Either.right(ascii)
}

/** The address parsed, or why its syntax is wrong. Surrounding spaces are not trimmed: they are part of what was sent. */
export const parseAddressSyntax = (input: string): Either.Either<ParsedAddress, string> => {
  if (/[\x00-\x1F\x7F]/.test(input)) return Either.left("the address holds a control character")
  // The local part may itself hold a quoted @; the domain never does.
  const at = input.lastIndexOf("@")
  if (at < 0) return Either.left("the address has no @")
  const localPart = input.slice(0, at)
  const localProblem = checkLocalPart(localPart)
  if (localProblem !== undefined) return Either.left(localProblem)
  const domain = checkDomain(input.slice(at + 1))
  if (Either.isLeft(domain)) return Either.left(domain.left)
  const address = `${localPart}@${domain.right}`
  if (octets(address) > addressSyntaxLimits.addressOctets) {
    return Either.left(`the address is longer than ${addressSyntaxLimits.addressOctets} octets`)
  }
  return Either.right({ localPart, domain: domain.right, address })
}
