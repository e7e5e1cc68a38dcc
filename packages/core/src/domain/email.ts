/** The one email-address schema every route uses: trimmed, lower-cased, checked label by label. */
import { Schema } from "effect"

const localPart = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/
const domainLabel = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/
const topLevel = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/

/** Why `address` (already trimmed and lower-cased) is not a deliverable address, or undefined when it is. */
export const emailProblem = (address: string): string | undefined => {
  if (address.length === 0) return "must not be empty"
  if (address.length > 254) return "must be at most 254 characters"
  if (/[\u0000-\u001f\u007f\s]/.test(address)) return "must not contain spaces or control characters"
  const at = address.lastIndexOf("@")
  if (at <= 0 || at === address.length - 1) return "must have the form local@domain"
  const local = address.slice(0, at)
  const domain = address.slice(at + 1)
  if (local.length > 64) return "must have a local part of at most 64 characters"
  if (!localPart.test(local)) return "has an invalid local part"
  const labels = domain.split(".")
  if (labels.length < 2 || !labels.every((label) => domainLabel.test(label))) return "has an invalid domain"
  if (!topLevel.test(labels[labels.length - 1]!)) return "has an invalid top-level domain"
  return undefined
}

export const normalizeEmail = (raw: string): string => raw.trim().toLowerCase()

const CheckedEmail = Schema.String.pipe(
  Schema.filter((address) => {
    const problem = emailProblem(address)
    return problem === undefined ? true : `must be a valid email address: ${problem}`
  }),
  Schema.brand("EmailAddress"),
)

/** An email address; decoding trims and lower-cases it. */
export const EmailAddress = Schema.transform(Schema.String, CheckedEmail, {
  strict: true,
  decode: normalizeEmail,
  encode: (address) => address,
})
export type EmailAddress = typeof EmailAddress.Type

/** Normalises and checks an address outside a Schema (CSV rows, member lists). */
export const parseEmail = (raw: string): EmailAddress | undefined => {
  const address = normalizeEmail(raw)
  return emailProblem(address) === undefined ? (address as EmailAddress) : undefined
}
