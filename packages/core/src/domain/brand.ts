/** Brands: the colours, logo, fonts, sender, compliance contact, footer, social links, custom variables and unsubscribe
 *  page text that make an account's mail and hosted pages its own. Templates read a brand as `{{theme.*}}` (the Theme
 *  shape of theme.ts, made by `themeOf`); contrast below WCAG AA gives warnings, never a refusal. Spec: sending
 *  "Design (Studio template)" (brands paragraph and the account/application table), "Designs (template API)" (brand
 *  rows) and "Limits" (Studio brands). Field names follow docs/brands.md. */
import { Either, Schema } from "effect"
import { type AccountId, type Plan, planLimits } from "./account.js"
import { parseAddressSyntax } from "./address-syntax.js"
import { accountApplicationKey, TemplateKey } from "./design.js"
import { defaultTheme, type Theme } from "./theme.js"
import { PlanUpgradeRequired } from "../errors.js"
import { BrandLimitReached } from "../brand-errors.js"

export const BrandId = Schema.String.pipe(Schema.brand("BrandId"))
export type BrandId = typeof BrandId.Type

export const brandLimits = {
  nameLength: 100,
  urlLength: 2048,
  altLength: 200,
  logoWidth: { min: 16, max: 600 },
  fontLength: 200,
  senderNameLength: 100,
  companyLength: 200,
  addressLength: 500,
  footerLength: 1_000,
  socialLinks: 10,
  customVariables: 50,
  customValueLength: 1_000,
  unsubscribeMessageLength: 1_000,
  pageSize: 25,
  maxPageSize: 100,
} as const

/** The colour names of a brand, as `{{theme.colors.*}}` reads them. */
export const colorNames = ["primary", "primaryText", "background", "surface", "text", "mutedText", "link"] as const
export type ColorName = (typeof colorNames)[number]

/** `#rgb` or `#rrggbb`, stored as lowercase `#rrggbb` (the form Theme promises). */
const hexColor = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/
export const normalizeColor = (value: string): string => {
  const hex = value.slice(1).toLowerCase()
  return `#${hex.length === 3 ? [...hex].map((digit) => digit + digit).join("") : hex}`
}

const Color = Schema.String.pipe(
  Schema.filter((value) => hexColor.test(value) || `${JSON.stringify(value).slice(0, 40)} is not a colour: write it as #rrggbb (or #rgb)`),
)

const httpUrl = (what: string) => Schema.String.pipe(
  Schema.maxLength(brandLimits.urlLength, { message: () => `${what} is at most ${brandLimits.urlLength} characters` }),
  Schema.filter((value) => {
    try {
      const url = new URL(value)
      return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "" ||
        `${what} must be an http(s) URL`
    } catch {
      return `${what} must be an absolute http(s) URL`
    }
  }),
)

/** Text shown on one line (names, labels): no control characters, so nothing can break a header or a page. */
const line = (max: number, what: string, min = 1) => Schema.String.pipe(
  Schema.minLength(min, { message: () => `${what} must not be empty` }),
  Schema.maxLength(max, { message: () => `${what} is at most ${max} characters` }),
  Schema.filter((value) => !/[\x00-\x1F\x7F]/.test(value) || `${what} must be one line of text, without control characters`),
)

/** Text that may hold line breaks (an address, a footer), but no other control characters. */
const lines = (max: number, what: string) => Schema.String.pipe(
  Schema.minLength(1, { message: () => `${what} must not be empty` }),
  Schema.maxLength(max, { message: () => `${what} is at most ${max} characters` }),
  Schema.filter((value) => !/[\x00-\x09\x0B\x0C\x0E-\x1F\x7F]/.test(value) || `${what} holds a control character`),
)

const EmailAddressText = (what: string) => Schema.String.pipe(
  Schema.filter((value) => Either.match(parseAddressSyntax(value), {
    onLeft: (problem) => `${what} is not an email address: ${problem}`,
    onRight: () => true,
  })),
)

