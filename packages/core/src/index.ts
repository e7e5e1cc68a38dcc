// The public surface of @mailroom/core, listed by name.
export {
  ValidationFailed, PayloadTooLarge, Unauthorized, InvalidCredentials, ScopeInsufficient, RateLimitExceeded,
  ResourceNotFound, RouteNotFound, DuplicateContact, InvalidStatusTransition, TagLimitExceeded, FreeTierContactLimit,
  ListNotFound, TopicNotFound, DuplicateTopic, NotAMember, ContactNotFound, RecipientUnsubscribed, RecipientSuppressed,
  ContactBlocked, NoPendingConfirmation, InvalidToken, ImportRejected, WebhookEventUnknown, WebhookNotFound,
  PlanUpgradeRequired, WebhookLimitReached, QuotaExceeded, IdempotencyKeyReused, StoreError, OriginNotAllowed,
} from "./errors.js"
export {
  DomainNotFound, DomainAlreadyExists, DnsVerificationFailed, DnsRecordMissing, DnsLookupFailed, DomainLimitReached,
  SenderDomainNotVerified, ValidationJobNotFound,
} from "./errors.js"
export {
  MarkupFinding, UnsafeTemplateMarkup, InvalidTemplateSyntax, MjmlCompileTimedOut, CompiledTemplateTooLarge,
  MissingTemplateVariables, UnknownTemplateVariables, MistypedTemplateVariables, TemplateEngineError,
} from "./errors.js"
export type { MailroomError, ErrorCode, ImportRejectionReason } from "./errors.js"

export {
  AccountId, Plan, Account, scopes, Scope, ApiKeyId, KeyMode, ApiKey, AppCredential, hasScope, credentialKind, CreateAccountBody,
  UpdateAccountBody, CreateApiKeyBody, CreateAppCredentialBody,
} from "./domain/account.js"
export type { ActiveRoom, PlanLimits } from "./domain/account.js"
export { toValidationFailed, unstorableText, decodeInput } from "./validation.js"
export type { DecodeOptions } from "./validation.js"
export { foldText, foldNullable, likePattern } from "./domain/text.js"
export type { LikeShape, TextProblem } from "./domain/text.js"
export { EmailAddress, parseEmail } from "./domain/email.js"
export { recipientDomain, redactLogText } from "./domain/redact.js"
export { offsetOf, pageMeta, pagination, slicePage, PageParam, limitParam } from "./domain/paging.js"
export type { PageRequest } from "./domain/paging.js"
export { eventTypes, EventType, DomainEvent } from "./domain/event.js"
export { devOutboxLimits } from "./domain/dev-outbox.js"
export type { DevOutboxEntry, DevOutboxQuery } from "./domain/dev-outbox.js"
export {
  ContactId, contactStatuses, ContactStatus, contactSources, ContactSource, PersonName, PhoneE164, Metadata, TagName,
  CustomFields, CreateContactInput, UpdateContactInput, TagsInput, allowedMoves, contactSortKeys, contactSearchText,
  matchesContactFilter, compareContacts, newContact,
} from "./domain/contact.js"
export type { Contact, ContactTag, CustomField, ContactSortKey, ContactFilter, ContactQuery } from "./domain/contact.js"
export {
  contactListLimits, bulkLimits, ContactFilterParams, ContactListParams, ContactListOptions, BulkCreateInput,
  BulkDeleteInput, TagParam,
} from "./domain/contact-query.js"
export type { ContactFilterInput, ContactListInput } from "./domain/contact-query.js"
export {
  WebhookId, DeliveryId, webhookLimits, ReceivedEventType, strictUrlRules, webhookRetryPolicy, defaultFailureSettings,
  successRate, secretPrefix, makeSecret, signedHeaders, signBody, standardSignature, DeliveryStatus, deliveryIdFor, fannedOutDelivery, subscribes,
  WebhookDescription, CreateWebhookInput, UpdateWebhookInput, FailureSettingsInput, TestWebhookInput,
  deliveryEventTypes, liftedEnvelopeFields, webhookEnvelope,
} from "./domain/webhook.js"
export type {
  UrlRules, WebhookTarget, FailureSettings, FailureStreak, StreakDecision,
  HealthBadge, DeliveryStats, SigningSecrets, SignedRequest, WebhookEndpoint, EnvelopeSource, WebhookEndpointWithCount,
  DeliveryKind, WebhookDelivery, WebhookAttempt, DeliveryQuery,
} from "./domain/webhook.js"
export {
  MessageId, BatchId, SendAddress, DisplayName, EmailAddressInput, Subject, Attachment, Variables, Categories, Tags,
  Content, streams, Stream, SendInput, IsoDateTime, ScheduleInput, BatchRecipient, BatchInput, acceptSend,
} from "./domain/message.js"
export type {
  EnvelopeField, EnvelopeRecipient, DiscardedDuplicate, Envelope, AcceptedMessage,
} from "./domain/message.js"
export { recipientMessageId, pipelineValues } from "./domain/outgoing.js"
export type { UnsubscribeLinks, OutgoingInput } from "./domain/outgoing.js"
export {
  deferralDelays, gaveUp, classifyDsnRecipient, isComplaint, parseRecipientMessageId,
} from "./domain/delivery-outcome.js"
export type { BounceType, DeliveryVerdict, DsnRecipientFields, RecipientResolution } from "./domain/delivery-outcome.js"
export { emailEvent, eventTemplate } from "./domain/email-event.js"
export type { EmailEventType, EmailEventInput } from "./domain/email-event.js"
export { RecipientStatus, StoredContent, toStoredMessage } from "./domain/message-record.js"
export type {
  MessageState, MessageRecipient, StoredMessage, MessageEvent, RecipientUpdate, IdempotencyRecord,
} from "./domain/message-record.js"
export type { QuotaReservation } from "./domain/quota.js"
export type { IdKind } from "./domain/ids.js"
export { importLimits, ImportField, ColumnMapping, ImportResult } from "./domain/csv-import.js"
export type {
  CsvSource, ImportRequest, ImportOptions, ImportRow, RowRejection, CsvFile, ColumnPlan, ImportPlan,
} from "./domain/csv-import.js"

