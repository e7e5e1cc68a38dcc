/** Messages sent through the API: the bodies of POST /emails/send, /emails/batch and /emails/schedule with every
 *  limit of the spec, and the pure checks that need more than a Schema (recipient count after deduplication, body
 *  sizes, the schedule window, the stream). Spec: sending "Shared types", "Sending", "Limits"; CONTRACT.md "Streams
 *  and links in mail". Rendering is the TemplateEngine port's, the outgoing MIME shape is outgoing.ts'. */
import { DateTime, Either, ParseResult, Schema } from "effect"
import { PayloadTooLarge, ValidationFailed } from "../errors.js"
import { Metadata } from "./contact.js"
import { EmailAddress as Address } from "./email.js"
import { tracksMail } from "./tracking.js"

export const MessageId = Schema.String.pipe(Schema.brand("MessageId"))
export type MessageId = typeof MessageId.Type
export const BatchId = Schema.String.pipe(Schema.brand("BatchId"))
export type BatchId = typeof BatchId.Type

export const sendingLimits = {
  /** Distinct addresses across To, CC and BCC of one message (rule 1). */
  recipientsPerMessage: 100,
  /** Entries of `recipients` in one batch. */
  batchRecipients: 1_000,
  subjectLength: 998,
  categories: 10,
  categoryLength: 64,
  /** Each html or text body, in UTF-8 bytes; beyond it the answer is 413. */
  bodyBytes: 1024 * 1024,
  /** The whole JSON request of a sending route. */
  requestBytes: 8 * 1024 * 1024,
  displayNameLength: 256,
  attachmentFilenameLength: 255,
  variableNameLength: 100,
  tags: 50,
  tagNameLength: 256,
  tagValueLength: 256,
  /** The schedule window: within this many calendar years of now. */
  scheduleWithinYears: 1,
} as const

const lineBreak = /[\r\n]/
/** A string without CR or LF: what goes into a header line. */
const singleLine = (what: string) =>
  Schema.String.pipe(Schema.filter((value) => !lineBreak.test(value) || `${what} must not contain CR or LF characters`))

/** An address of an envelope field: refused with CR or LF anywhere (even where trimming would remove them, so that
 *  no header can be smuggled in), then trimmed, lower-cased and checked as every address is. */
export const SendAddress = singleLine("an address").pipe(Schema.compose(Address))

export const DisplayName = singleLine("a display name").pipe(
  Schema.maxLength(sendingLimits.displayNameLength, {
    message: () => `must be at most ${sendingLimits.displayNameLength} characters`,
  }),
)

/** EmailAddress of the spec's shared types: { email, name? }. */
export const EmailAddressInput = Schema.Struct({
  email: SendAddress,
  name: Schema.optional(DisplayName),
})
export type EmailAddressInput = typeof EmailAddressInput.Type

export const Subject = singleLine("the subject").pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.maxLength(sendingLimits.subjectLength, { message: () => `must be at most ${sendingLimits.subjectLength} characters` }),
)

const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Attachment: filename with an extension (no path), base64 content, a MIME type; all required. */
export const Attachment = Schema.Struct({
  filename: singleLine("a filename").pipe(
    Schema.maxLength(sendingLimits.attachmentFilenameLength, {
      message: () => `must be at most ${sendingLimits.attachmentFilenameLength} characters`,
    }),
    Schema.filter((name) => !/[/\\\u0000-\u001f"]/.test(name) || "must be a file name without a path, quotes or control characters"),
    Schema.pattern(/^.*[^.\s]\.[A-Za-z0-9]{1,16}$/, { message: () => "must be a file name with an extension, such as invoice.pdf" }),
  ),
  content: Schema.String.pipe(
    Schema.minLength(1, { message: () => "must not be empty" }),
    Schema.filter((content) => base64.test(content) || "must be base64 (A-Z, a-z, 0-9, + and /, padded with =, no line breaks)"),
  ),
  contentType: Schema.String.pipe(
    Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/, {
      message: () => "must be a MIME type such as application/pdf",
    }),
  ),
})
export type Attachment = typeof Attachment.Type

/** Variables substituted for {{name}}: names are case-sensitive; values must be strings. */
export const Variables = Schema.Record({
  key: Schema.String.pipe(
    Schema.minLength(1, { message: () => "a variable name must not be empty" }),
    Schema.maxLength(sendingLimits.variableNameLength, {
      message: () => `a variable name is at most ${sendingLimits.variableNameLength} characters`,
    }),
  ),
  value: Schema.String.annotations({ message: () => "variable values must be strings" }),
})
export type Variables = typeof Variables.Type

export const Categories = Schema.Array(
  Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,64}$/, {
    message: () => `a category holds 1-${sendingLimits.categoryLength} letters, digits, hyphens or underscores`,
  })),
).pipe(Schema.maxItems(sendingLimits.categories, { message: () => `at most ${sendingLimits.categories} categories` }))

