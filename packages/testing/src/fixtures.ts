/** Builders of complete core records for tests: accounts, keys, contacts and events with unique ids and fixed
 *  millisecond timestamps, so that every backend stores them exactly. */
import {
  type Account, type AccountId, type ApiKey, type ApiKeyId, type AppCredential, type Contact, type ContactId,
  type ContactTag, type CustomField, defaultFailureSettings, type DeliveryId, type DomainEvent, type EmailAddress,
  type EventType, type MemberId, type NewMember, newContact, type WebhookAttempt, type WebhookDelivery, type WebhookEndpoint,
  type WebhookId,
} from "@mailroom/core"

/** Tells this process's ids apart from those of other test processes sharing one database. Digits only, so that no
 *  generated id or address contains letters that a search test looks for. */
const runTag = Array.from(crypto.getRandomValues(new Uint8Array(10)), (byte) => byte % 10).join("")
let counter = 0

/** `<prefix>_<run>_<counter>`: unique across processes, and later ids sort after earlier ones within a process. */
const freshId = (prefix: string): string => `${prefix}_${runTag}_${String(++counter).padStart(9, "0")}`

/** The instant every fixture is stamped with unless told otherwise. */
export const fixtureTime = new Date("2024-05-01T12:00:00.000Z")

export const freshAccountId = (): AccountId => freshId("acc") as AccountId
export const freshContactId = (): ContactId => freshId("ct") as ContactId

/** A string that no other call returns, for hashes, setting keys and names. */
export const uniqueText = (label: string): string => freshId(label)

export const makeAccount = (overrides: Partial<Account> = {}): Account => ({
  id: freshAccountId(),
  name: "Test account",
  plan: "free",
  ownerEmail: "owner@example.com",
  createdAt: fixtureTime,
  ...overrides,
})

export const makeApiKey = (overrides: Partial<ApiKey> & Pick<ApiKey, "accountId">): ApiKey => ({
  id: freshId("key") as ApiKeyId,
  name: "Test key",
  mode: "live",
  scopes: ["contacts:read", "contacts:write"],
  prefix: "svc_live_abcd",
  hash: freshId("hash"),
  createdAt: fixtureTime,
  revokedAt: null,
  ...overrides,
})

export const makeAppCredential = (
  overrides: Partial<AppCredential> & Pick<AppCredential, "accountId">,
): AppCredential => ({
  id: freshId("app"),
  applicationKey: "newsletter",
  allowedSenders: ["news@example.com"],
  prefix: "svc_app_abcd",
  hash: freshId("hash"),
  createdAt: fixtureTime,
  ...overrides,
})

export const makeTag = (contactId: ContactId, tag: string): ContactTag => ({ id: freshId("tag"), contactId, tag })

export const makeCustomField = (contactId: ContactId, key: string, value: string): CustomField =>
  ({ id: freshId("cf"), contactId, key, value })

/** What a test says about a contact: any field of `Contact`, the address as a plain string, tags as names and
 *  custom fields as a record (ids and contact ids are filled in). */
export type ContactOverrides =
  & Partial<Omit<Contact, "accountId" | "email" | "tags" | "customFields">>
  & {
    readonly accountId: AccountId
    readonly email?: string
    readonly tags?: ReadonlyArray<string>
    readonly customFields?: Readonly<Record<string, string>>
  }

/** A complete contact: ACTIVE, source API, subscribed and created at `fixtureTime`, no tags or custom fields, a fresh
 *  `ct_` id and a fresh address unless the overrides say otherwise. */
export const makeContact = (overrides: ContactOverrides): Contact => {
  const { email, tags = [], customFields = {}, ...fields } = overrides
  const id = fields.id ?? freshContactId()
  const address = (email ?? `${freshId("contact")}@example.com`) as EmailAddress
  return {
    ...newContact({ id, accountId: fields.accountId, email: address, at: fixtureTime }),
    ...fields,
    tags: tags.map((tag) => makeTag(id, tag)),
    customFields: Object.entries(customFields).map(([key, value]) => makeCustomField(id, key, value)),
  }
}

export const makeEvent = (overrides: Partial<DomainEvent> & Pick<DomainEvent, "accountId">): DomainEvent => ({
  id: freshId("evt"),
  type: "contact.subscribed" satisfies EventType,
  recipient: null,
  details: {},
  occurredAt: fixtureTime,
  ...overrides,
})

/** Contacts to add to a list, each with a fresh membership id, in the order given (repeats kept). */
export const makeMembers = (contactIds: ReadonlyArray<ContactId>): ReadonlyArray<NewMember> =>
  contactIds.map((contactId) => ({ contactId, id: freshId("mem") as MemberId }))

/** An active endpoint subscribed to email.delivered, with default failure settings and a stand-in sealed secret. */
export const makeWebhookEndpoint = (
  overrides: Partial<WebhookEndpoint> & Pick<WebhookEndpoint, "accountId">,
): WebhookEndpoint => ({
  id: freshId("wh") as WebhookId,
  url: "https://hooks.example.com/in",
  events: ["email.delivered"],
  description: null,
  active: true,
  secretPrefix: "whsec_abcdef",
  sealedSecret: `sealed_${freshId("secret")}`,
  sealedPreviousSecret: null,
  previousSecretExpiresAt: null,
  failureSettings: defaultFailureSettings,
  streak: { consecutiveFailures: 0, notified: false },
  disabledReason: null,
  disabledAt: null,
  createdAt: fixtureTime,
  updatedAt: fixtureTime,
  ...overrides,
})

export const makeWebhookDelivery = (
  overrides: Partial<WebhookDelivery> & Pick<WebhookDelivery, "accountId" | "endpointId">,
): WebhookDelivery => ({
  id: freshId("whd") as DeliveryId,
  eventId: null,
  eventType: "email.delivered",
  kind: "test",
  payload: JSON.stringify({ eventType: "email.delivered" }),
  status: "pending",
  attempts: 0,
  lastStatusCode: null,
  lastError: null,
  createdAt: fixtureTime,
  updatedAt: fixtureTime,
  completedAt: null,
  ...overrides,
})

export const makeWebhookAttempt = (
  overrides: Partial<WebhookAttempt> & Pick<WebhookAttempt, "accountId" | "endpointId" | "deliveryId">,
): WebhookAttempt => ({
  id: freshId("wha"),
  attempt: 1,
  succeeded: true,
  statusCode: 200,
  durationMs: 12,
  responseSnippet: "ok",
  error: null,
  startedAt: fixtureTime,
  ...overrides,
})
