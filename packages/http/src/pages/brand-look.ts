/** The hosted pages in the account's brand: its default brand's name, logo, colours and fonts over the host's
 *  pageTheme, which stays the look of accounts without a brand. A brand is saved even when its colours are hard to
 *  read (it gets warnings, not a refusal), so a page takes a brand's colour group only when every pair it shows meets
 *  WCAG AA, and keeps the host's otherwise: every page stays readable whatever the brand. */
import { type AccountId, type BrandRecord, Brands, contrastRatio, minimumContrast, Tokens } from "@mailroom/core"
import { Effect, Option } from "effect"
import type { PageTheme } from "./layout.js"

/** What a page shows of a brand: the theme, and the unsubscribe page's own message. */
export interface BrandLook {
  readonly theme: PageTheme
  /** The default brand's name, which the pages use for the sender; null without a brand. */
  readonly brandName: string | null
  readonly unsubscribeMessage: string | null
}

const readable = (pairs: ReadonlyArray<readonly [string, string]>) =>
  pairs.every(([foreground, background]) => contrastRatio(foreground, background) >= minimumContrast)

/** The host's theme with the brand's name, logo, fonts and, where they read well, colours. */
export const pageThemeOf = (host: PageTheme, brand: BrandRecord | null): PageTheme => {
  if (brand === null) return host
  const c = brand.colors
  // Text and muted text are read on the surface (the page's panel) and on the background (header, footer).
  const body = readable([[c.text, c.surface], [c.text, c.background], [c.mutedText, c.surface], [c.mutedText, c.background]])
  const surface = body ? c.surface : host.colors.surface
  // The accent colours links and secondary buttons on the surface, and primary buttons' background under primaryText.
  const accent = readable([[c.primary, surface], [c.primaryText, c.primary]])
  return {
    ...host,
    productName: brand.name,
    logoUrl: brand.logo?.url ?? host.logoUrl,
    footerText: brand.footer ?? (brand.compliance === null
      ? host.footerText
      : `${brand.compliance.company}, ${brand.compliance.address.split(/\r?\n/).join(", ")}`),
    fontFamily: brand.fonts.body,
    colors: {
      ...host.colors,
      ...(body ? { background: c.background, surface: c.surface, text: c.text, mutedText: c.mutedText } : {}),
      ...(accent ? { accent: c.primary, accentText: c.primaryText } : {}),
    },
  }
}

/** The look of an account's pages: its default brand over the host's theme. Any failure to read it shows the host's
 *  theme: a page is never refused for its look. */
export const accountLook = (host: PageTheme, accountId: AccountId | string | null) =>
  (accountId === null
    ? Effect.succeed(Option.none<BrandRecord>())
    : Effect.flatMap(Brands, (brands) => brands.defaultBrand(accountId as AccountId))).pipe(
    Effect.map((brand): BrandLook => ({
      theme: pageThemeOf(host, Option.getOrNull(brand)),
      brandName: Option.match(brand, { onNone: () => null, onSome: (found) => found.name }),
      unsubscribeMessage: Option.match(brand, { onNone: () => null, onSome: (found) => found.unsubscribePage.message }),
    })),
    Effect.orElseSucceed((): BrandLook => ({ theme: host, brandName: null, unsubscribeMessage: null })),
  )

/** The look of a page opened by a signed link: the account the token names (checked by its signature, expired or
 *  not), else the host's theme. */
export const tokenLook = (host: PageTheme, purpose: "unsubscribe" | "confirm" | "preferences", token: string) =>
  Effect.flatMap(Tokens, (tokens) => tokens.inspect(purpose, token)).pipe(
    Effect.map(({ claims }) => claims.a),
    Effect.orElseSucceed(() => null),
    Effect.flatMap((accountId) => accountLook(host, accountId)),
  )
