/** The mailbox provider of a recipient domain: consumer domains by a list, custom domains by the host of their MX
 *  records (Google Workspace, Microsoft 365, a security gateway). Spec: sending "Analytics" (/analytics/providers);
 *  docs/analytics.md, "Providers". Pure: the MX hosts come from the Dns port, looked up once per domain. */

/** Consumer mailbox domains and their provider. */
const consumerDomains: Record<string, ReadonlyArray<string>> = {
  Gmail: ["gmail.com", "googlemail.com"],
  Outlook: ["outlook.com", "hotmail.com", "live.com", "msn.com", "hotmail.co.uk", "hotmail.fr", "hotmail.de", "hotmail.it", "live.co.uk", "live.fr", "outlook.fr", "outlook.de", "windowslive.com"],
  Yahoo: ["yahoo.com", "ymail.com", "rocketmail.com", "yahoo.co.uk", "yahoo.fr", "yahoo.de", "yahoo.es", "yahoo.it", "yahoo.co.jp", "yahoo.ca", "yahoo.com.br", "yahoo.co.in"],
  iCloud: ["icloud.com", "me.com", "mac.com"],
  AOL: ["aol.com", "aim.com", "aol.co.uk"],
  GMX: ["gmx.com", "gmx.de", "gmx.net", "gmx.at", "gmx.ch", "gmx.fr"],
  "Web.de": ["web.de"],
  Yandex: ["yandex.ru", "yandex.com", "ya.ru", "yandex.by", "yandex.kz", "yandex.ua"],
  Proton: ["proton.me", "protonmail.com", "protonmail.ch", "pm.me"],
  "Mail.ru": ["mail.ru", "inbox.ru", "list.ru", "bk.ru"],
  Zoho: ["zoho.com", "zohomail.com"],
  Fastmail: ["fastmail.com", "fastmail.fm"],
  Tutanota: ["tutanota.com", "tuta.io", "tutanota.de"],
  Comcast: ["comcast.net"],
  "T-Online": ["t-online.de"],
  Orange: ["orange.fr", "wanadoo.fr"],
  Libero: ["libero.it"],
  QQ: ["qq.com", "foxmail.com"],
  NetEase: ["163.com", "126.com", "yeah.net"],
  Naver: ["naver.com"],
  Seznam: ["seznam.cz"],
  "Free": ["free.fr"],
}

const byDomain = new Map(Object.entries(consumerDomains).flatMap(([provider, domains]) => domains.map((d) => [d, provider] as const)))

/** The consumer provider of a domain, if it is one. */
export const consumerProvider = (domain: string): string | undefined => byDomain.get(domain.toLowerCase())

/** MX host suffixes and the provider they mean: hosted mailboxes and mail security gateways. */
const mxProviders: ReadonlyArray<readonly [suffix: string, provider: string]> = [
  ["google.com", "Google Workspace"], ["googlemail.com", "Google Workspace"],
  ["outlook.com", "Microsoft 365"], ["office365.us", "Microsoft 365"],
  ["pphosted.com", "Proofpoint"], ["ppe-hosted.com", "Proofpoint"],
  ["mimecast.com", "Mimecast"], ["mimecast.co.za", "Mimecast"],
  ["barracudanetworks.com", "Barracuda"], ["iphmx.com", "Cisco Secure Email"],
  ["messagelabs.com", "Broadcom Email Security"], ["trendmicro.com", "Trend Micro"], ["trendmicro.eu", "Trend Micro"],
  ["sophos.com", "Sophos"], ["hornetsecurity.com", "Hornetsecurity"], ["forcepoint.com", "Forcepoint"],
  ["zoho.com", "Zoho"], ["zoho.eu", "Zoho"], ["messagingengine.com", "Fastmail"], ["protonmail.ch", "Proton"],
  ["yahoodns.net", "Yahoo"], ["icloud.com", "iCloud"], ["yandex.net", "Yandex"], ["gmx.net", "GMX"],
  ["secureserver.net", "GoDaddy"], ["ovh.net", "OVH"], ["ionos.com", "IONOS"], ["ionos.de", "IONOS"],
  ["emailsrvr.com", "Rackspace"], ["mailgun.org", "Mailgun"], ["amazonaws.com", "Amazon WorkMail"],
]

/** The provider that the domain's MX hosts name (the most preferred first); "Other" when none is known, and
 *  "Unknown" when the domain has no MX record (or none could be read). */
export const providerOfMx = (mxHosts: ReadonlyArray<string>): string => {
  if (mxHosts.length === 0) return "Unknown"
  for (const host of mxHosts) {
    const name = host.toLowerCase().replace(/\.$/, "")
    const found = mxProviders.find(([suffix]) => name === suffix || name.endsWith(`.${suffix}`))
    if (found !== undefined) return found[1]
  }
  return "Other"
}
