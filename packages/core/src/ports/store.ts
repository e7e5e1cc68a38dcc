/** The Store port: repositories scoped by account, plus `transaction`. Every backend passes @mailroom/testing's storeSuite. */
import type { CampaignRepository } from "./campaign-repository.js"
import { Context, Effect, FiberRef, type Option } from "effect"
import type { Account, AccountId, ApiKey, ApiKeyId, AppCredential } from "../domain/account.js"
import type { Contact, ContactFilter, ContactId, ContactQuery, ContactStatus, ContactTag, CustomField } from "../domain/contact.js"
import type { EmailAddress } from "../domain/email.js"
import type { DevOutboxEntry, DevOutboxQuery } from "../domain/dev-outbox.js"
import type { CanaryRun } from "../domain/canary.js"
import type { DomainEvent, EventType } from "../domain/event.js"
import type { DuplicateContact, StoreError } from "../errors.js"
import type { ContactList, ListQuery, ListWithCount } from "../domain/list.js"
import type { ContactMembership, ListMembership, MemberPage, MemberQuery, NewListMembership, NewMember } from "../domain/member.js"
import type { SegmentRules } from "../domain/segment.js"
import type {
  DeliveryId, DeliveryQuery, DeliveryStats, FailureStreak, WebhookAttempt, WebhookDelivery, WebhookEndpoint,
  WebhookEndpointWithCount, WebhookId,
} from "../domain/webhook.js"
import type { PendingConfirmation } from "../domain/confirmation.js"
import type { Eligibility, SendScope, Suppression, SuppressionQuery } from "../domain/suppression.js"
import type { Topic, TopicId, TopicOptOut, TopicQuery, TopicWithCount } from "../domain/topic.js"
import type { DuplicateTopic } from "../errors.js"
import type { MessageId } from "../domain/message.js"
import type { Form, FormId } from "../domain/form.js"
import type {
  IdempotencyRecord, MessageEvent, MessageRecipient, RecipientStatus, RecipientUpdate, StoredMessage,
} from "../domain/message-record.js"
import type { QuotaReservation } from "../domain/quota.js"
import type { Domain, DomainId, DomainQuery } from "../domain/domain.js"
import type { DomainAlreadyExists } from "../errors.js"
import type { AddressVerdict, ValidationJob, ValidationJobId, ValidationJobProgress } from "../domain/address-validation.js"
import type { BrandRepository } from "./brand-repository.js"
import type { DesignRepository } from "./design-repository.js"
import type { AssetRepository } from "./asset-repository.js"
import type { TrackingHit } from "../domain/tracking.js"
import type { AnalyticsRepository } from "./analytics-repository.js"

export interface AccountRepository {
  readonly insert: (account: Account) => Effect.Effect<void, StoreError>
  /** The account, or none. */
  readonly findById: (id: AccountId) => Effect.Effect<Option.Option<Account>, StoreError>
  /** Replaces name, plan and ownerEmail of an existing account; does nothing when the id is unknown. */
  readonly update: (account: Account) => Effect.Effect<void, StoreError>
  /** Inside a transaction, serialises writers of the same account until commit (Postgres: row lock; SQLite and
   *  memory serialise every transaction already). Used before checking account-wide limits such as the Free cap. */
  readonly lock: (id: AccountId) => Effect.Effect<void, StoreError>
}

export interface ApiKeyRepository {
  readonly insert: (key: ApiKey) => Effect.Effect<void, StoreError>
  /** The key with this SHA-256 hash, revoked or not, or none. */
  readonly findByHash: (hash: string) => Effect.Effect<Option.Option<ApiKey>, StoreError>
  /** Marks the account's key revoked at `at`. False when the key is unknown in this account; revoking twice is true. */
  readonly revoke: (accountId: AccountId, id: ApiKeyId, at: Date) => Effect.Effect<boolean, StoreError>
}

export interface AppCredentialRepository {
  readonly insert: (credential: AppCredential) => Effect.Effect<void, StoreError>
  readonly findByHash: (hash: string) => Effect.Effect<Option.Option<AppCredential>, StoreError>
  /** The account's credentials of one application key, oldest first. */
  readonly ofApplication: (accountId: AccountId, applicationKey: string) => Effect.Effect<ReadonlyArray<AppCredential>, StoreError>
}

/** Process-wide settings that must survive restarts (the generated MAILROOM_SECRET). Not scoped by account. */
export interface SettingRepository {
  /** Stores `value` under `key` unless a value is there already; answers the value that is stored afterwards. */
  readonly getOrInsert: (key: string, value: string) => Effect.Effect<string, StoreError>
  /** The value stored under `key`, or none. */
  readonly get: (key: string) => Effect.Effect<Option.Option<string>, StoreError>
  /** Stores `value` under `key`, replacing any value there. */
  readonly set: (key: string, value: string) => Effect.Effect<void, StoreError>
}

export interface ContactPage {
  readonly contacts: ReadonlyArray<Contact>
  /** Number of contacts matching the filter, over all pages. */
  readonly total: number
}

/** An address as the account knows it: the subscribe and resubscribe rules decide on both. */
export interface AddressRecord {
  readonly contact: Option.Option<Contact>
  readonly suppression: Option.Option<Suppression>
  /** The account's lists among the `listIds` asked about (archived ones too), in no particular order. */
  readonly listIds: ReadonlyArray<string>
}