export {
  ListId, ListType, ListName, ListDescription, SuppressionGroupRef, CreateListInput, UpdateListInput, ListQueryOptions,
  ListsParams, listSearchText, matchesListQuery, compareLists,
} from "./domain/list.js"
export type { ContactList, ListWithCount, ListTypeFilter, ListQuery, ListQueryInput } from "./domain/list.js"
export {
  MemberId, suppressionStatuses, memberSuppressionRules, suppressionStatusesOf, memberSuppressionStatuses,
  isSuppressedMember, dynamicMemberId, memberFilters, MemberFilter, MemberQueryOptions, MembersParams, compareMembers,
  AddMembersInput, RemoveMembersInput, compareContactMemberships,
} from "./domain/member.js"
export type {
  ListMembership, MemberContact, MemberRecord, SuppressionStatus, MemberFacts, BooleanMemberFact, EnumeratedMemberFact, SuppressionCondition,
  SuppressionRule, ListMember, NewMember, NewListMembership, MemberQueryInput, MemberQuery, MemberCounts, MemberPage,
  BlockedReason, CreateMissingFacts, MemberEventSource, MemberEventInput, ContactMembership,
} from "./domain/member.js"
export { SegmentRules, withinLastDaysStart, conditionText, matchesSegment } from "./domain/segment.js"
export type {
  TextField, DateField, SegmentField, TextOperator, PresenceOperator, SegmentCondition, AllGroup, AnyGroup,
  SegmentGroup, SegmentNode,
} from "./domain/segment.js"

