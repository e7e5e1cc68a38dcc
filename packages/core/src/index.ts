// The public surface of @mailroom/core, listed by name.
export {
  ValidationFailed, PayloadTooLarge, Unauthorized, InvalidCredentials, ScopeInsufficient, RateLimitExceeded,
  ResourceNotFound, RouteNotFound, DuplicateContact, InvalidStatusTransition, TagLimitExceeded, FreeTierContactLimit,
  ListNotFound, TopicNotFound, DuplicateTopic, NotAMember, ContactNotFound, RecipientUnsubscribed, RecipientSuppressed,
  ContactBlocked, NoPendingConfirmation, InvalidToken, ImportRejected, WebhookEventUnknown, WebhookNotFound,
  WebhookLimitReached, QuotaExceeded, IdempotencyKeyReused, StoreError, OriginNotAllowed,
} from "./errors.js"
export {
  DomainNotFound, DomainAlreadyExists, DnsVerificationFailed, DnsRecordMissing, DnsLookupFailed, DomainLimitReached,
  PlanUpgradeRequired, SenderDomainNotVerified,
} from "./errors.js"
export { importRejectionReasons } from "./errors.js"
export type { MailroomError, ErrorCode, ImportRejectionReason } from "./errors.js"

export {
  AccountId, Plan, planLimits, Account, scopes, Scope, ApiKeyId, KeyMode, ApiKey, AppCredential, keyPrefixes,
  credentialKind, credentialSecretBytes, hasScope, CreateAccountBody, UpdateAccountBody, CreateApiKeyBody,
  CreateAppCredentialBody,
} from "./domain/account.js"
export type { ActiveRoom, PlanLimits } from "./domain/account.js"
export { toValidationFailed, illFormedText, decodeInputEither, decodeInput } from "./validation.js"
export type { DecodeOptions } from "./validation.js"
export {
  foldText, foldNullable, escapeLike, likePattern, matchesLike, isWellFormedText, illFormedTextPath,
} from "./domain/text.js"
export type { LikeShape } from "./domain/text.js"
export { EmailAddress, emailProblem, normalizeEmail, parseEmail } from "./domain/email.js"
export { offsetOf, pageMeta, pagination, slicePage, PageParam, limitParam } from "./domain/paging.js"
export type { PageRequest } from "./domain/paging.js"
export { eventTypes, EventType, DomainEvent } from "./domain/event.js"
export { devOutboxLimits } from "./domain/dev-outbox.js"
export type { DevOutboxEntry, DevOutboxQuery } from "./domain/dev-outbox.js"
export {
  ContactId, contactStatuses, ContactStatus, contactSources, ContactSource, contactLimits, PersonName, PhoneE164,
  Metadata, TagName, CustomFields, CreateContactInput, UpdateContactInput, TagsInput, allowedMoves, moveStatus,
  mergeTags, contactSortKeys, contactSearchText, matchesContactFilter, compareContacts, newContact,
} from "./domain/contact.js"
export type { Contact, ContactTag, CustomField, ContactSortKey, ContactFilter, ContactQuery } from "./domain/contact.js"
export {
  contactListLimits, bulkLimits, ContactFilterParams, ContactListParams, integerBetween, ContactListOptions,
  BulkCreateInput, BulkDeleteInput, TagParam,
} from "./domain/contact-query.js"
export type { ContactFilterInput, ContactListInput } from "./domain/contact-query.js"
export {
  WebhookId, DeliveryId, webhookLimits, retryEventType, subscribableEventTypes, ReceivedEventType, checkEventTypes,
  strictUrlRules, addressProblem, checkAddresses, parseWebhookUrl, webhookRetryDelays, webhookRetryPolicy,
  retryDelayAfter, isSuccessStatus, defaultFailureSettings, afterAttempt, healthBadges, failingStreak, successRate,
  healthBadge, secretPrefix, makeSecret, displaySecret, signBody, standardSignature, signedHeaders, previousSecretValid,
  deliveryStatuses, DeliveryStatus, deliveryKinds, deliveryIdFor, fannedOutDelivery, subscribes,
  WebhookDescription, CreateWebhookInput, UpdateWebhookInput, FailureSettingsInput, TestWebhookInput,
  deliveryEventTypes, liftedEnvelopeFields, webhookEnvelope,
} from "./domain/webhook.js"
export type {
  UrlRules, WebhookTarget, FailureSettings, FailureStreak, StreakDecision,
  HealthBadge, DeliveryStats, SigningSecrets, SignedRequest, WebhookEndpoint, EnvelopeSource, WebhookEndpointWithCount,
  DeliveryKind, WebhookDelivery, WebhookAttempt, DeliveryQuery,
} from "./domain/webhook.js"
export {
  MessageId, BatchId, sendingLimits, SendAddress, DisplayName, EmailAddressInput, Subject, Attachment, Variables,
  Categories, Tags, Content, streams, Stream, SendInput, IsoDateTime, ScheduleInput, BatchRecipient, BatchInput,
  planEnvelope, checkContent, resolveStream, isTracked, scheduleHorizon, checkScheduledFor, acceptSend,
  acceptSchedule, acceptBatch, countRecipients,
} from "./domain/message.js"
export type {
  EnvelopeField, EnvelopeRecipient, DiscardedDuplicate, Envelope, AcceptedMessage,
} from "./domain/message.js"
export { compileContent, renderContent, htmlToText } from "./domain/render.js"
export type { ContentSource, CompiledContent, RenderedContent } from "./domain/render.js"
export { buildOutgoing, recipientMessageId, listUnsubscribeHeaders } from "./domain/outgoing.js"
export type { UnsubscribeLinks, OutgoingInput } from "./domain/outgoing.js"
export {
  enhancedCodePattern, enhancedCodeIn, classifyOutcome, deferralDelays, gaveUp, classifyDsnRecipient,
  complaintFeedbackTypes, isComplaint, parseRecipientMessageId, resolveRecipient,
} from "./domain/delivery-outcome.js"
export type { BounceType, DeliveryVerdict, DsnRecipientFields, RecipientResolution } from "./domain/delivery-outcome.js"
export { emailEvent, emailEventStatus } from "./domain/email-event.js"
export type { EmailEventType, EmailEventInput } from "./domain/email-event.js"
export {
  messageStates, recipientStatuses, RecipientStatus, StoredContent, toStoredMessage, toAcceptedMessage, messageStatus,
  idempotencyWindowHours,
} from "./domain/message-record.js"
export type {
  MessageState, MessageRecipient, StoredMessage, MessageEvent, RecipientUpdate, IdempotencyRecord,
} from "./domain/message-record.js"
export { quotaPeriod, quotaResetsAt } from "./domain/quota.js"
export type { QuotaReservation } from "./domain/quota.js"
export { idPrefixes } from "./domain/ids.js"
export type { IdKind } from "./domain/ids.js"
export {
  importLimits, importFields, ImportField, ColumnMapping, ImportResult, decodeMappings, decodeImportTags,
  decodeImportRequest, planColumns, readRow, planImport,
} from "./domain/csv-import.js"
export { readCsvFile } from "./internal/csv-reader.js"
export { makeClaimWakeup, makeKeyedWakeSignals, makeKindWakeSignals, makeWakeSignal } from "./internal/wake-signal.js"
export { makeRecentCache } from "./internal/recent-cache.js"
export type { WakeSignal } from "./internal/wake-signal.js"
export type {
  CsvSource, ImportRequest, ImportOptions, ImportRow, RowRejection, CsvFile, ColumnPlan, ImportPlan,
} from "./domain/csv-import.js"