/** A CSS font stack: names, quotes, commas, spaces and hyphens only, so it cannot close a style rule. */
const FontStack = (what: string) => Schema.String.pipe(
  Schema.filter((value) => /^[\w\s,"'-]{1,200}$/.test(value) ||
    `${what} is a CSS font stack such as "Inter, Helvetica, Arial, sans-serif": letters, digits, spaces, commas, quotes and hyphens, at most ${brandLimits.fontLength} characters`),
)

const customName = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/

export const BrandColorsInput = Schema.Struct(
  Object.fromEntries(colorNames.map((name) => [name, Schema.optional(Color)])) as { [K in ColorName]: Schema.optional<typeof Color> },
)

export const LogoInput = Schema.Struct({
  url: httpUrl("logo.url"),
  alt: Schema.optional(line(brandLimits.altLength, "logo.alt")),
  width: Schema.optional(Schema.Int.pipe(Schema.between(brandLimits.logoWidth.min, brandLimits.logoWidth.max, {
    message: () => `logo.width is a whole number of pixels from ${brandLimits.logoWidth.min} to ${brandLimits.logoWidth.max}`,
  }))),
})

export const FontsInput = Schema.Struct({
  heading: Schema.optional(FontStack("fonts.heading")),
  body: Schema.optional(FontStack("fonts.body")),
})

export const SenderInput = Schema.Struct({
  name: line(brandLimits.senderNameLength, "sender.name"),
  email: EmailAddressText("sender.email"),
})

export const ComplianceInput = Schema.Struct({
  company: line(brandLimits.companyLength, "compliance.company"),
  address: lines(brandLimits.addressLength, "compliance.address"),
  email: Schema.optional(Schema.NullOr(EmailAddressText("compliance.email"))),
})

export const SocialLinkInput = Schema.Struct({
  network: Schema.String.pipe(Schema.filter((value) => /^[a-z][a-z0-9-]{0,31}$/.test(value) ||
    "social network is a lowercase name such as linkedin, x, instagram or website")),
  url: httpUrl("social url"),
})

export const CustomVariables = Schema.Record({ key: Schema.String, value: Schema.String }).pipe(
  Schema.filter((custom) => {
    const bad = Object.keys(custom).find((name) => !customName.test(name))
    return bad === undefined || `custom variable ${JSON.stringify(bad)} is not a name: letters, digits and underscores, not starting with a digit, at most 64`
  }),
  Schema.filter((custom) => Object.keys(custom).length <= brandLimits.customVariables || `at most ${brandLimits.customVariables} custom variables`),
  Schema.filter((custom) => Object.values(custom).every((value) => value.length <= brandLimits.customValueLength) ||
    `each custom variable is at most ${brandLimits.customValueLength} characters`),
)

export const UnsubscribePageInput = Schema.Struct({
  message: Schema.NullOr(lines(brandLimits.unsubscribeMessageLength, "unsubscribePage.message")),
})

/** The fields a brand holds besides its name, each optional on create (defaults from defaultTheme) and on PATCH
 *  (absent keeps the stored value; null clears a nullable one; colours merge one by one). */
const brandFields = {
  colors: Schema.optional(BrandColorsInput),
  logo: Schema.optional(Schema.NullOr(LogoInput)),
  fonts: Schema.optional(FontsInput),
  sender: Schema.optional(Schema.NullOr(SenderInput)),
  compliance: Schema.optional(Schema.NullOr(ComplianceInput)),
  footer: Schema.optional(Schema.NullOr(lines(brandLimits.footerLength, "footer"))),
  social: Schema.optional(Schema.Array(SocialLinkInput).pipe(Schema.maxItems(brandLimits.socialLinks, {
    message: () => `at most ${brandLimits.socialLinks} social links`,
  }))),
  custom: Schema.optional(CustomVariables),
  unsubscribePage: Schema.optional(UnsubscribePageInput),
}

/** POST /designs/brands. applicationKey defaults to `account` (or an application credential's own). */
export const CreateBrandInput = Schema.Struct({
  applicationKey: Schema.optional(TemplateKey),
  name: line(brandLimits.nameLength, "name"),
  ...brandFields,
})
export type CreateBrandInput = typeof CreateBrandInput.Type

/** PATCH /designs/brands/{id}: the fields to change, with the updatedAt the brand was read at. */
export const UpdateBrandInput = Schema.Struct({
  expectedUpdatedAt: Schema.String.pipe(Schema.filter((value) => !Number.isNaN(Date.parse(value)) ||
    "expectedUpdatedAt is the brand's updatedAt as read (an ISO 8601 time)")),
  name: Schema.optional(line(brandLimits.nameLength, "name")),
  ...brandFields,
})
export type UpdateBrandInput = typeof UpdateBrandInput.Type

export interface BrandRecord {
  readonly id: BrandId
  readonly accountId: AccountId
  readonly applicationKey: string
  readonly name: string
  readonly colors: Theme["colors"]
  readonly logo: Theme["logo"]
  readonly fonts: Theme["fonts"]
  readonly sender: Theme["sender"]
  readonly compliance: Theme["compliance"]
  readonly footer: string | null
  readonly social: Theme["social"]
  readonly custom: Theme["custom"]
  /** Text the account's hosted unsubscribe page shows under its heading (only the default brand's is shown). */
  readonly unsubscribePage: { readonly message: string | null }
  /** The account's default brand (account brands only): hosted pages and unbound account templates use it. */
  readonly isDefault: boolean
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** The stored fields of a brand besides its identity, as one JSON value (read and written whole). */
export type BrandContent = Omit<BrandRecord, "id" | "accountId" | "applicationKey" | "name" | "isDefault" | "createdAt" | "updatedAt">

type Fields = { readonly [K in keyof typeof brandFields]?: Schema.Schema.Type<(typeof brandFields)[K]> }

const colorsOf = (base: Theme["colors"], given: Fields["colors"]): Theme["colors"] =>
  Object.fromEntries(colorNames.map((name) => {
    const value = given?.[name]
    return [name, value === undefined ? base[name] : normalizeColor(value)]
  })) as unknown as Theme["colors"]

/** The content after applying `fields` to `base` (defaultTheme's values for a new brand). */
const applyFields = (base: BrandContent, fields: Fields, name: string): BrandContent => ({
  colors: colorsOf(base.colors, fields.colors),
  logo: fields.logo === undefined
    ? base.logo
    : fields.logo === null ? null : { url: fields.logo.url, alt: fields.logo.alt ?? name, width: fields.logo.width ?? 150 },
  fonts: { ...base.fonts, ...(fields.fonts?.heading === undefined ? {} : { heading: fields.fonts.heading }),
    ...(fields.fonts?.body === undefined ? {} : { body: fields.fonts.body }) },
  sender: fields.sender === undefined ? base.sender : fields.sender,
  compliance: fields.compliance === undefined
    ? base.compliance
    : fields.compliance === null ? null : { ...fields.compliance, email: fields.compliance.email ?? null },
  footer: fields.footer === undefined ? base.footer : fields.footer,
  social: fields.social === undefined ? base.social : fields.social,
  custom: fields.custom === undefined ? base.custom : fields.custom,
  unsubscribePage: fields.unsubscribePage === undefined ? base.unsubscribePage : fields.unsubscribePage,
})

const defaultContent: BrandContent = {
  colors: defaultTheme.colors,
  logo: null,
  fonts: defaultTheme.fonts,
  sender: null,
  compliance: null,
  footer: null,
  social: [],
  custom: {},
  unsubscribePage: { message: null },
}

export const newBrand = (fields: {
  readonly id: BrandId
  readonly accountId: AccountId
  readonly applicationKey: string
  readonly input: CreateBrandInput
  readonly isDefault: boolean
  readonly at: Date
}): BrandRecord => ({
  id: fields.id,
  accountId: fields.accountId,
  applicationKey: fields.applicationKey,
  name: fields.input.name,
  ...applyFields(defaultContent, fields.input, fields.input.name),
  isDefault: fields.isDefault,
  createdAt: fields.at,
  updatedAt: fields.at,
})

/** PATCH: the brand with the given fields changed. `at` is made later than the stored updatedAt, so two changes
 *  within one millisecond still get distinct updatedAt values (what expectedUpdatedAt compares). */
export const updateBrand = (brand: BrandRecord, input: UpdateBrandInput, at: Date): BrandRecord => {
  const name = input.name ?? brand.name
  return {
    ...brand,
    name,
    ...applyFields(brand, input, name),
    updatedAt: new Date(Math.max(at.getTime(), brand.updatedAt.getTime() + 1)),
  }
}

/** Whether `expected` (as the client sent it) names the brand's current updatedAt. */
export const isCurrent = (brand: Pick<BrandRecord, "updatedAt">, expected: string): boolean =>
  Date.parse(expected) === brand.updatedAt.getTime()

/** The brand's content (BrandContent): what the API shows, a manifest carries and the store keeps besides its
 *  identity. */
export const brandContentOf = (brand: BrandRecord): BrandContent => ({
  colors: brand.colors,
  logo: brand.logo,
  fonts: brand.fonts,
  sender: brand.sender,
  compliance: brand.compliance,
  footer: brand.footer,
  social: brand.social,
  custom: brand.custom,
  unsubscribePage: brand.unsubscribePage,
})

/** What templates read as `{{theme.*}}`: the brand's name and content, without its unsubscribe page. */
export const themeOf = (brand: BrandRecord): Theme => {
  const { unsubscribePage: _page, ...content } = brandContentOf(brand)
  return { name: brand.name, ...content }
}

// ---- Contrast (WCAG 2.x relative luminance). ----

const channel = (value: number) => {
  const c = value / 255
  return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
}
const luminance = (hex: string) => {
  const n = normalizeColor(hex)
  const [r, g, b] = [1, 3, 5].map((at) => parseInt(n.slice(at, at + 2), 16))
  return 0.2126 * channel(r!) + 0.7152 * channel(g!) + 0.0722 * channel(b!)
}

/** The contrast ratio of two colours, from 1 to 21. */
export const contrastRatio = (a: string, b: string): number => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (light! + 0.05) / (dark! + 0.05)
}

/** WCAG AA for body text. */
export const minimumContrast = 4.5

/** The text/background pairs a brand is checked on: the foreground read on the background. */
export const contrastPairs: ReadonlyArray<readonly [ColorName, ColorName]> = [
  ["text", "surface"],
  ["mutedText", "surface"],
  ["primaryText", "primary"],
  ["link", "surface"],
]

export interface ContrastWarning {
  readonly code: "LOW_CONTRAST"
  readonly foreground: ColorName
  readonly background: ColorName
  readonly ratio: number
  readonly minimum: number
  readonly message: string
}

/** The pairs below WCAG AA, each as a warning: a brand is saved all the same. */
export const contrastWarnings = (colors: Theme["colors"]): ReadonlyArray<ContrastWarning> =>
  contrastPairs.flatMap(([foreground, background]) => {
    const ratio = Math.round(contrastRatio(colors[foreground], colors[background]) * 100) / 100
    return ratio >= minimumContrast ? [] : [{
      code: "LOW_CONTRAST" as const,
      foreground,
      background,
      ratio,
      minimum: minimumContrast,
      message: `colors.${foreground} on colors.${background} has a contrast of ${ratio}:1, below the ${minimumContrast}:1 WCAG AA asks for body text`,
    }]
  })

// ---- Plans and reach. ----

/** Whether an account of the plan holding `count` brands may make one more (Micro 3, Pro 10, Scale 25, none below). */
export const checkBrandRoom = (plan: Plan, count: number): Either.Either<void, PlanUpgradeRequired | BrandLimitReached> => {
  const limit = planLimits[plan].studioBrands
  if (limit === 0) return Either.left(new PlanUpgradeRequired({ feature: "Studio brands", plan, requiredPlan: "micro" }))
  return limit !== null && count >= limit ? Either.left(new BrandLimitReached({ plan, limit })) : Either.void
}

/** Only account brands can be the account's default (hosted pages and unbound account templates use it). */
export const canBeDefault = (brand: Pick<BrandRecord, "applicationKey">): boolean => brand.applicationKey === accountApplicationKey

/** Newest first: ids sort by creation time. */
export const compareBrands = (a: BrandRecord, b: BrandRecord): number => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/** GET /designs/brands after defaults. */
export interface BrandQuery {
  readonly applicationKey?: string | undefined
  readonly after?: string | undefined
  readonly limit: number
}

export const matchesBrandQuery = (brand: BrandRecord, query: BrandQuery): boolean =>
  (query.applicationKey === undefined || brand.applicationKey === query.applicationKey) &&
  (query.after === undefined || brand.id < query.after)