export const Tags = Schema.Record({
  key: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,256}$/, {
    message: () => `a tag name holds 1-${sendingLimits.tagNameLength} letters, digits, hyphens or underscores`,
  })),
  value: Schema.String.pipe(Schema.maxLength(sendingLimits.tagValueLength, {
    message: () => `a tag value is at most ${sendingLimits.tagValueLength} characters`,
  })),
}).pipe(Schema.filter((tags) => Object.keys(tags).length <= sendingLimits.tags || `at most ${sendingLimits.tags} tags`))

/** Content of the spec's shared types. The "at least one of html, text, templateId" rule and templateId's current
 *  answer are checked by `checkContent`, so that the error names the right field. */
export const Content = Schema.Struct({
  subject: Schema.optional(Subject),
  html: Schema.optional(Schema.String),
  text: Schema.optional(Schema.String),
  templateId: Schema.optional(Schema.String),
  attachments: Schema.optional(Schema.Array(Attachment)),
})
export type Content = typeof Content.Type

export const streams = ["transactional", "marketing"] as const
export const Stream = Schema.Literal(...streams)
export type Stream = typeof Stream.Type

const recipientList = Schema.Array(EmailAddressInput)

/** The options every send takes beside its sender, recipients and content: the sending bodies' and POST
 *  /designs/{id}/send's. */