export {
  ListId, listTypes, ListType, listLimits, ListName, ListDescription, SuppressionGroupRef, CreateListInput,
  UpdateListInput, ListQueryOptions, ListsParams, checkSegmentRules, listTypeFilters, listSearchText, matchesListQuery, compareLists,
} from "./domain/list.js"
export type { ContactList, ListWithCount, ListTypeFilter, ListQuery, ListQueryInput } from "./domain/list.js"
export {
  MemberId, memberLimits, suppressionStatuses, memberSuppressionRules, suppressionApplies, suppressionStatusesOf,
  memberFacts, memberSuppressionStatuses, isSuppressedMember, toListMember, newMembers, newListMemberships, dynamicMemberId, memberFilters, MemberFilter,
  MemberQueryOptions, MembersParams, compareMembers, AddMembersInput, RemoveMembersInput, blockedReasons,
  createMissingBlock, memberEventSources, memberEvent, compareContactMemberships,
} from "./domain/member.js"
export type {
  ListMembership, MemberContact, MemberRecord, SuppressionStatus, MemberFacts, BooleanMemberFact, EnumeratedMemberFact, SuppressionCondition,
  SuppressionRule, ListMember, NewMember, NewListMembership, MemberQueryInput, MemberQuery, MemberCounts, MemberPage,
  BlockedReason, MemberEventSource, MemberEventInput, ContactMembership,
} from "./domain/member.js"
export {
  segmentLimits, textFields, dateFields, segmentFields, textOperators, presenceOperators, setOperators, tagOperators,
  dateOperators, operatorsByField, SegmentRules, countConditions, withinLastDaysStart, conditionText,
  matchesSegment,
} from "./domain/segment.js"
export type {
  TextField, DateField, SegmentField, TextOperator, PresenceOperator, SegmentCondition, AllGroup, AnyGroup,
  SegmentGroup, SegmentNode,
} from "./domain/segment.js"