export interface ContactRepository {
  /** Inserts a new contact with its tags and custom fields. Fails with DuplicateContact when the account already has
   *  a contact with this address; nothing is written then. */
  readonly insert: (contact: Contact) => Effect.Effect<void, DuplicateContact | StoreError>
  /** Inserts every contact whose address the account does not hold yet (within `contacts` too, the first wins), with
   *  tags and custom fields, in one round of statements (never one per contact). Answers the contacts inserted, in
   *  input order. */
  readonly insertMany: (contacts: ReadonlyArray<Contact>) => Effect.Effect<ReadonlyArray<Contact>, StoreError>
  /** Replaces the scalar fields (everything but tags, customFields and createdAt) of an existing contact, and answers
   *  whether it did. With `expectedStatus`, only while the stored contact still has that status, checked and written
   *  as one atomic step (a compare-and-set): a writer that read the status and decided from it answers false, writing
   *  nothing, when a concurrent move changed the status meanwhile, and decides again from the status now stored. Also
   *  false when the contact is gone. Fails with DuplicateContact when the new address belongs to another contact of
   *  the account. */
  readonly update: (
    contact: Contact,
    options?: { readonly expectedStatus?: ContactStatus },
  ) => Effect.Effect<boolean, DuplicateContact | StoreError>
  /** Replaces the contact's custom fields with `fields`. */
  readonly replaceCustomFields: (accountId: AccountId, contactId: ContactId, fields: ReadonlyArray<CustomField>) => Effect.Effect<void, StoreError>
  /** Adds tags the contact does not have yet (by tag name); existing tags are kept with their ids. */
  readonly addTags: (accountId: AccountId, contactId: ContactId, tags: ReadonlyArray<ContactTag>) => Effect.Effect<void, StoreError>
  /** Removes one tag by name. False when the contact did not have it. */
  readonly removeTag: (accountId: AccountId, contactId: ContactId, tag: string) => Effect.Effect<boolean, StoreError>
  /** The account's contact with tags and custom fields, or none (also for another account's id). */
  readonly findById: (accountId: AccountId, id: ContactId) => Effect.Effect<Option.Option<Contact>, StoreError>
  /** The account's contact with this address, if any. Addresses arrive lower-cased. */
  readonly findByEmail: (accountId: AccountId, email: EmailAddress) => Effect.Effect<Option.Option<Contact>, StoreError>
  /** What the account knows of an address, in one query (two more for the tags and custom fields of a contact found):
   *  its contact, with tags and custom fields, and its account-level suppression, each or none; and, in the same
   *  query, which of `listIds` (none when left out) are the account's lists. Addresses arrive lower-cased. */
  readonly findAddress: (
    accountId: AccountId,
    email: EmailAddress,
    listIds?: ReadonlyArray<string>,
  ) => Effect.Effect<AddressRecord, StoreError>
  /** The account's contacts among these addresses, in one query, in no particular order. */
  readonly findByEmails: (accountId: AccountId, emails: ReadonlyArray<EmailAddress>) => Effect.Effect<ReadonlyArray<Contact>, StoreError>
  /** The account's contacts among these ids (foreign and unknown ids are left out), in one query. */
  readonly findByIds: (accountId: AccountId, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Contact>, StoreError>
  /** One page of contacts matching the query (semantics of core's matchesContactFilter and compareContacts), with tags
   *  and custom fields, in a bounded number of queries. */
  readonly list: (accountId: AccountId, query: ContactQuery) => Effect.Effect<ContactPage, StoreError>
  /** Up to `size` contacts matching `filter` with an id greater than `afterId` (all when undefined), ordered by id
   *  ascending, with tags and custom fields. Export streams the account by calling it repeatedly. */
  readonly listAfter: (accountId: AccountId, filter: ContactFilter, afterId: ContactId | undefined, size: number) => Effect.Effect<ReadonlyArray<Contact>, StoreError>
  /** Deletes the contact with its tags, custom fields and list memberships. False when it did not exist. */
  readonly delete: (accountId: AccountId, id: ContactId) => Effect.Effect<boolean, StoreError>
  /** Deletes the account's contacts among these ids (foreign ids ignored); answers how many were deleted. */
  readonly deleteMany: (accountId: AccountId, ids: ReadonlyArray<string>) => Effect.Effect<number, StoreError>
  /** Number of the account's contacts with status ACTIVE. */
  readonly countActive: (accountId: AccountId) => Effect.Effect<number, StoreError>
  /** Every tag name used in the account with the number of contacts holding it, ordered by name. */
  readonly tagCounts: (accountId: AccountId) => Effect.Effect<ReadonlyArray<{ readonly name: string; readonly count: number }>, StoreError>
}

/** Most events that a relay to a consumer of some types passes at once when none of them is of its types (see
 *  EventOutbox.relay): one read of the window's end instead of one per batch of the consumer's size. */
export const relayPassWindow = 5_000

export interface EventOutbox {
  /** Appends events; they commit or roll back with the surrounding transaction. */
  readonly append: (events: ReadonlyArray<DomainEvent>) => Effect.Effect<void, StoreError>
  /** The account's events, oldest first, optionally of one type. For delivery workers and tests. */
  readonly list: (accountId: AccountId, options?: { readonly type?: EventType; readonly limit?: number }) => Effect.Effect<ReadonlyArray<DomainEvent>, StoreError>
  /** Offers committed events to `consumer`, in order, once each unless `handle` fails. In one transaction: takes the
   *  oldest committed events after the consumer's cursor (at most `limit`, of every account), runs `handle` on them
   *  (its Store writes join that transaction) and moves the cursor past them. When `handle` fails, nothing moves and
   *  the same events are offered again on the next call. The cursor is stored, so it survives restarts; a consumer
   *  never seen before starts at the oldest event. An event whose transaction commits late (after events appended
   *  after it) is never skipped. With `types`, only the events of those types are read and handed to `handle` (which
   *  is not called when the batch has none); the cursor moves past the others all the same, and past a window of up
   *  to `relayPassWindow` events at once when none of them is of those types. Answers how many events the cursor moved
   *  past: 0 when none waits, or when another process is relaying to the same consumer at that moment. Fewer than
   *  `limit`, or, past a window without its types, more than `limit` and fewer than `relayPassWindow`: it reached
   *  the end of the events committed, and the caller may wait for more. */
  readonly relay: <E, R>(
    consumer: string,
    limit: number,
    handle: (events: ReadonlyArray<DomainEvent>) => Effect.Effect<void, E, R>,
    types?: ReadonlyArray<EventType>,
  ) => Effect.Effect<number, E | StoreError, R>
  /** The wait for new events (of `types`, when given): answers an effect that completes once a transaction of this
   *  process that appended such events commits after the call (an append outside a transaction counts on its own). The
   *  relay takes it before it reads, so an event committed while it reads still wakes it, and a consumer of some types
   *  sleeps through commits of other events. A hint only: events of other processes are found by polling. */
  readonly appended: (types?: ReadonlyArray<EventType>) => Effect.Effect<Effect.Effect<void>>
}

export interface ListPage {
  readonly lists: ReadonlyArray<ListWithCount>
  /** Lists matching the query, over all pages. */
  readonly total: number
}

export interface ListRepository {
  readonly insert: (list: ContactList) => Effect.Effect<void, StoreError>
  /** Replaces every field but id, accountId, type and createdAt of the account's list. False when the list is unknown
   *  in the account (nothing is written then). */
  readonly update: (list: ContactList) => Effect.Effect<boolean, StoreError>
  /** The account's list, archived or not, or none (also for another account's id). Inside a transaction, `forUpdate`
   *  locks it until commit, so that a writer that reads it, changes some fields and writes it back does not lose a
   *  concurrent writer's change (Postgres: a FOR NO KEY UPDATE row lock). */
  readonly findById: (accountId: AccountId, id: string, options?: { readonly forUpdate?: boolean }) => Effect.Effect<Option.Option<ContactList>, StoreError>
  /** The account's lists among these ids, archived or not (foreign and unknown ids left out), in one query, in no
   *  particular order. */
  readonly findByIds: (accountId: AccountId, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ContactList>, StoreError>
  /** One page of the account's lists matching the query (semantics of core's matchesListQuery and compareLists), each
   *  with its contactCount at `now`: the current members of a STATIC list, the contacts matching the rules of a
   *  DYNAMIC one (core's matchesSegment). A bounded number of queries, whatever the page holds. */
  readonly list: (accountId: AccountId, query: ListQuery, now: Date) => Effect.Effect<ListPage, StoreError>
  /** `current`: the list's contactCount at `now` (as in `list`); `all`: its membership rows, removed ones included
   *  (for a DYNAMIC list, the matching contacts again). */
  readonly countMembers: (accountId: AccountId, list: ContactList, now: Date) => Effect.Effect<{ readonly current: number; readonly all: number }, StoreError>
  /** Sets lastSyncedAt of the account's list; does nothing when the id is unknown in the account. */
  readonly markSynced: (accountId: AccountId, id: string, at: Date) => Effect.Effect<void, StoreError>
}

export interface MemberRepository {
  /** One page of a STATIC list's membership rows, removed ones included, in core's compareMembers order, with counts
   *  over the whole list. `active` and `suppressed` agree with core's memberSuppressionStatuses (none / at least one)
   *  and are decided by the storage query, never by loading every member. One query. */
  readonly page: (accountId: AccountId, listId: string, query: MemberQuery) => Effect.Effect<MemberPage, StoreError>
  /** The same for the account's contacts matching `rules` at `now` (the members of a DYNAMIC list; core's
   *  matchesSegment): id `<listId>:<contactId>`, addedAt the contact's createdAt, removedAt null; ordered by createdAt
   *  then contact id, both descending. One query. */
  readonly pageMatching: (accountId: AccountId, listId: string, rules: SegmentRules, query: MemberQuery, now: Date) => Effect.Effect<MemberPage, StoreError>
  /** The membership of this contact in the account's list, current or removed, or none. */
  readonly find: (accountId: AccountId, listId: string, contactId: ContactId) => Effect.Effect<Option.Option<ListMembership>, StoreError>
  /** Every membership of the account's contact in the account's STATIC lists, current and removed, archived lists
   *  included, each with its list's name and topic, in core's compareContactMemberships order (newest first). Empty
   *  for an unknown or foreign contact. One query. */
  readonly ofContact: (accountId: AccountId, contactId: ContactId) => Effect.Effect<ReadonlyArray<ContactMembership>, StoreError>
  /** Makes each of the account's contacts among `members` a current member of the account's list: inserts a
   *  membership with the id given beside the contact (the service mints it), or restores a removed one (removedAt
   *  cleared, addedAt = `at`, its id kept; the id given is then unused). Current members stay as they are; unknown and
   *  foreign contact ids, and lists of another account, are ignored; a contact named twice counts once (the first
   *  id). Set-based: a bounded number of statements whatever the number of contacts. Answers the contact ids newly
   *  added or restored, in no particular order. */
  readonly addCurrent: (accountId: AccountId, listId: string, members: ReadonlyArray<NewMember>, at: Date) => Effect.Effect<ReadonlyArray<ContactId>, StoreError>
  /** The same for one contact and several of the account's lists (a subscribe naming lists): each list among
   *  `memberships` gets a new membership with the id given beside it, or its removed one restored; current
   *  memberships stay as they are; lists of another account, unknown lists and a foreign contact are ignored; a list
   *  named twice counts once (the first id). One statement. Answers the list ids newly added or restored, in no
   *  particular order. */
  readonly addToLists: (accountId: AccountId, contactId: ContactId, memberships: ReadonlyArray<NewListMembership>, at: Date) => Effect.Effect<ReadonlyArray<string>, StoreError>
  /** addToLists for a contact the caller inserted earlier in its transaction, which is the account's and in no list
   *  yet: it gets a new membership of each of the account's lists among `memberships` (the first id of a list named
   *  twice); lists of another account and unknown lists are ignored. One statement, cheaper than addToLists: nothing
   *  to restore, and the contact's account is known. Answers the list ids joined, in no particular order. */
  readonly addNewContactToLists: (accountId: AccountId, contactId: ContactId, memberships: ReadonlyArray<NewListMembership>, at: Date) => Effect.Effect<ReadonlyArray<string>, StoreError>
  /** Deletes the current memberships of these contacts (removal by the list owner, which is no unsubscribe and keeps
   *  no history: rule 2). Removed memberships stay. Answers the ids whose membership was deleted. */
  readonly remove: (accountId: AccountId, listId: string, contactIds: ReadonlyArray<ContactId>) => Effect.Effect<ReadonlyArray<ContactId>, StoreError>
  /** Marks the current memberships of these contacts removed at `at` (an unsubscribe from the list: the row stays as
   *  history, rule 2). Answers the ids marked. */
  readonly markRemoved: (accountId: AccountId, listId: string, contactIds: ReadonlyArray<ContactId>, at: Date) => Effect.Effect<ReadonlyArray<ContactId>, StoreError>
}

export interface SuppressionPage {
  readonly suppressions: ReadonlyArray<Suppression>
  /** Suppressions matching the query, over all pages. */
  readonly total: number
}

export interface SuppressionRepository {
  /** The account's suppression of this address, or none. Addresses arrive lower-cased. */
  readonly findByEmail: (accountId: AccountId, email: EmailAddress) => Effect.Effect<Option.Option<Suppression>, StoreError>
  /** Inserts `suppression`, or, when the address is suppressed already, replaces its reason, details and updatedAt
   *  (its id and createdAt stay). Answers the stored suppression and whether it was created. */
  readonly put: (suppression: Suppression) => Effect.Effect<{ readonly suppression: Suppression; readonly created: boolean }, StoreError>
  /** Inserts `suppression` unless the address is suppressed already (whatever the reason; the existing one is kept).
   *  True when it was inserted. */
  readonly insertIfAbsent: (suppression: Suppression) => Effect.Effect<boolean, StoreError>
  /** Bulk add, set-based (a bounded number of statements whatever the number of addresses): inserts the suppressions
   *  of addresses not suppressed yet, and replaces reason, details and updatedAt of those suppressed with another
   *  reason; those suppressed with the same reason stay as they are. All share accountId; duplicates of an address
   *  count once. Each suppression carries a fresh id (an updated row keeps its stored id). Answers how many were added
   *  and how many updated. */
  readonly putMany: (suppressions: ReadonlyArray<Suppression>) => Effect.Effect<{ readonly added: number; readonly updated: number }, StoreError>
  /** Deletes the suppression of the address. False when there was none. */
  readonly delete: (accountId: AccountId, email: EmailAddress) => Effect.Effect<boolean, StoreError>
  /** Deletes the suppressions of these addresses, set-based; answers how many were deleted. */
  readonly deleteMany: (accountId: AccountId, emails: ReadonlyArray<EmailAddress>) => Effect.Effect<number, StoreError>
  /** One page of the account's suppressions (core's matchesSuppressionQuery and compareSuppressions), with the total. */
  readonly list: (accountId: AccountId, query: SuppressionQuery) => Effect.Effect<SuppressionPage, StoreError>
  /** Send-time filtering of `addresses` for a send of `scope` (core's eligibility table, `ineligibility`): the
   *  eligible addresses in the order given (each once) and every dropped one with its reason. The SQL backends answer
   *  it with one set-based query per batch of addresses, never one per address. */
  readonly eligibility: (accountId: AccountId, scope: SendScope, addresses: ReadonlyArray<EmailAddress>) => Effect.Effect<Eligibility, StoreError>
}

export interface TopicPage {
  readonly topics: ReadonlyArray<TopicWithCount>
  readonly total: number
}

export interface TopicRepository {
  /** Fails with DuplicateTopic when the account has a topic of this name; nothing is written then. */
  readonly insert: (topic: Topic) => Effect.Effect<void, DuplicateTopic | StoreError>
  /** Replaces every field but id, accountId and createdAt. False when the topic is unknown in the account. Fails with
   *  DuplicateTopic when another topic of the account has the new name. */
  readonly update: (topic: Topic) => Effect.Effect<boolean, DuplicateTopic | StoreError>
  /** The account's topic, or none (also for another account's id). Inside a transaction, `forUpdate` locks it until
   *  commit, so that a writer that reads it, changes some fields and writes it back does not lose a concurrent
   *  writer's change (Postgres: a FOR NO KEY UPDATE row lock). */
  readonly findById: (accountId: AccountId, id: string, options?: { readonly forUpdate?: boolean }) => Effect.Effect<Option.Option<Topic>, StoreError>
  /** The account's topics among these ids (foreign and unknown ids left out), in one query. */
  readonly findByIds: (accountId: AccountId, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Topic>, StoreError>
  /** Every topic of the account, published or not, in display order (core's compareTopicsForDisplay). */
  readonly all: (accountId: AccountId) => Effect.Effect<ReadonlyArray<Topic>, StoreError>
  /** One page of topics with their opt-out counts: with `published`, only topics shown on the preference centre, in
   *  display order; otherwise every topic, oldest first (compareTopicsByCreation). */
  readonly list: (accountId: AccountId, query: TopicQuery) => Effect.Effect<TopicPage, StoreError>
  /** Number of addresses that opted out of the topic. */
  readonly countOptOuts: (accountId: AccountId, id: TopicId) => Effect.Effect<number, StoreError>
  /** Deletes the topic and its opt-outs. False when it is unknown in the account. */
  readonly delete: (accountId: AccountId, id: TopicId) => Effect.Effect<boolean, StoreError>
  /** One page of the topic's opt-outs, newest first (ties by address), with the total. */
  readonly optOuts: (accountId: AccountId, id: TopicId, page: { readonly page: number; readonly limit: number }) => Effect.Effect<{ readonly optOuts: ReadonlyArray<TopicOptOut>; readonly total: number }, StoreError>
  /** Records that the address opted out of the account's topic. False when it had already (nothing changes). */
  readonly optOut: (accountId: AccountId, id: TopicId, email: EmailAddress, at: Date) => Effect.Effect<boolean, StoreError>
  /** Opts these addresses out of the account's topic, set-based; answers how many were newly opted out. */
  readonly optOutMany: (accountId: AccountId, id: TopicId, emails: ReadonlyArray<EmailAddress>, at: Date) => Effect.Effect<number, StoreError>
  /** Removes the opt-outs of these addresses, set-based; answers how many were removed. */
  readonly optInMany: (accountId: AccountId, id: TopicId, emails: ReadonlyArray<EmailAddress>) => Effect.Effect<number, StoreError>
  /** Removes the opt-out. False when there was none. */
  readonly optIn: (accountId: AccountId, id: TopicId, email: EmailAddress) => Effect.Effect<boolean, StoreError>
  /** The ids of the account's topics the address opted out of. */
  readonly optedOut: (accountId: AccountId, email: EmailAddress) => Effect.Effect<ReadonlyArray<TopicId>, StoreError>
}

export interface ConfirmationRepository {
  /** Stores the pending confirmation of its contact, replacing the one there. */
  readonly put: (confirmation: PendingConfirmation) => Effect.Effect<void, StoreError>
  /** The contact's pending confirmation in the account, or none. */
  readonly find: (accountId: AccountId, contactId: ContactId) => Effect.Effect<Option.Option<PendingConfirmation>, StoreError>
  /** Deletes it; false when there was none. It goes with its contact too. */
  readonly delete: (accountId: AccountId, contactId: ContactId) => Effect.Effect<boolean, StoreError>
}

/** The dev outbox: messages kept instead of sent while no SMTP relay is configured. Not scoped by account (the Mailer
 *  knows no account; the operator reads the whole outbox). */
export interface DevOutboxRepository {
  /** Keeps one message; it commits or rolls back with the surrounding transaction. */
  readonly insert: (entry: DevOutboxEntry) => Effect.Effect<void, StoreError>
  /** Up to `limit` entries, newest first (by createdAt, then the later insert first), optionally only those with `to`
   *  among their envelope recipients (compared case-insensitively), optionally only those whose subject, from,
   *  recipients or text body contain `q` (case-insensitive substring, over the whole outbox). One query. */
  readonly list: (query: DevOutboxQuery) => Effect.Effect<ReadonlyArray<DevOutboxEntry>, StoreError>
  /** The entry with this id, or none. */
  readonly get: (id: string) => Effect.Effect<Option.Option<DevOutboxEntry>, StoreError>
  /** Empties the outbox (DELETE /admin/outbox); answers how many entries were removed. */
  readonly clear: () => Effect.Effect<number, StoreError>
}

/** The delivery canary's runs (docs/canary.md). They belong to the platform, not to an account. */
export interface CanaryRunRepository {
  /** Keeps one finished run. */
  readonly insert: (run: CanaryRun) => Effect.Effect<void, StoreError>
  /** Up to `limit` runs, the latest first (by finishedAt, then id). One query. */
  readonly list: (limit: number) => Effect.Effect<ReadonlyArray<CanaryRun>, StoreError>
}

/** An event handed to fan-out: what the delivery needs, with the request body already built. */
export interface FanOutEvent {
  readonly id: string
  readonly accountId: AccountId
  readonly type: EventType
  /** The request body (core's webhookEnvelope, serialised). */
  readonly payload: string
}

/** What recording an attempt changes on its delivery. */
export interface DeliveryOutcome {
  readonly status: WebhookDelivery["status"]
  readonly lastStatusCode: number | null
  readonly lastError: string | null
  readonly at: Date
}

/** An endpoint's failure streak to store, as recordAttempts takes it. */
export interface EndpointStreak {
  readonly accountId: AccountId
  readonly endpointId: WebhookId
  readonly streak: FailureStreak
}

export interface WebhookRepository {
  readonly insertEndpoint: (endpoint: WebhookEndpoint) => Effect.Effect<void, StoreError>
  /** Replaces every field but id, accountId and createdAt, subscriptions included. False when the endpoint is unknown
   *  in the account (nothing is written then). */
  readonly updateEndpoint: (endpoint: WebhookEndpoint) => Effect.Effect<boolean, StoreError>
  /** The account's endpoint, or none (also for another account's id). Inside a transaction, `forUpdate` locks it
   *  until commit, so that concurrent attempts update its failure streak one after another (Postgres: a FOR NO KEY
   *  UPDATE row lock, which the foreign-key checks of new deliveries and attempts do not wait for). */
  readonly findEndpoint: (accountId: AccountId, id: string, options?: { readonly forUpdate?: boolean }) => Effect.Effect<Option.Option<WebhookEndpoint>, StoreError>
  /** The account's endpoints, oldest first, each with its number of deliveries. */
  readonly listEndpoints: (accountId: AccountId) => Effect.Effect<ReadonlyArray<WebhookEndpointWithCount>, StoreError>
  readonly countEndpoints: (accountId: AccountId) => Effect.Effect<number, StoreError>
  /** Deletes the endpoint with its subscriptions, deliveries and attempts. False when it did not exist. */
  readonly deleteEndpoint: (accountId: AccountId, id: string) => Effect.Effect<boolean, StoreError>
  /** Makes one pending delivery per (event, active endpoint of the event's account subscribed to its type), with id
   *  deliveryIdFor(event, endpoint). A pair that has a delivery already is left alone, so handing the same events
   *  twice makes nothing new. Set-based: one statement for the whole batch (split only at the parameter limit).
   *  Answers the deliveries made, in no particular order. */
  readonly fanOut: (events: ReadonlyArray<FanOutEvent>, at: Date) => Effect.Effect<ReadonlyArray<WebhookDelivery>, StoreError>
  /** Inserts one delivery (tests and retry notices). */
  readonly insertDelivery: (delivery: WebhookDelivery) => Effect.Effect<void, StoreError>
  /** The account's delivery, or none. */
  readonly findDelivery: (accountId: AccountId, id: string) => Effect.Effect<Option.Option<WebhookDelivery>, StoreError>
  /** One page of the endpoint's deliveries, newest first (createdAt then id, descending), with the total matching. */
  readonly listDeliveries: (accountId: AccountId, endpointId: WebhookId, query: DeliveryQuery) => Effect.Effect<{ readonly deliveries: ReadonlyArray<WebhookDelivery>; readonly total: number }, StoreError>
  /** The named deliveries of their accounts, each with its endpoint, in one read. A delivery that is unknown, of
   *  another account, or whose endpoint is gone is left out. Answers in no particular order. */
  readonly findDeliveriesWithEndpoints: (refs: ReadonlyArray<{ readonly accountId: AccountId; readonly deliveryId: string }>) => Effect.Effect<ReadonlyArray<{ readonly delivery: WebhookDelivery; readonly endpoint: WebhookEndpoint }>, StoreError>
  /** The named endpoints of their accounts, in one read, ordered by id; unknown ones are left out. Locks nothing: for
   *  a run that has its deliveries already and reads their endpoints as they are now. */
  readonly findEndpoints: (refs: ReadonlyArray<{ readonly accountId: AccountId; readonly endpointId: string }>) => Effect.Effect<ReadonlyArray<WebhookEndpoint>, StoreError>
  /** The named endpoints of their accounts, in one read, ordered by id; unknown ones are left out. Inside a
   *  transaction they stay locked until commit, taken in the order of their ids (Postgres: FOR NO KEY UPDATE, as
   *  findEndpoint's `forUpdate`), so that two groups locking overlapping endpoints cannot deadlock. */
  readonly lockEndpoints: (refs: ReadonlyArray<{ readonly accountId: AccountId; readonly endpointId: string }>) => Effect.Effect<ReadonlyArray<WebhookEndpoint>, StoreError>
  /** Records attempts and what each did to its delivery (status, last status code and error, attempts counted,
   *  completedAt set when the status is no longer pending), set-based (one insert of the attempts, one update of their
   *  deliveries, split only at the parameter limit), atomically. Each delivery appears at most once in one call. With `streaks`,
   *  the same atomic write sets those endpoints' failure streaks (writing only those that differ; an endpoint of
   *  another account, or gone, is left alone): on Postgres the whole record is one statement. */
  readonly recordAttempts: (
    records: ReadonlyArray<{ readonly attempt: WebhookAttempt; readonly outcome: DeliveryOutcome }>,
    streaks?: ReadonlyArray<EndpointStreak>,
  ) => Effect.Effect<void, StoreError>
  /** The attempts of a delivery, first first. */
  readonly listAttempts: (accountId: AccountId, deliveryId: DeliveryId) => Effect.Effect<ReadonlyArray<WebhookAttempt>, StoreError>
  /** Attempts of the endpoint started at or after `since`: how many, and how many succeeded. */
  readonly attemptStats: (accountId: AccountId, endpointId: WebhookId, since: Date) => Effect.Effect<DeliveryStats, StoreError>
  /** Sets the endpoint's failure streak. */
  readonly setStreak: (accountId: AccountId, endpointId: WebhookId, streak: FailureStreak) => Effect.Effect<void, StoreError>
  /** Pending deliveries of every account whose endpoint is active, by id, after `afterId` (from the first when
   *  undefined), at most `limit`, with the endpoint, the attempts each has had and when it last changed (made, or its
   *  last attempt recorded): the work to queue again when delivery starts. */
  readonly pendingDeliveries: (afterId: string | undefined, limit: number) => Effect.Effect<ReadonlyArray<Pick<WebhookDelivery, "id" | "accountId" | "endpointId" | "attempts" | "updatedAt">>, StoreError>
  /** Deletes attempts of every account started before `before`; answers how many. */
  readonly purgeAttempts: (before: Date) => Effect.Effect<number, StoreError>
}

export interface MessageRepository {
  /** Inserts messages with their recipients, in a bounded number of statements whatever their number (a batch of
   *  1,000 messages is a few multi-row inserts, never one statement per message). */
  readonly insertMany: (messages: ReadonlyArray<StoredMessage>) => Effect.Effect<void, StoreError>
  /** The account's message with its recipients in envelope order, or none (also for another account's id). */
  readonly findById: (accountId: AccountId, id: MessageId) => Effect.Effect<Option.Option<StoredMessage>, StoreError>
  /** The account's messages among `ids`, with their recipients, in the order of `ids`; ids unknown in the account are
   *  left out. A bounded number of statements whatever their number (findById is this with one id). */
  readonly findByIds: (accountId: AccountId, ids: ReadonlyArray<MessageId>) => Effect.Effect<ReadonlyArray<StoredMessage>, StoreError>
  /** Sets status and last response of the named recipients (message and position) of the account's messages, adds
   *  `addAttempts` to their attempts and sets updatedAt, in one statement whatever their number. Recipients not named,
   *  and messages or positions the account does not have, are left alone. */
  readonly updateRecipients: (accountId: AccountId, updates: ReadonlyArray<RecipientUpdate>) => Effect.Effect<void, StoreError>
  /** Moves the account's scheduled message to `to`: queued when its time comes, cancelled by DELETE
   *  /emails/schedule/{id}. False, and nothing written, when the message is not scheduled (already queued, cancelled,
   *  unknown or another account's). Conditional on the state, so of a concurrent cancel and send exactly one wins. */
  readonly moveScheduled: (accountId: AccountId, id: MessageId, to: "queued" | "cancelled") => Effect.Effect<boolean, StoreError>
  /** Scheduled messages of every account whose scheduledFor is at or before `at`, earliest first, at most `limit`. */
  readonly dueScheduled: (at: Date, limit: number) => Effect.Effect<ReadonlyArray<{ readonly accountId: AccountId; readonly id: MessageId; readonly scheduledFor: Date }>, StoreError>
  /** The account's recipients with this status (held ones for review, say), least recently updated first, at most
   *  `limit`, each with its message id. */
  readonly recipientsWithStatus: (accountId: AccountId, status: RecipientStatus, limit: number) => Effect.Effect<ReadonlyArray<{ readonly messageId: MessageId; readonly recipient: MessageRecipient }>, StoreError>
  /** Appends per-recipient events; they commit with the surrounding transaction. */
  readonly appendEvents: (events: ReadonlyArray<MessageEvent>) => Effect.Effect<void, StoreError>
  /** The events of the account's message, oldest first (ties in append order). */
  readonly events: (accountId: AccountId, id: MessageId) => Effect.Effect<ReadonlyArray<MessageEvent>, StoreError>
}

export interface QuotaRepository {
  /** Adds `count` recipients to the account's counter of `period` when the total stays within `limit` (no limit when
   *  null), and answers whether it did. Atomic: concurrent reservations never take the counter past the limit, on any
   *  backend and whatever the isolation of the caller's transaction. Never refunded. */
  readonly reserve: (accountId: AccountId, period: string, count: number, limit: number | null) => Effect.Effect<QuotaReservation, StoreError>
  /** Recipients counted in the account's period so far (0 when none). */
  readonly used: (accountId: AccountId, period: string) => Effect.Effect<number, StoreError>
}

export interface IdempotencyRepository {
  /** The account's record for `key` made at or after `notBefore`, or none (older records have expired). */
  readonly find: (accountId: AccountId, key: string, notBefore: Date) => Effect.Effect<Option.Option<IdempotencyRecord>, StoreError>
  /** Stores the record, replacing an expired one (made before `notBefore`). False, and nothing written, when the
   *  account holds a live record for the key: a concurrent request with the key got there first. */
  readonly save: (record: IdempotencyRecord, notBefore: Date) => Effect.Effect<boolean, StoreError>
}

export interface FormRepository {
  readonly insert: (form: Form) => Effect.Effect<void, StoreError>
  /** Replaces every field but id, accountId and createdAt. False when the form is unknown in the account. */
  readonly update: (form: Form) => Effect.Effect<boolean, StoreError>
  /** The account's form, or none (also for another account's id). */
  readonly findById: (accountId: AccountId, id: string) => Effect.Effect<Option.Option<Form>, StoreError>
  /** The form with this id in any account: the public routes know only the form id. */
  readonly findPublic: (id: string) => Effect.Effect<Option.Option<Form>, StoreError>
  /** One page of the account's forms, oldest first (ties by id), with the total. */
  readonly list: (accountId: AccountId, page: { readonly page: number; readonly limit: number }) => Effect.Effect<{ readonly forms: ReadonlyArray<Form>; readonly total: number }, StoreError>
  /** False when the form is unknown in the account. */
  readonly delete: (accountId: AccountId, id: FormId) => Effect.Effect<boolean, StoreError>
}

export interface DomainRepository {
  /** Inserts a new domain. Fails with DomainAlreadyExists when the account has a domain with this hostname; nothing
   *  is written then. */
  readonly insert: (domain: Domain) => Effect.Effect<void, DomainAlreadyExists | StoreError>
  /** Replaces status, records, spfValue, verifiedAt, lastCheckedAt and failingSince of the account's domain. False
   *  when the domain is unknown in the account (nothing is written then). */
  readonly update: (domain: Domain) => Effect.Effect<boolean, StoreError>
  /** The account's domain, or none (also for another account's id). */
  readonly findById: (accountId: AccountId, id: string) => Effect.Effect<Option.Option<Domain>, StoreError>
  /** The account's domain with this hostname (lower-case, punycode), or none. */
  readonly findByHostname: (accountId: AccountId, hostname: string) => Effect.Effect<Option.Option<Domain>, StoreError>
  /** One page of the account's domains matching the query (core's matchesDomainQuery), in core's compareDomains
   *  order (newest first), with the total matching. */
  readonly list: (accountId: AccountId, query: DomainQuery) => Effect.Effect<{ readonly domains: ReadonlyArray<Domain>; readonly total: number }, StoreError>
  /** How many domains the account has, whatever their status. */
  readonly count: (accountId: AccountId) => Effect.Effect<number, StoreError>
  /** Deletes the account's domain with its key. False when it did not exist. */
  readonly delete: (accountId: AccountId, id: DomainId) => Effect.Effect<boolean, StoreError>
  /** For the daily re-check, across every account: up to `limit` domains that are `pending` or `verified`, in id
   *  order, with ids after `after` (from the first when undefined). */
  readonly listForRecheck: (after: string | undefined, limit: number) => Effect.Effect<ReadonlyArray<Domain>, StoreError>
}

export interface ValidationJobRepository {
  /** Inserts a new bulk validation job. */
  readonly insert: (job: ValidationJob) => Effect.Effect<void, StoreError>
  /** The account's job with its addresses and progress, or none (also for another account's id). */
  readonly findById: (accountId: AccountId, id: string) => Effect.Effect<Option.Option<ValidationJob>, StoreError>
  /** The account's job as `findById` reads it, without its addresses (their count instead), or none. */
  readonly findProgress: (accountId: AccountId, id: string) => Effect.Effect<Option.Option<ValidationJobProgress>, StoreError>
  /** The results stored so far, in the order of the job's addresses; none for an unknown job. */
  readonly results: (accountId: AccountId, id: ValidationJobId) => Effect.Effect<ReadonlyArray<AddressVerdict>, StoreError>
  /** Stores the results of chunk `index` (the chunks of one job are numbered from 0, in the order of its addresses)
   *  and adds their count to the job's `processed`. A chunk already stored is left as it is and counts nothing: a run
   *  retried after a crash may store it again. Run it in a transaction: its two writes then commit together. */
  readonly saveChunk: (
    accountId: AccountId,
    id: ValidationJobId,
    index: number,
    results: ReadonlyArray<AddressVerdict>,
  ) => Effect.Effect<void, StoreError>
  /** Replaces status, startedAt, completedAt and error of the account's job. False when it is unknown. */
  readonly setState: (
    job: Pick<ValidationJob, "id" | "accountId" | "status" | "startedAt" | "completedAt" | "error">,
  ) => Effect.Effect<boolean, StoreError>
}

/** The message and recipient an open is about. */
export interface OpenKey {
  readonly accountId: AccountId
  readonly messageId: string
  readonly recipient: string
}

/** Recorded opens and clicks (docs/tracking.md): the raw rows the analytics rollups are built from, and the mark of
 *  each message and recipient whose open fired email.opened. */
export interface TrackingRepository {
  /** Inserts hits, in a bounded number of statements whatever their number. A hit whose id is stored already is left
   *  as it is (a batch written again after a failure). */
  readonly insertHits: (hits: ReadonlyArray<TrackingHit>) => Effect.Effect<void, StoreError>
  /** Marks each message and recipient as opened, and answers those that were not marked before, in the order given:
   *  the opens that fire email.opened now. A key given twice is answered once. Atomic against concurrent calls: of two
   *  that mark the same key, one answers it. */
  readonly markOpened: (keys: ReadonlyArray<OpenKey>, at: Date) => Effect.Effect<ReadonlyArray<OpenKey>, StoreError>
  /** The hits of the account's message, oldest first (ties by id); none for another account's message. */
  readonly hits: (accountId: AccountId, messageId: string) => Effect.Effect<ReadonlyArray<TrackingHit>, StoreError>
}

/** How durable the commits of the transactions run under it are.
 *  - "full" (the default): on disk when the commit returns; an operating-system crash or a power failure keeps it.
 *  - "relaxed": survives a crash of the process, but an operating-system crash or a power failure may undo it (SQLite:
 *    that commit runs with synchronous=NORMAL; Postgres: synchronous_commit off; memory keeps nothing either way).
 *    Never out of order: a commit is only undone with every commit after it, and the next full commit makes it
 *    durable too. For work that is done again when undone and may be done twice: Background runs its relays and job
 *    runs this way (at least once already), never a request's own change. A statement outside a transaction, a
 *    savepoint, and every transaction while tracing is on, commit in full. */
export type Durability = "full" | "relaxed"

export class CommitDurability extends Context.Reference<CommitDurability>()("@mailroom/core/CommitDurability", {
  defaultValue: (): Durability => "full",
}) {}

/** The effects registered with `afterCommit` in the outermost Store transaction running in this fiber; undefined
 *  outside one. */
const commitHooks = FiberRef.unsafeMake<Array<Effect.Effect<void>> | undefined>(undefined)

/** Runs `effect` once the Store transaction in progress in this fiber commits (its outermost one), or at once outside
 *  a transaction; dropped when the transaction rolls back. For work that must not see uncommitted rows: the wake of a
 *  job worker for jobs enqueued in the transaction, say. */
export const afterCommit = (effect: Effect.Effect<void>): Effect.Effect<void> =>
  Effect.flatMap(FiberRef.get(commitHooks), (hooks) => hooks === undefined ? effect : Effect.sync(() => { hooks.push(effect) }))

/** For Store implementations: runs `transaction` and, when it is the outermost Store transaction of the fiber, the
 *  effects registered in it with `afterCommit` once it committed. */
export const withCommitHooks = <A, E, R>(transaction: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(FiberRef.get(commitHooks), (hooks) => {
    if (hooks !== undefined) return transaction
    const own: Array<Effect.Effect<void>> = []
    return Effect.tap(Effect.locally(transaction, commitHooks, own), () => Effect.forEach(own, (hook) => hook, { discard: true }))
  })

/** Persistence for every resource. An id that belongs to another account is "not found". */
export class Store extends Context.Tag("@mailroom/core/Store")<Store, {
  readonly accounts: AccountRepository
  readonly apiKeys: ApiKeyRepository
  readonly appCredentials: AppCredentialRepository
  readonly settings: SettingRepository
  readonly contacts: ContactRepository
  readonly lists: ListRepository
  readonly members: MemberRepository
  readonly events: EventOutbox
  readonly suppressions: SuppressionRepository
  readonly topics: TopicRepository
  readonly confirmations: ConfirmationRepository
  readonly devOutbox: DevOutboxRepository
  readonly canaryRuns: CanaryRunRepository
  readonly webhooks: WebhookRepository
  readonly messages: MessageRepository
  readonly quota: QuotaRepository
  readonly idempotency: IdempotencyRepository
  readonly forms: FormRepository
  readonly domains: DomainRepository
  readonly validationJobs: ValidationJobRepository
  readonly designs: DesignRepository
  readonly brands: BrandRepository
  readonly assets: AssetRepository
  readonly tracking: TrackingRepository
  readonly campaigns: CampaignRepository
  readonly analytics: AnalyticsRepository
  /** Runs `effect` atomically: all of its writes and events commit, or none do (on failure, defect or interruption).
   *  Nested calls join the outer transaction. The outermost one runs the effects given to `afterCommit` once it
   *  committed (withCommitHooks). */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreError, R>
  /** Succeeds when the database answers a trivial query. */
  readonly ping: Effect.Effect<void, StoreError>
}>() {}
