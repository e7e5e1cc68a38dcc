// The public surface of @mailroom/testing, listed by name.
export {
  fixtureTime, freshAccountId, freshContactId, uniqueText, makeAccount, makeApiKey, makeAppCredential, makeTag,
  makeCustomField, makeContact, makeEvent, makeMembers,
} from "./fixtures.js"
export type { ContactOverrides } from "./fixtures.js"
export { storeSuite } from "./store-suite.js"
export { abandonBody, adapterSuite, adapterHostOf, targetOverHttp } from "./adapter-suite.js"
export type { AdapterHost, FetchHandler, StartAdapterHost } from "./adapter-suite.js"
export { findTestPostgres } from "./postgres.js"
export { importSuite } from "./import-suite.js"
export { contactsSuite } from "./contacts-suite.js"
export { httpSuite, type HttpTarget, type HttpTargetConfig } from "./http-suite.js"
export { keepAliveSuite } from "./keep-alive-suite.js"
export type { KeepAliveMailroom, MakeKeepAliveMailroom } from "./keep-alive-suite.js"
export { listSuite } from "./list-suite.js"
export { clockSuite } from "./clock-suite.js"
export { makeCaptureMailer } from "./capture-mailer.js"
export type { CaptureMailer, CaptureAnswer } from "./capture-mailer.js"
export { startSmtpSink } from "./smtp-sink.js"
export type { SmtpSink, SmtpSinkOptions, SinkBehaviour, SinkMessage, SinkReply } from "./smtp-sink.js"
export { devOutboxSuite } from "./dev-outbox-suite.js"
export type { DevOutboxTarget } from "./dev-outbox-suite.js"
export { sendingSuite } from "./sending-suite.js"