export {
  SuppressionId, suppressionReasons, SuppressionReason, suppressionLimits, SuppressionDetailsInput, AddSuppressionInput,
  BulkSuppressionInput, matchesSuppressionQuery, compareSuppressions, mailKinds, MailKind, eligibilityChecks,
  ineligibleReasons, applicableChecks, ineligibility, splitEligibility,
} from "./domain/suppression.js"
export type {
  Suppression, SuppressionDetails, SuppressionQuery, SendScope, RecipientFacts, EligibilityFact, IneligibleReason,
  DroppedRecipient, Eligibility,
} from "./domain/suppression.js"
export {
  TopicId, topicLimits, TopicName, CreateTopicInput, UpdateTopicInput, TopicMemberInput, compareTopicsForDisplay,
  compareTopicsByCreation, matchesTopicQuery,
} from "./domain/topic.js"
export type { Topic, TopicWithCount, TopicOptOut, TopicQuery } from "./domain/topic.js"
export {
  consentLimits, ConsentInput, checkSubscribe, decideSubscribe, unsubscribeScopes, UnsubscribeScope,
  decideUnsubscribeAll, decideTopic, subscribeSources, unsubscribeMethods, subscribedEvent, confirmedEvent,
  unsubscribedEvent,
} from "./domain/subscription.js"
export type {
  ConsentRecord, SubscribeFacts, SubscribeRequest, SubscribeDecision, UnsubscribeAllDecision, SubscribeSource,
  UnsubscribeMethod,
} from "./domain/subscription.js"