export const sendOptionFields = {
  categories: Schema.optional(Categories),
  tags: Schema.optional(Tags),
  metadata: Schema.optional(Metadata),
  attachments: Schema.optional(Schema.Array(Attachment)),
  /** Not shown in the spec; CONTRACT.md fixes it. Transactional unless given or implied by suppressionGroupId. */
  stream: Schema.optional(Stream),
  suppressionGroupId: Schema.optional(Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" }))),
  track: Schema.optional(Schema.Boolean),
}

/** Fields shared by the three sending bodies. */
const commonFields = {
  from: EmailAddressInput,
  replyTo: Schema.optional(EmailAddressInput),
  content: Content,
  variables: Schema.optional(Variables),
  themeId: Schema.optional(Schema.String),
  ...sendOptionFields,
}

const sendFields = {
  ...commonFields,
  to: recipientList.pipe(Schema.minItems(1, { message: () => "give at least one recipient" })),
  cc: Schema.optional(recipientList),
  bcc: Schema.optional(recipientList),
}

/** Body of POST /emails/send. */
export const SendInput = Schema.Struct(sendFields)
export type SendInput = typeof SendInput.Type

/** ISO 8601 date-time with a time zone (Z or an offset), decoded to a Date. */
export const IsoDateTime = Schema.transformOrFail(
  Schema.String,
  Schema.DateFromSelf,
  {
    strict: true,
    decode: (text, _options, ast) => {
      const valid = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i.test(text)
      const date = new Date(text)
      return valid && !Number.isNaN(date.getTime())
        ? Either.right(date)
        : Either.left(new ParseResult.Type(ast, text, "must be an ISO 8601 date-time with a time zone, such as 2026-01-31T09:00:00Z"))
    },
    encode: (date) => Either.right(date.toISOString()),
  },
)

/** Body of POST /emails/schedule: the send body plus scheduledFor. */
export const ScheduleInput = Schema.Struct({ ...sendFields, scheduledFor: IsoDateTime })
export type ScheduleInput = typeof ScheduleInput.Type

/** One entry of a batch: a personalised message of its own. */
export const BatchRecipient = Schema.Struct({
  to: EmailAddressInput,
  cc: Schema.optional(recipientList),
  bcc: Schema.optional(recipientList),
  variables: Schema.optional(Variables),
})
export type BatchRecipient = typeof BatchRecipient.Type

/** Body of POST /emails/batch. */
export const BatchInput = Schema.Struct({
  ...commonFields,
  recipients: Schema.Array(BatchRecipient).pipe(
    Schema.minItems(1, { message: () => "give at least one recipient" }),
    Schema.maxItems(sendingLimits.batchRecipients, { message: () => `give at most ${sendingLimits.batchRecipients} recipients` }),
  ),
})
export type BatchInput = typeof BatchInput.Type

// ---------------------------------------------------------------------------------------------------------------
// Checks beyond the Schemas

export type EnvelopeField = "to" | "cc" | "bcc"

export interface EnvelopeRecipient {
  readonly email: EmailAddressInput["email"]
  readonly name?: string | undefined
  readonly field: EnvelopeField
}

export interface DiscardedDuplicate {
  readonly email: string
  /** Where the discarded copy was: the field and its index there. */
  readonly field: EnvelopeField
  readonly index: number
}

export interface Envelope {
  /** Distinct recipients in To, then CC, then BCC order; the first occurrence of an address wins. */
  readonly recipients: ReadonlyArray<EnvelopeRecipient>
  readonly duplicates: ReadonlyArray<DiscardedDuplicate>
}

/** Rule 1: at most 100 distinct recipients across To, CC and BCC. Addresses arrive lower-cased, so comparing them
 *  is case-insensitive; later copies are discarded (and reported, so that email.dropped can say so). `path` prefixes
 *  the field named in the error (`recipients.3.` in a batch). */
export const planEnvelope = (
  fields: { readonly to: ReadonlyArray<EmailAddressInput>; readonly cc?: ReadonlyArray<EmailAddressInput> | undefined; readonly bcc?: ReadonlyArray<EmailAddressInput> | undefined },
  path = "",
): Either.Either<Envelope, ValidationFailed> => {
  const seen = new Set<string>()
  const recipients: Array<EnvelopeRecipient> = []
  const duplicates: Array<DiscardedDuplicate> = []
  const add = (field: EnvelopeField, list: ReadonlyArray<EmailAddressInput> | undefined) =>
    list?.forEach((address, index) => {
      if (seen.has(address.email)) duplicates.push({ email: address.email, field, index })
      else {
        seen.add(address.email)
        recipients.push({ email: address.email, name: address.name, field })
      }
    })
  add("to", fields.to)
  add("cc", fields.cc)
  add("bcc", fields.bcc)
  return recipients.length > sendingLimits.recipientsPerMessage
    ? Either.left(new ValidationFailed({
      field: `${path}to`,
      detail: `a message goes to at most ${sendingLimits.recipientsPerMessage} distinct recipients across to, cc and bcc; this one has ${recipients.length}`,
    }))
    : Either.right({ recipients, duplicates })
}

const utf8Bytes = (text: string) => Buffer.byteLength(text, "utf8")

/** The content rules that a Schema cannot name well: body sizes (413 beyond 1 MiB each), at least one of html, text or
 *  templateId, and the subject (required unless a template gives one). A template send takes its bodies from the
 *  template's live release, so html and text beside templateId are refused rather than silently dropped. Spec:
 *  "Shared types" (Content) and sending rule 5. */
export const checkContent = (content: Content, path = "content."): Either.Either<void, ValidationFailed | PayloadTooLarge> => {
  for (const part of ["html", "text"] as const) {
    const body = content[part]
    if (body !== undefined && utf8Bytes(body) > sendingLimits.bodyBytes) {
      return Either.left(new PayloadTooLarge({ limitBytes: sendingLimits.bodyBytes, field: `${path}${part}` }))
    }
  }
  if (content.templateId !== undefined) {
    if (content.templateId === "") {
      return Either.left(new ValidationFailed({ field: `${path}templateId`, detail: "must not be empty" }))
    }
    const inline = (["html", "text"] as const).find((part) => content[part] !== undefined)
    return inline === undefined
      ? Either.void
      : Either.left(new ValidationFailed({
        field: `${path}${inline}`,
        detail: "a send by templateId takes its html and text from the template's live release; omit html and text",
      }))
  }
  if (content.html === undefined && content.text === undefined) {
    return Either.left(new ValidationFailed({ field: `${path}html`, detail: "give at least one of html, text or templateId" }))
  }
  return content.subject === undefined
    ? Either.left(new ValidationFailed({ field: `${path}subject`, detail: "is required" }))
    : Either.void
}

/** The stream a send goes out on and the topic whose opt-outs it honours. Naming suppressionGroupId makes it marketing
 *  mail under that topic; naming it together with `stream: "transactional"` is refused, since transactional mail
 *  ignores topic opt-outs. */
export const resolveStream = (
  input: { readonly stream?: Stream | undefined; readonly suppressionGroupId?: string | undefined },
): Either.Either<{ readonly stream: Stream; readonly topicId: string | null }, ValidationFailed> => {
  if (input.suppressionGroupId !== undefined) {
    return input.stream === "transactional"
      ? Either.left(new ValidationFailed({
        field: "suppressionGroupId",
        detail: "applies to marketing mail only; omit stream or set it to \"marketing\"",
      }))
      : Either.right({ stream: "marketing", topicId: input.suppressionGroupId })
  }
  return Either.right({ stream: input.stream ?? "transactional", topicId: null })
}

/** Marketing mail is tracked by default, transactional mail only with `track: true` (spec, "Sending"). */
export const isTracked = (stream: Stream, track: boolean | undefined): boolean => tracksMail({ kind: "api", stream, track })

/** themeId belongs to brands, which Mailroom does not have yet. */
const checkTheme = (themeId: string | undefined): Either.Either<void, ValidationFailed> =>
  themeId === undefined
    ? Either.void
    : Either.left(new ValidationFailed({ field: "themeId", detail: "themes are not available yet; omit themeId" }))

/** The latest time a message may be scheduled for: one calendar year after `now` (UTC). */
export const scheduleHorizon = (now: Date): Date =>
  DateTime.toDate(DateTime.add(DateTime.unsafeMake(now), { years: sendingLimits.scheduleWithinYears }))

/** POST /emails/schedule: scheduledFor in the future and within one year. */
export const checkScheduledFor = (scheduledFor: Date, now: Date): Either.Either<Date, ValidationFailed> =>
  scheduledFor.getTime() <= now.getTime()
    ? Either.left(new ValidationFailed({ field: "scheduledFor", detail: "must be in the future" }))
    : scheduledFor.getTime() > scheduleHorizon(now).getTime()
      ? Either.left(new ValidationFailed({ field: "scheduledFor", detail: "must be within one year from now" }))
      : Either.right(scheduledFor)

/** Everything a message needs once its input is accepted: the sender, the distinct recipients, the content with its
 *  variables, and where it goes (stream and topic). One per send, one per batch entry. */
export interface AcceptedMessage {
  readonly from: EmailAddressInput
  readonly replyTo: EmailAddressInput | undefined
  readonly envelope: Envelope
  readonly subject: string
  readonly html: string | undefined
  readonly text: string | undefined
  readonly attachments: ReadonlyArray<Attachment>
  readonly variables: Variables
  readonly categories: ReadonlyArray<string>
  readonly tags: Readonly<Record<string, string>>
  readonly metadata: Readonly<Record<string, unknown>> | null
  readonly stream: Stream
  readonly topicId: string | null
  readonly track: boolean
  /** The template a send by templateId names, as the request gave it (resolved by the Sending service). */
  readonly templateId?: string | undefined
  /** The template and release a send by templateId uses, once resolved; see TemplateUse. */
  readonly template?: TemplateUse | undefined
}

/** What a message sent by template records: the template, the release version it renders (the live one when it was
 *  accepted), the subject given in the request that overrides the template's (account templates only), and, for
 *  POST /designs/{id}/send, the variables when they are not all strings (the message's `variables` otherwise). */
export interface TemplateUse {
  readonly id: string
  readonly version: number
  readonly subject?: string | undefined
  readonly variables?: Readonly<Record<string, unknown>> | undefined
}

type SharedFields = Omit<AcceptedMessage, "envelope" | "variables">

const common = (input: SendInput | BatchInput): Either.Either<SharedFields, ValidationFailed | PayloadTooLarge> =>
  Either.gen(function* () {
    yield* checkContent(input.content)
    yield* checkTheme(input.themeId)
    const { stream, topicId } = yield* resolveStream(input)
    return {
      from: input.from,
      replyTo: input.replyTo,
      // A template send's subject is the rendered template subject, set once the template is resolved.
      subject: input.content.subject ?? "",
      html: input.content.html,
      text: input.content.text,
      attachments: [...(input.content.attachments ?? []), ...(input.attachments ?? [])],
      categories: input.categories ?? [],
      tags: input.tags ?? {},
      metadata: input.metadata ?? null,
      stream,
      topicId,
      track: isTracked(stream, input.track),
      templateId: input.content.templateId,
    }
  })

/** One message of the shared fields of a send or batch, its envelope and its variables. Written out field by field
 *  rather than as `{ ...shared, envelope, variables }`: V8 builds a spread followed by new fields on a slow path,
 *  about 2 µs a message, which a batch of 1,000 entries pays on every request. */
const acceptedMessage = (shared: SharedFields, envelope: Envelope, variables: Variables): AcceptedMessage => ({
  from: shared.from,
  replyTo: shared.replyTo,
  subject: shared.subject,
  html: shared.html,
  text: shared.text,
  attachments: shared.attachments,
  categories: shared.categories,
  tags: shared.tags,
  metadata: shared.metadata,
  stream: shared.stream,
  topicId: shared.topicId,
  track: shared.track,
  templateId: shared.templateId,
  envelope,
  variables,
})

/** A decoded POST /emails/send (or /emails/schedule) body, checked and shaped into one message. */
export const acceptSend = (input: SendInput): Either.Either<AcceptedMessage, ValidationFailed | PayloadTooLarge> =>
  Either.gen(function* () {
    const shared = yield* common(input)
    const envelope = yield* planEnvelope(input)
    return acceptedMessage(shared, envelope, input.variables ?? {})
  })

/** A decoded POST /emails/schedule body: acceptSend plus the schedule window at `now`. */
export const acceptSchedule = (
  input: ScheduleInput,
  now: Date,
): Either.Either<{ readonly message: AcceptedMessage; readonly scheduledFor: Date }, ValidationFailed | PayloadTooLarge> =>
  Either.gen(function* () {
    const message = yield* acceptSend(input)
    const scheduledFor = yield* checkScheduledFor(input.scheduledFor, now)
    return { message, scheduledFor }
  })

/** A decoded POST /emails/batch body: one message per entry, each with the top-level variables overridden by its
 *  own. Every entry is checked before anything is accepted. */
export const acceptBatch = (input: BatchInput): Either.Either<ReadonlyArray<AcceptedMessage>, ValidationFailed | PayloadTooLarge> =>
  Either.gen(function* () {
    const shared = yield* common(input)
    const messages: Array<AcceptedMessage> = []
    for (const [index, recipient] of input.recipients.entries()) {
      const envelope = yield* planEnvelope({ to: [recipient.to], cc: recipient.cc, bcc: recipient.bcc }, `recipients.${index}.`)
      messages.push(acceptedMessage(shared, envelope, { ...input.variables, ...recipient.variables }))
    }
    return messages
  })

/** Number of recipient addresses over messages: what the quota is reserved for. */
export const countRecipients = (messages: ReadonlyArray<Pick<AcceptedMessage, "envelope">>): number =>
  messages.reduce((total, message) => total + message.envelope.recipients.length, 0)
