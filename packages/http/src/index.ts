// The public surface of @mailroom/http, listed by name.
export { makeHttpApp } from "./app.js"
export type { HttpApp, HttpAppOptions, FetchOptions } from "./app.js"
export { makeTrustHop, resolveClientAddress } from "./client-address.js"
export type { TrustProxy } from "./client-address.js"
export type { MailroomEnv, HttpServices, Run, RunExit, RunOptions, AnswerFailure } from "./env.js"
export type { HttpRuntime } from "./run.js"
export {
  statusByCode, importStatusByReason, fixActionByCode, fixActionWithoutField, adminFixActionByCode, docsBaseUrl, docsHomeUrl, docsUrlOf, statusOf, errorBody,
  errorResponse, internalErrorResponse, isDomainError,
} from "./errors.js"
export type { ErrorBody, ErrorShape, Realm } from "./errors.js"
export { authenticate, requireScope, credentialOf, refusalOf, guardAttempt } from "./auth.js"
export type { Credential } from "./auth.js"
export { defaultBodyLimitBytes, drainLimitBytes, readBody, settleBody } from "./body.js"
export { closeLingering, lingeringCloseLimits } from "./node-connection.js"
export type { MailroomHandler } from "./node-connection.js"
export { decodeJson, decodeQuery, decodeInput, toValidationFailed } from "./validation.js"
export type { DecodeOptions } from "./validation.js"
export { ok, pageEnvelope, paginatedEnvelope } from "./envelope.js"
export { ContactResponse, encodeContact, encodeContacts } from "./contact-response.js"
export { contactListLimits, ContactFilterParams, ContactListParams, ContactListOptions } from "./contact-query.js"
export { csvCell, csvRow } from "./csv.js"
export { authenticationGate, defaultRateLimits, makeRateLimiters, rateLimit } from "./rate-limit.js"
export type { RateLimiterFactory, RateLimiterSpec, RateLimiterStore, RateLimitOptions, RateLimiters, Limiter } from "./rate-limit.js"
export { contactRoutes, BulkCreateBody, BulkDeleteBody, bulkLimits } from "./routes/contacts.js"
export { exportRoutes, ExportParams, exportColumns } from "./routes/export.js"
export { importRoutes, importRequestLimitBytes, readImportForm } from "./routes/import.js"
export {
  adminRoutes, CreateAccountBody, UpdateAccountBody, CreateApiKeyBody, CreateAppCredentialBody, OutboxParams,
} from "./routes/admin.js"
export type { AdminOptions } from "./routes/admin.js"
export { outboxViewerRoutes, viewerSession, messageFramePolicy } from "./routes/outbox-viewer.js"
export type { OutboxViewerOptions } from "./routes/outbox-viewer.js"
export { outboxAttachments, outboxEntryJson, outboxEntriesJson } from "./outbox-message.js"
export type { OutboxAttachment, OutboxAttachmentSummary } from "./outbox-message.js"
export { healthRoutes } from "./routes/health.js"
export {
  listRoutes, ListsParams, MembersParams, RemoveMemberParams, ListResponse, ListDetailResponse, MemberResponse,
  AddMembersResponse,
} from "./routes/lists.js"
export { parseDeliveryStatusNotification, parseFeedbackReport, parseFieldBlocks, addressOf } from "./feedback-reports.js"
export type { FieldBlock, DsnRecipient, DeliveryStatusReport, FeedbackReport } from "./feedback-reports.js"
export { emailRoutes, MessageResponse } from "./routes/emails.js"
export { publicRoutes, type PublicRouteOptions, PublicUnsubscribeBody, readOneClickBody } from "./routes/public.js"
export { escapeHtml, html, raw, joinHtml, safeUrl, isSafeHtml } from "./pages/html.js"
export type { SafeHtml, HtmlValue } from "./pages/html.js"
export {
  defaultPageTheme, makePageTheme, renderPage, pageResponse, notice, textField, checkboxField, fieldset, submitButton,
  linkButton, postForm,
} from "./pages/layout.js"
export type { PageTheme, PageColors, PageOptions, PageResponseOptions } from "./pages/layout.js"
export { makeOpenApiDocument, routeDescriptions } from "./openapi/document.js"
export type { RouteDescription, Access as RouteAccess } from "./openapi/describe.js"
export { apiReferenceRoutes, referencePolicy } from "./openapi/reference.js"
export { openApiPath, referencePath } from "./openapi/routes-reference.js"
