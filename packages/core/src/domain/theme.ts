/** What templates read as `{{theme.*}}`: the brand a send renders with. A brand record (docs/brands.md) is stored with
 *  more (its id, account, application key, updatedAt, the unsubscribe page), and `themeOf` turns it into this shape;
 *  without a brand, `defaultTheme` applies, so that every template, the starter gallery's among them, can read the
 *  same names whatever the account has set up. Colours are `#rrggbb`. */
export interface Theme {
  /** The brand's display name: the company or product, shown in headers and hosted pages. */
  readonly name: string
  readonly colors: {
    /** Buttons, links in headers, accents. */
    readonly primary: string
    /** Text on a primary-coloured background (button labels). */
    readonly primaryText: string
    /** The page behind the message. */
    readonly background: string
    /** The message's own panel. */
    readonly surface: string
    /** Body text on the surface. */
    readonly text: string
    /** Secondary text on the surface: footers, captions. */
    readonly mutedText: string
    /** Links within body text. */
    readonly link: string
  }
  /** The logo, or null when the brand has none. `url` is absolute (an asset's immutable URL, or the brand's own). */
  readonly logo: { readonly url: string; readonly alt: string; readonly width: number } | null
  /** CSS font stacks. */
  readonly fonts: { readonly heading: string; readonly body: string }
  /** The default sender of mail under the brand, or null. */
  readonly sender: { readonly name: string; readonly email: string } | null
  /** The compliance contact marketing mail must show: the legal name and a postal address (one line per line). */
  readonly compliance: { readonly company: string; readonly address: string; readonly email: string | null } | null
  /** Footer text, plain, shown under every message. */
  readonly footer: string | null
  /** Social links, in order. */
  readonly social: ReadonlyArray<{ readonly network: string; readonly url: string }>
  /** The brand's custom variables: `{{theme.custom.name}}`. */
  readonly custom: Readonly<Record<string, string>>
}

/** The theme of an account without a brand: neutral colours that meet WCAG AA contrast with each other. */
export const defaultTheme: Theme = {
  name: "Mailroom",
  colors: {
    primary: "#2454d6",
    primaryText: "#ffffff",
    background: "#f4f5f7",
    surface: "#ffffff",
    text: "#1f2328",
    mutedText: "#5b636e",
    link: "#2454d6",
  },
  logo: null,
  fonts: {
    heading: "Helvetica, Arial, sans-serif",
    body: "Helvetica, Arial, sans-serif",
  },
  sender: null,
  compliance: null,
  footer: null,
  social: [],
  custom: {},
}