export { confirmationSources } from "./domain/confirmation.js"
export type { ConfirmationSource, PendingConfirmation } from "./domain/confirmation.js"
export { CommitDurability, EventWindowTypeId, relayPassWindow, Store } from "./ports/store.js"
export type {
  Durability,
  AccountRepository, ApiKeyRepository, AppCredentialRepository, SettingRepository, ContactRepository, ContactPage, AddressRecord,
  EventOutbox, EventWindow, ListPage, ListRepository, MemberRepository, DevOutboxRepository, WebhookRepository, EndpointStreak, FanOutEvent,
  DeliveryOutcome, SuppressionPage, SuppressionRepository, TopicPage, TopicRepository, ConfirmationRepository,
  MessageRepository, QuotaRepository, IdempotencyRepository, FormRepository,
} from "./ports/store.js"
export { Ids, IdsLive, IdsSequential, idTime, makeRandomIds, makeSequentialIds } from "./ports/ids.js"
export type { IdsService } from "./ports/ids.js"
export { JobQueue, defineJob, enqueueEach, neverClaimed } from "./ports/job-queue.js"
export type { ClaimedHere, JobDefinition, JobQueueService, JobRun, EnqueueOptions, RetryPolicy } from "./ports/job-queue.js"
export { Mailer, MailerError } from "./ports/mailer.js"
export { Dns, DnsError, DnsFailureKind, isNoSuchRecord, recordsOrNone } from "./ports/dns.js"
export type { DnsService, LookupOptions, MxRecord } from "./ports/dns.js"
export { HttpTransport, HttpTransportError, postEachWith } from "./ports/http-transport.js"
export type { BatchedPost, HttpTransportService, PinnedPost, PostAnswer, PostOutcome } from "./ports/http-transport.js"
export { WebhooksConfig, checkWebhookTarget } from "./services/webhook-target.js"
export type { WebhooksOptions, CheckedTarget } from "./services/webhook-target.js"
export type { OutgoingMessage, MailResult, MailAddress, MailAttachment, DkimKey, RecipientOutcome } from "./ports/mailer.js"