export {
  SuppressionId, suppressionReasons, SuppressionReason, suppressionLimits, SuppressionDetailsInput, AddSuppressionInput,
  BulkSuppressionInput, matchesSuppressionQuery, compareSuppressions, MailKind, eligibilityChecks, ineligibleReasons,
  applicableChecks, ineligibility, splitEligibility,
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
  consentLimits, ConsentInput, checkSubscribe, decideSubscribe, unsubscribeScopes, UnsubscribeScope, UnsubscribeScopeInput,
  decideUnsubscribeAll, decideTopic, subscribeSources, unsubscribeMethods, subscribedEvent, confirmedEvent,
  unsubscribedEvent,
} from "./domain/subscription.js"
export type {
  ConsentRecord, SubscribeFacts, SubscribeRequest, SubscribeDecision, UnsubscribeAllDecision, SubscribeSource,
  UnsubscribeMethod,
} from "./domain/subscription.js"

export { confirmationSources } from "./domain/confirmation.js"
export type { ConfirmationSource, PendingConfirmation } from "./domain/confirmation.js"
export { afterCommit, CommitDurability, relayPassWindow, Store, withCommitHooks } from "./ports/store.js"
export type {
  Durability,
  AccountRepository, ApiKeyRepository, AppCredentialRepository, SettingRepository, ContactRepository, ContactPage, AddressRecord,
  EventOutbox, ListPage, ListRepository, MemberRepository, DevOutboxRepository, WebhookRepository, EndpointStreak, FanOutEvent,
  DeliveryOutcome, SuppressionPage, SuppressionRepository, TopicPage, TopicRepository, ConfirmationRepository,
  MessageRepository, QuotaRepository, IdempotencyRepository, FormRepository,
} from "./ports/store.js"
export { Ids, IdsLive, IdsSequential, idTime } from "./ports/ids.js"
export type { IdsService } from "./ports/ids.js"
export { JobQueue, defineJob, enqueueEach } from "./ports/job-queue.js"
export type { JobDefinition, JobQueueService, JobRun, EnqueueOptions, RetryPolicy } from "./ports/job-queue.js"
export { Mailer, MailerError } from "./ports/mailer.js"
export { TemplateEngine, templateEngineTag } from "./ports/template-engine.js"
export type {
  TemplateSource, PreparedTemplate, ReleaseContent, DeclaredVariable, DeclaredVariables, RenderMode, RenderValues,
  RenderOptions, RenderedTemplate, TemplateSourceError, TemplateRenderError, TemplateEngineService, InlineContent,
  RenderedInline,
} from "./ports/template-engine.js"
export { Dns, DnsError, DnsFailureKind, isNoSuchRecord, recordsOrNone } from "./ports/dns.js"
export type { DnsService, LookupOptions, MxRecord } from "./ports/dns.js"
export { HttpTransport, HttpTransportError } from "./ports/http-transport.js"
export type { HttpTransportService, PinnedPost, PostAnswer, PostOutcome } from "./ports/http-transport.js"
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
export { attemptDelivery, makeAttempt, maxAttempts, recordAttempt } from "./services/webhook-sender.js"
export type { AttemptOptions, PendingRecord, RecordedAttempt } from "./services/webhook-sender.js"
export type { AttemptResult } from "./services/webhook-sender.js"
export {
  webhookDeliveryJob, webhookJobBatch, webhookRunBudgetMs, webhookPurgeJob, enqueueDeliveries, fanOutEvents, runDeliveryJob,
  purgeWebhookHistory, defaultNotificationFrom, requeueGrace, requeuePendingDeliveries, schedulePurge, webhookConsumer,
} from "./services/webhook-queue.js"
export { Suppressions } from "./services/suppressions.js"
export type { BulkSuppressionResult } from "./services/suppressions.js"
export { Topics } from "./services/topics.js"
export { Tokens, LinksConfig } from "./services/tokens.js"
export type { LinkOrigins, LinkSubject } from "./services/tokens.js"
export { TokenClaims } from "./domain/token.js"
export type { TokenPurpose } from "./domain/token.js"
export { Quota } from "./services/quota.js"
export type { QuotaUsage } from "./services/quota.js"
export { Idempotency, requestFingerprint } from "./services/idempotency.js"
export type { IdempotentResponse, IdempotentRequest } from "./services/idempotency.js"
export { Messages } from "./services/messages.js"
export type { MessageDetails } from "./services/messages.js"
export { Sending, SendingConfig, SendResult, BatchResult, ScheduleResult, DesignSendInput } from "./services/sending.js"
export { renderRelease, resolveSendable, undeliverableReason, liveTheme, themeForRelease } from "./services/template-sends.js"
export type { SendableTemplate, TemplateApplication, TemplateValues } from "./services/template-sends.js"
export type { CancelResult, SendOptions } from "./services/sending.js"
export { servicesLayer } from "./services/layer.js"
export { Background, BackgroundConfig } from "./services/background.js"
export type { EventConsumer, BackgroundContext } from "./services/background.js"
export { runJobWorker, retryDelay } from "./services/job-runner.js"
export type { ClaimedJob, JobSource, JobWorkerOptions } from "./services/job-runner.js"
export { Tracing } from "./services/tracing.js"
export type { MailroomServices } from "./services/layer.js"
export {
  FormId, formLimits, formFieldTypes, FormFieldType, contactFieldNames, reservedFieldNames, consentTextOf, parseOrigin,
  parseRedirectUrl, FormFieldInput, FormName, CreateFormInput, UpdateFormInput, canonicalOrigin, originAllowed,
  parseSubmission, submissionControlNames, honeypotField,
} from "./domain/form.js"
export type { Form, FormField, Submission } from "./domain/form.js"
export { Forms } from "./services/forms.js"
export {
  subscribeLimits, RedirectUrl, SubscribeInput, UnsubscribeInput, UpdateSubscriptionInput, defaultConfirmationTemplate,
} from "./domain/subscription-input.js"
export { Subscriptions, SubscriptionsConfig, defaultConfirmationFrom } from "./services/subscriptions.js"
export type {
  SubscriptionsSettings, SubscribeContext, SubscribeResult, UnsubscribeContext, UnsubscribeResult, UpdateChannel, UpdateContext,
  ConsentView, SubscriptionStatus, ResendResult,
} from "./services/subscriptions.js"
export { ConfirmationLinks } from "./services/confirmation-links.js"
export type { ConfirmationLink, ConfirmationPageState, RenewedLink } from "./services/confirmation-links.js"
export { FormSignups } from "./services/form-signups.js"
export type { FormSubmissionRequest, SignupForm } from "./services/form-signups.js"
export { LinkUnsubscribes } from "./services/link-unsubscribes.js"
export type { Leaving, UnsubscribePage } from "./services/link-unsubscribes.js"
export { linkScope, PublicUnsubscribeBody, scopeOf, topicOf } from "./domain/unsubscribe-link.js"
export { confirmsOnVisit } from "./services/confirmation-links.js"
export type { AutomatedSignal, ConfirmationMode, LinkRequest, LinkVisit } from "./domain/link-visit.js"
export { SendingPause } from "./services/sending-pause.js"
export type { PauseScope } from "./services/sending-pause.js"
export {
  DeliveryConfig, DeliveryDeferred, messageDeliveryJob, dispatchQueuedMessages, deliverMessage, recipientsPerRun,
  submissionInProgress,
} from "./services/message-delivery.js"
export type { DeliveryOptions } from "./services/message-delivery.js"
export { MessageDelivery, heldResolutions } from "./services/delivery-service.js"
export type { HeldResolution, HeldRecipient } from "./services/delivery-service.js"
export { Feedback } from "./services/feedback.js"
export type { DeliveryReportInput, ComplaintReportInput, DsnRecipientReport, ReportOutcome } from "./services/feedback.js"
export { BotChallenge, BotChallengeError } from "./ports/bot-challenge.js"
export type { BotChallengeService, ChallengeWidgetSettings } from "./ports/bot-challenge.js"
export {
  DomainId, DomainStatus, domainRecordNames, domainLimits, CreateDomainInput, compareDomains, matchesDomainQuery,
  decideRecheck, failedByRecheck, domainFailurePolicy,
} from "./domain/domain.js"
export type {
  Domain, DomainRecordName, RecordStatus, RecordProblem, RecordState, DomainRecordStates, DomainDkimKey, DomainQuery,
  VerificationFindings,
} from "./domain/domain.js"
export { Domains, DomainsConfig, domainSettings } from "./services/domains.js"
export {
  domainRecheckJob, recheckDomain, recheckDomains, recheckPaging, scheduleDomainRecheck,
} from "./services/domain-recheck.js"
export type { RecheckSummary } from "./services/domain-recheck.js"
export { readRecords } from "./services/domain-checks.js"
export type { RecordSettings } from "./services/domain-checks.js"
export type { DomainsOptions, DomainDetails, DomainRecordView, SenderPolicy } from "./services/domains.js"
export type { DomainRepository } from "./ports/store.js"
export {
  authenticationProblem, canaryLimits, isCanaryStale,
} from "./domain/canary.js"
export type { AuthenticationResult, CanaryAlert, CanaryAuthentication, CanaryRun, CanaryRunStatus } from "./domain/canary.js"
export { Mailbox, MailboxError, MessageAuthenticator } from "./ports/mailbox.js"
export type { MailboxService, MessageAuthenticatorService, ReceivedMessage } from "./ports/mailbox.js"
export { Alerts, logAlert, notifyingAlerts } from "./ports/alerts.js"
export type { AlertsService } from "./ports/alerts.js"
export { Canary, CanaryConfig, canaryHeader } from "./services/canary.js"
export type { CanaryOptions } from "./services/canary.js"
export type { CanaryRunRepository } from "./ports/store.js"
export {
  addressSyntaxLimits, parseAddressSyntax,
} from "./domain/address-syntax.js"
export type { ParsedAddress } from "./domain/address-syntax.js"
export {
  AddressChecks, AddressVerdict, BulkValidateInput, ValidateInput, ValidationJobError, ValidationJobId, ValidationJobStatus,
  invalidReason, isDisposableDomain, isRoleAccount, isValidAddress, mailHostsOf, progressOf, roleAccounts, suggestedDomain,
  validationLimits,
} from "./domain/address-validation.js"
export type { MailHosts, ValidationJob, ValidationJobProgress } from "./domain/address-validation.js"
export { SmtpProbe } from "./ports/smtp-probe.js"
export type { ProbeAnswer, ProbeRequest, SmtpProbeService } from "./ports/smtp-probe.js"
export { makeAddressChecker } from "./services/address-checks.js"
export type { AddressChecker, CheckOptions } from "./services/address-checks.js"
export { AddressValidation, bulkValidationJob } from "./services/address-validation.js"
export type { BulkValidation } from "./services/address-validation.js"
export type { ValidationJobRepository } from "./ports/store.js"
export {
  TemplateNotFound, RevisionConflict, DesignAlreadyExists, TemplateInUse, TemplateNotPublished, TemplateRetired,
  TemplateLimitReached, SenderNotAllowed, ManifestTooLarge,
} from "./template-errors.js"
export type { TemplateError } from "./template-errors.js"
export {
  DesignId, DesignStatus, designStatuses, accountApplicationKey, engineTag, designLimits, VariablesSchema,
  VariableSpecSchema, TemplateKey, Locale, DraftInput, isApplicationTemplate, oversizedBody, toDraft, newDesign,
  replaceDraft, nextVersion, publishDraft, rollbackTo, changeLifecycle, sendableVersion, checkStudioPlan,
  checkDesignRoom, compareDesigns, matchesDesignQuery, encodeCursor, decodeCursor,
} from "./domain/design.js"
export type { Design, DesignDraft, DesignRelease, DesignQuery, VariableSpec } from "./domain/design.js"
export type { DesignRepository } from "./ports/design-repository.js"
export type { CampaignRef, CampaignRepository } from "./ports/campaign-repository.js"
export { Campaigns, CampaignSettingsInput } from "./services/campaigns.js"
export {
  campaignChunkJob, campaignSendJob, CampaignConfig, recordCampaignUnsubscribes, runChunk, runSend, campaignRate, rateSettingKey, campaignMessage,
  type ChunkOutcome, type SendOutcome,
} from "./services/campaign-sending.js"
export {
  CampaignId, CampaignStatus, campaignStatuses, campaignLimits, type Campaign, CreateCampaignInput, UpdateCampaignInput,
  SendCampaignInput, TestCampaignInput, checkContent, campaignMoves, canMove, type CampaignAction, type CampaignAudience,
  resolveAudience, campaignTracked, campaignScope, audienceExcludes, campaignIneligibility, campaignChecks,
  campaignMessagePrefix, campaignCategory, campaignCategories, contactDeletedReason, type QueuedRecipient, type CampaignChunk, type CampaignProgress, contactValues, CampaignListFilters,
} from "./domain/campaign.js"
export {
  CreateDesignInput, ReplaceDraftInput, PublishInput, RollbackInput, LifecycleInput, BindBrandInput, PreviewInput,
  DesignListFilters,
} from "./domain/design-input.js"
export {
  releaseCacheKey, renderModeOf, releaseTheme, subjectOverride, checkAllowedSender, applicationSenders,
} from "./domain/design.js"
export type { SenderRestriction } from "./domain/design.js"
export type { CompiledContent as CompiledDesignContent } from "./domain/design.js"
export { defaultTheme } from "./domain/theme.js"
export {
  Block, BlockList, blockLimits, blockTypes, countBlocks, compileBlocks, blocksText, HeadingBlock, TextBlock, ButtonBlock,
  ImageBlock, DividerBlock, SpacerBlock, ColumnsBlock, FooterBlock, LeafBlock,
} from "./domain/blocks.js"
export type { DesignSource } from "./domain/design.js"
export { starters, findStarter, starterSample, starterMjml, starterCategories } from "./gallery/index.js"
export type { Starter, StarterCategory } from "./gallery/index.js"
export { CatalogFilters, InspectStarterInput, AdoptStarterInput, SyncInput } from "./domain/gallery-input.js"
export { Gallery, catalogEntry, starterInput } from "./services/gallery.js"
export {
  AssetId, assetLimits, uploadFormats, contentTypes as assetContentTypes, UploadAssetInput, decodeBase64, assetFileName,
  assetUrl, parseAssetFileName, immutableCacheControl,
} from "./domain/asset.js"
export type { Asset, UploadFormat, StoredFormat } from "./domain/asset.js"
export { ImageProcessor, ImageRejected } from "./ports/image-processor.js"
export type { ImageProcessorService, ProcessedImage } from "./ports/image-processor.js"
export { AssetStorage } from "./ports/asset-storage.js"
export type { AssetStorageService, StoredContent as StoredAssetContent } from "./ports/asset-storage.js"
export type { AssetRepository } from "./ports/asset-repository.js"
export { Assets } from "./services/assets.js"
export { Manifests, type ManifestPlan } from "./services/manifests.js"
export {
  Manifest, ManifestBrand, ManifestAsset, ManifestDesign, ApplyManifestInput, ExportManifestParams, manifestLimits, manifestFormat,
  type ManifestInstall, type PlanAction,
} from "./domain/manifest.js"
export type { Theme } from "./domain/theme.js"
export { Designs, sampleValues } from "./services/designs.js"
export { Brands } from "./services/brands.js"
export type { BrandPage, BrandUsage, SavedBrand } from "./services/brands.js"
export {
  BrandId, brandLimits, colorNames, CreateBrandInput, UpdateBrandInput, newBrand, updateBrand, themeOf, brandContentOf, contrastRatio,
  contrastWarnings, contrastPairs, minimumContrast, checkBrandRoom, canBeDefault, compareBrands, matchesBrandQuery,
  normalizeColor, isCurrent as isCurrentBrand,
} from "./domain/brand.js"
export type { BrandRecord, BrandContent, BrandQuery, ContrastWarning, ColorName } from "./domain/brand.js"
export type { BrandRepository } from "./ports/brand-repository.js"
export {
  checkCname, cnameTargetOf, PutTrackingDomainInput, putTrackingDomain, trackingDomainStatuses, TrackingDomainStatus,
  trackingOriginOf,
} from "./domain/tracking-domain.js"
export type { TrackingDomain } from "./domain/tracking-domain.js"
export { BrandNotFound, BrandRevisionConflict, BrandInUse, BrandLimitReached, TrackingDomainInUse, TrackingDomainNotFound } from "./brand-errors.js"
export type { BrandError } from "./brand-errors.js"
export type { DesignCaller, DesignPage } from "./services/designs.js"
export {
  CreateLegacyTemplateInput, LegacyTemplateListParams, legacyTemplateHeaders, legacyTemplateLimits,
  RenderLegacyTemplateInput, TestLegacyTemplateInput, toLegacyTemplate, UpdateLegacyTemplateInput,
} from "./domain/legacy-template.js"
export type { LegacyTemplate } from "./domain/legacy-template.js"
export { LegacyTemplates } from "./services/legacy-templates.js"
export type { LegacyTemplatePage } from "./services/legacy-templates.js"
export {
  classifyHit, clickBurst, hitClassifications, hitKinds, hitSignals, isPersonHit, tracksMail,
} from "./domain/tracking.js"
export type {
  ClickEvidence, HitClassification, HitKind, HitNetworks, HitRequest, HitSignal, HitVerdict, TrackingHit, TrackingSource,
} from "./domain/tracking.js"
export { isTrackable, trackParts } from "./domain/track-links.js"
export type { TrackableParts, TrackingLinkSet } from "./domain/track-links.js"
export { appleEgressRanges, makeRangeMatcher, scannerNetworkRanges } from "./domain/tracking-networks.js"
export type { OpenKey, TrackingRepository } from "./ports/store.js"
export { countryFromHeaders, countryHeaders, Geo } from "./ports/geo.js"
export type { GeoRequest, GeoService } from "./ports/geo.js"
export { Tracking, TrackingConfig } from "./services/tracking.js"
export {
  allCategories, analyticsEventTypes, analyticsMetrics, analyticsRetention, entriesOfEvents, entriesOfHits,
  firstCandidates, firstKeyOf, hourMs, hourOf, messageIdsOfEvents, metricOfEvent, noCountry,
  retentionCutoffs, rollupKey, rollupRowsOf,
} from "./domain/analytics.js"
export type { AnalyticsEntry, AnalyticsMetric, FirstKey, RollupRow } from "./domain/analytics.js"
export {
  bucketStart, countryName, defaultRangeDays, exportGroupings, exportMetrics, exportRows, heatmapMetrics, heatmapOf, offsetSpans,
  isTimezone, maxRangeDays, percentage, ratesOf, resolveRange,
} from "./domain/analytics-query.js"
export type { AnalyticsRange, ExportGrouping, ExportMetric, HeatmapMetric, Totals } from "./domain/analytics-query.js"
export { consumerProvider, providerOfMx } from "./domain/mailbox-provider.js"
export type { AnalyticsRepository, RollupDimension, RollupQuery, RollupSum } from "./ports/analytics-repository.js"
export { Analytics } from "./services/analytics.js"
export type { RangeParams } from "./services/analytics.js"
export { pruneAnalytics, recordEventAnalytics, recordHitAnalytics } from "./services/analytics-recording.js"
export type { TrackingAnswer, TrackingOptions, TrackingRequest } from "./services/tracking.js"
export { trackOutgoing } from "./services/tracked-mail.js"
export { TrackingDomains, type TrackingDomainView } from "./services/tracking-domains.js"
export type { TrackedSubject } from "./services/tracked-mail.js"
export { deriveTokenKey, signToken, verifyToken } from "./domain/token.js"
