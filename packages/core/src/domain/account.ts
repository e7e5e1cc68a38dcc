/** Accounts, plans with their limits, API keys with scopes, and application credentials, with the operator API's
 *  inputs (CONTRACT.md, "Operator API"). */
import { Schema } from "effect"
import { EmailAddress } from "./email.js"

export const AccountId = Schema.String.pipe(Schema.brand("AccountId"))
export type AccountId = typeof AccountId.Type

export const Plan = Schema.Literal("free", "starter", "micro", "pro", "scale", "enterprise")
export type Plan = typeof Plan.Type

/** `null` means no limit. */
export interface PlanLimits {
  /** Active contacts an account may hold (audience spec, Limits: Free plan 100). */
  readonly activeContacts: number | null
  /** Recipients per calendar month (sending spec, Limits). Enterprise: not shown, so unlimited. */
  readonly monthlySendQuota: number | null
  /** Custom sending domains (sending spec, Limits). */
  readonly customDomains: number | null
  /** Webhook endpoints (audience spec, Limits: none below Starter). */
  readonly webhookEndpoints: number | null
  /** Studio templates and brands (sending spec, Limits: none below Micro). */
  readonly studioTemplates: number | null
  readonly studioBrands: number | null
  /** Campaigns need the Micro plan or above. */
  readonly campaigns: boolean
}

/** The plan limits of both spec documents in one table. */
export const planLimits: Record<Plan, PlanLimits> = {
  free: { activeContacts: 100, monthlySendQuota: 3_000, customDomains: 0, webhookEndpoints: 0, studioTemplates: 0, studioBrands: 0, campaigns: false },
  starter: { activeContacts: null, monthlySendQuota: 5_000, customDomains: 1, webhookEndpoints: 1, studioTemplates: 0, studioBrands: 0, campaigns: false },
  micro: { activeContacts: null, monthlySendQuota: 20_000, customDomains: 2, webhookEndpoints: 3, studioTemplates: 25, studioBrands: 3, campaigns: true },
  pro: { activeContacts: null, monthlySendQuota: 50_000, customDomains: 5, webhookEndpoints: 10, studioTemplates: 100, studioBrands: 10, campaigns: true },
  scale: { activeContacts: null, monthlySendQuota: 150_000, customDomains: 20, webhookEndpoints: null, studioTemplates: 500, studioBrands: 25, campaigns: true },
  enterprise: { activeContacts: null, monthlySendQuota: null, customDomains: null, webhookEndpoints: null, studioTemplates: null, studioBrands: null, campaigns: true },
}

/** The account's room for new ACTIVE contacts under its plan's cap (the Free plan's 100). */
export interface ActiveRoom {
  /** How many more ACTIVE contacts the account may gain. */
  readonly room: number
  readonly limit: number
}

export const Account = Schema.Struct({
  id: AccountId,
  name: Schema.NullOr(Schema.String),
  plan: Plan,
  ownerEmail: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
})
export type Account = typeof Account.Type

export const scopes = [
  "contacts:read", "contacts:write", "suppressions:read", "suppressions:write", "templates:read", "templates:write",
  "emails:send", "webhooks:read", "webhooks:write", "domains:read", "domains:write", "analytics:read",
] as const
export const Scope = Schema.Literal(...scopes)
export type Scope = typeof Scope.Type

export const ApiKeyId = Schema.String.pipe(Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type
export const KeyMode = Schema.Literal("live", "test")
export type KeyMode = typeof KeyMode.Type

/** An API key as stored: only the SHA-256 hash of the secret and a short display prefix are kept. */
export const ApiKey = Schema.Struct({
  id: ApiKeyId,
  accountId: AccountId,
  name: Schema.NullOr(Schema.String),
  mode: KeyMode,
  scopes: Schema.Array(Scope),
  prefix: Schema.String,
  hash: Schema.String,
  createdAt: Schema.DateFromSelf,
  revokedAt: Schema.NullOr(Schema.DateFromSelf),
})
export type ApiKey = typeof ApiKey.Type

/** An application credential (`svc_app_`): reaches the templates and brands of one application key. */
export const AppCredential = Schema.Struct({
  id: Schema.String,
  accountId: AccountId,
  applicationKey: Schema.String,
  allowedSenders: Schema.Array(Schema.String),
  prefix: Schema.String,
  hash: Schema.String,
  createdAt: Schema.DateFromSelf,
})
export type AppCredential = typeof AppCredential.Type

export const keyPrefixes = { live: "svc_live_", test: "svc_test_", app: "svc_app_" } as const

/** Random bytes after a credential's prefix; they are written as lowercase hex (Ids.token). */
export const credentialSecretBytes = 24

/** The whole shape of a credential Mailroom issues: its prefix, then exactly 48 lowercase hex digits. */
const credentialPattern = new RegExp(`^svc_(live|test|app)_[0-9a-f]{${credentialSecretBytes * 2}}$`)

/** Which kind of credential a bearer string is, or undefined when it is not one Mailroom could have issued (wrong
 *  prefix, length or alphabet): such a string is refused without looking it up. */
export const credentialKind = (bearer: string): "live" | "test" | "app" | undefined =>
  credentialPattern.exec(bearer)?.[1] as "live" | "test" | "app" | undefined

export const hasScope = (key: Pick<ApiKey, "scopes">, scope: Scope): boolean => key.scopes.includes(scope)

const Name = Schema.String.pipe(Schema.maxLength(255, { message: () => "must be at most 255 characters" }))

/** POST /admin/accounts (and PATCH, where every field is optional too). */
export const CreateAccountBody = Schema.Struct({
  name: Schema.optional(Schema.NullOr(Name)),
  plan: Schema.optional(Plan),
  ownerEmail: Schema.optional(Schema.NullOr(EmailAddress)),
})
export const UpdateAccountBody = CreateAccountBody

/** POST /admin/accounts/{id}/api-keys: scopes omitted means full access. */
export const CreateApiKeyBody = Schema.Struct({
  name: Schema.optional(Schema.NullOr(Name)),
  scopes: Schema.optional(Schema.Array(Scope)),
  mode: Schema.optional(KeyMode),
})

/** POST /admin/accounts/{id}/app-credentials. */
export const CreateAppCredentialBody = Schema.Struct({
  applicationKey: Name.pipe(Schema.minLength(1, { message: () => "must not be empty" })),
  allowedSenders: Schema.Array(Schema.NonEmptyTrimmedString),
})