export { Accounts } from "./services/accounts.js"
export type { Authentication } from "./services/accounts.js"
export { AccountsConfig } from "./services/accounts.js"
export type { AccountsOptions, CreateAccountInput, UpdateAccountInput, CreateApiKeyInput, CreateAppCredentialInput } from "./services/accounts.js"
export { Contacts } from "./services/contacts.js"
export type { BulkCreateResult } from "./services/contacts.js"
export { Imports, importWriteBatch } from "./services/imports.js"
export { Lists } from "./services/lists.js"
export type { ListTopic, ListDetails, ListsPage, MembersPage, AddMembersResult } from "./services/lists.js"
export { Webhooks, defaultDeliveryConcurrency } from "./services/webhooks.js"
export type { TestResult, EndpointHealth } from "./services/webhooks.js"
export { attemptDelivery, makeAttempt, maxAttempts, recordAttempts } from "./services/webhook-sender.js"
export type { AttemptOptions, PendingRecord, RecordedAttempt } from "./services/webhook-sender.js"
export type { AttemptResult } from "./services/webhook-sender.js"
export {
  webhookDeliveryJob, webhookPurgeJob, DeliveryAttemptFailed, enqueueDelivery, fanOutEvents, runDeliveryJob,
  webhookFirstAttemptsJob, runFirstAttempts, firstAttemptsPerRun, firstAttemptsRecordedPer, lastAnswersGrace, type FreshDeliveries, freshDeliveryLimits, makeFreshDeliveries,
  purgeWebhookHistory, defaultNotificationFrom, requeuePendingDeliveries, schedulePurge, makeDeliveries, webhookConsumer,
} from "./services/webhook-queue.js"
export { Suppressions } from "./services/suppressions.js"
export type { BulkSuppressionResult } from "./services/suppressions.js"
export { Topics } from "./services/topics.js"
export { Tokens, LinksConfig } from "./services/tokens.js"
export type { LinkOrigins, LinkSubject } from "./services/tokens.js"
export { tokenPurposes, tokenLifetimesMs, TokenClaims, deriveTokenKey, signToken, verifyToken } from "./domain/token.js"
export type { TokenPurpose } from "./domain/token.js"
export { Quota } from "./services/quota.js"
export type { QuotaUsage } from "./services/quota.js"
export { Idempotency, checkIdempotencyKey, requestFingerprint } from "./services/idempotency.js"
export type { IdempotentResponse, IdempotentRequest } from "./services/idempotency.js"
export { Messages } from "./services/messages.js"
export type { MessageDetails } from "./services/messages.js"
export { Sending, SendingConfig, SendResult, BatchResult, ScheduleResult, dropReasons } from "./services/sending.js"
export type { CancelResult, SendOptions } from "./services/sending.js"
export { servicesLayer } from "./services/layer.js"
export { Background, BackgroundConfig } from "./services/background.js"
export type { EventConsumer, BackgroundContext } from "./services/background.js"
export { makeWorkerHandoffs, runJobWorker, retryDelay } from "./services/job-runner.js"
export type { ClaimedJob, JobSource, JobWorkerOptions, WorkerHandoff } from "./services/job-runner.js"
export { Tracing } from "./services/tracing.js"
export type { MailroomServices } from "./services/layer.js"
export {
  FormId, formLimits, formFieldTypes, FormFieldType, contactFieldNames, reservedFieldNames, consentTextOf, parseOrigin,
  parseRedirectUrl, FormFieldInput, FormName, CreateFormInput, UpdateFormInput, canonicalOrigin, originAllowed,
  parseSubmission, submissionControlNames,
} from "./domain/form.js"
export type { Form, FormField, Submission } from "./domain/form.js"
export { Forms } from "./services/forms.js"
export {
  subscribeLimits, RedirectUrl, SubscribeInput, UnsubscribeInput, UpdateSubscriptionInput, defaultConfirmationTemplate,
} from "./domain/subscription-input.js"
export { Subscriptions, SubscriptionsConfig, defaultConfirmationFrom } from "./services/subscriptions.js"
export type {
  SignupForm, SubscribeContext, SubscribeResult, UnsubscribeContext, UnsubscribeResult, UpdateChannel, UpdateContext,
  ConsentView, SubscriptionStatus, ResendResult, ConfirmationLink,
} from "./services/subscriptions.js"
export { SendingPause } from "./services/sending-pause.js"
export type { PauseScope } from "./services/sending-pause.js"
export {
  MessageDelivery, DeliveryConfig, DeliveryDeferred, messageDeliveryJob, dispatchQueuedMessages, deliverMessage,
  deliveryDispatchConsumer, submissionInProgress, heldResolutions, recordResolutions,
} from "./services/message-delivery.js"
export type { DeliveryOptions, HeldResolution, HeldRecipient } from "./services/message-delivery.js"
export { Feedback } from "./services/feedback.js"
export type { DeliveryReportInput, ComplaintReportInput, DsnRecipientReport, ReportOutcome } from "./services/feedback.js"
export { BotChallenge, BotChallengeError } from "./ports/bot-challenge.js"
export type { BotChallengeService, ChallengeWidgetSettings } from "./ports/bot-challenge.js"
export {
  DomainId, DomainStatus, domainStatuses, domainRecordNames, domainLimits, CreateDomainInput, compareDomains,
  matchesDomainQuery, parseHostname, recordHost, ownershipValue, plainSpfValue, dkimValue, dmarcValue, recordValue,
  decideVerification, domainFailurePolicy, failedByRecheck,
} from "./domain/domain.js"
export type {
  Domain, DomainRecordName, RecordStatus, RecordProblem, RecordState, DomainRecordStates, DomainDkimKey, DomainQuery,
  VerificationFindings,
} from "./domain/domain.js"
export { checkOwnership, checkSpf, checkDkim, checkDmarc, parseSpf, parseTags, withSpfInclude } from "./domain/dns-records.js"
export { Domains, DomainsConfig, domainSettings, checkSender } from "./services/domains.js"
export type { DomainsOptions, DomainDetails, DomainRecordView, SenderPolicy } from "./services/domains.js"
export type { DomainRepository } from "./ports/store.js"
