/** What a log line may not carry: keys, tokens, secrets, passwords and full addresses. `redactLogText` is applied to
 *  every line the facade's logger prints (whatever logged it: a route, a job, a driver's error), so that a value
 *  logged by mistake is masked too; the lines Mailroom writes on purpose carry only a recipient's domain. */

/** The part of an address after its last `@`, lower-cased: what a delivery line names instead of the address. */
export const recipientDomain = (address: string): string => {
  const at = address.lastIndexOf("@")
  return at === -1 ? "" : address.slice(at + 1).toLowerCase()
}

const rules: ReadonlyArray<readonly [RegExp, string]> = [
  // Mailroom's own credentials: API keys, application credentials, webhook secrets.
  [/\b(svc_(?:live|test|app)_|whsec_)[A-Za-z0-9+/=_-]+/g, "$1***"],
  // Credentials in URLs (smtp://user:pass@host, postgres://user:pass@host).
  [/([a-z][a-z0-9+.-]*:\/\/)[^\s/@:"']+(?::[^\s/@"']*)?@/gi, "$1***@"],
  // Bearer and Basic credentials of an Authorization header.
  [/\b(bearer|basic)\s+[^\s",;]+/gi, "$1 ***"],
  // Signed tokens in Mailroom's link paths (/u/, /c/, /p/, /o/, /l/) and in a token= parameter.
  [/(\/[ucpol]\/)[A-Za-z0-9_-]+\.[A-Za-z0-9_.-]+/g, "$1***"],
  // Fields named as secrets, in key=value, "key":"value" and key: value forms.
  [
    /((?:api[_-]?key|apikey|token|secret|password|passwd|authorization|cookie|admin[_-]?token)["']?\s*[=:]\s*["']?)(?!(?:bearer|basic)\s)([^\s"',&}]+)/gi,
    "$1***",
  ],
  // Addresses: the local part goes, the domain stays. (No `/` in the local part: it would take a URL's `//` along.)
  [/[A-Za-z0-9.!#$%&'*+=?^_`{|}~-]+@((?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,})/g, "***@$1"],
]

/** `text` with every key, token, secret, password and address local part replaced by `***`. */
export const redactLogText = (text: string): string =>
  rules.reduce((current, [pattern, replacement]) => current.replace(pattern, replacement), text)
