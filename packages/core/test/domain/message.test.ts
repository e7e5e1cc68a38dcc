import { Either, ParseResult, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { acceptSend, BatchInput, ScheduleInput, SendInput } from "../../src/index.js"
import { acceptBatch, acceptSchedule, checkScheduledFor, resolveStream, sendingLimits } from "../../src/domain/message.js"

const decode = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  Schema.decodeUnknownEither(schema, { onExcessProperty: "error", errors: "first" })(input)

/** The dotted path of the first problem, as the HTTP layer names it in error.context.field. */
const failedPath = <A, I>(schema: Schema.Schema<A, I>, input: unknown): string | undefined => {
  const result = decode(schema, input)
  if (Either.isRight(result)) return undefined
  return ParseResult.ArrayFormatter.formatErrorSync(result.left)[0]!.path.map(String).join(".")
}

const valid = {
  from: { email: "news@example.com", name: "Example News" },
  to: [{ email: "ada@example.org" }],
  content: { subject: "Hello {{name}}", html: "<p>Hi {{name}}</p>" },
}

const addresses = (n: number, domain = "example.org") => Array.from({ length: n }, (_, i) => ({ email: `r${i}@${domain}` }))

describe("POST /emails/send body", () => {
  it("accepts the smallest valid body and defaults to the transactional stream, untracked", () => {
    const input = Either.getOrThrow(decode(SendInput, valid))
    const message = Either.getOrThrow(acceptSend(input))
    expect(message.stream).toBe("transactional")
    expect(message.topicId).toBeNull()
    expect(message.track).toBe(false)
    expect(message.envelope.recipients).toEqual([{ email: "ada@example.org", name: undefined, field: "to" }])
  })

  // Each row: a change to the valid body and the field the refusal names.
  const refused: Array<[string, Record<string, unknown>, string]> = [
    ["from missing", { from: undefined }, "from"],
    ["to empty", { to: [] }, "to"],
    ["an invalid address in to", { to: [{ email: "not-an-address" }] }, "to.0.email"],
    ["an invalid address in cc", { cc: [{ email: "a@b" }] }, "cc.0.email"],
    ["an invalid address in bcc", { bcc: [{ email: "x@@example.com" }] }, "bcc.0.email"],
    ["an invalid replyTo", { replyTo: { email: "nope" } }, "replyTo.email"],
    ["LF at the end of an address", { to: [{ email: "ada@example.org\n" }] }, "to.0.email"],
    ["CR LF and a header in an address", { to: [{ email: "ada@example.org\r\nBcc: eve@evil.test" }] }, "to.0.email"],
    ["LF in a display name", { from: { email: "news@example.com", name: "News\nBcc: eve@evil.test" } }, "from.name"],
    ["CR in the subject", { content: { subject: "Hi\rthere", text: "x" } }, "content.subject"],
    ["an empty subject", { content: { subject: "", text: "x" } }, "content.subject"],
    ["a subject of 999 characters", { content: { subject: "s".repeat(999), text: "x" } }, "content.subject"],
    ["11 categories", { categories: Array.from({ length: 11 }, (_, i) => `c${i}`) }, "categories"],
    ["a category of 65 characters", { categories: ["c".repeat(65)] }, "categories.0"],
    ["a category with a space", { categories: ["two words"] }, "categories.0"],
    ["a variable that is a number", { variables: { count: 3 } }, "variables.count"],
    ["a variable that is null", { variables: { name: null } }, "variables.name"],
    ["an attachment that is not base64", { attachments: [{ filename: "a.txt", content: "not base64!", contentType: "text/plain" }] }, "attachments.0.content"],
    ["an attachment with wrong padding", { attachments: [{ filename: "a.txt", content: "aGVsbG8", contentType: "text/plain" }] }, "attachments.0.content"],
    ["an attachment without an extension", { attachments: [{ filename: "invoice", content: "aGVsbG8=", contentType: "application/pdf" }] }, "attachments.0.filename"],
    ["an attachment with a path", { attachments: [{ filename: "../etc/passwd.txt", content: "aGVsbG8=", contentType: "text/plain" }] }, "attachments.0.filename"],
    ["an attachment without a MIME type", { attachments: [{ filename: "a.txt", content: "aGVsbG8=", contentType: "text" }] }, "attachments.0.contentType"],
    ["an attachment missing content", { attachments: [{ filename: "a.txt", contentType: "text/plain" }] }, "attachments.0.content"],
    ["an attachment in content with bad base64", { content: { subject: "s", text: "t", attachments: [{ filename: "a.txt", content: "@@@@", contentType: "text/plain" }] } }, "content.attachments.0.content"],
    ["an unknown stream", { stream: "bulk" }, "stream"],
    ["track not a boolean", { track: "yes" }, "track"],
    ["tags with a non-string value", { tags: { plan: 1 } }, "tags.plan"],
    ["metadata that is not an object", { metadata: [1, 2] }, "metadata"],
    ["an unknown field", { priority: "high" }, "priority"],
  ]
  it.each(refused)("refuses %s, naming %s", (_name, change, field) => {
    const body = { ...valid, ...change }
    expect(failedPath(SendInput, body)).toBe(field)
  })

  it("deduplicates recipients case-insensitively across to, cc and bcc, first occurrence first", () => {
    const input = Either.getOrThrow(decode(SendInput, {
      ...valid,
      to: [{ email: "Ada@Example.org" }, { email: "bob@example.org" }],
      cc: [{ email: "ADA@example.org" }, { email: "cy@example.org" }],
      bcc: [{ email: "bob@EXAMPLE.org" }],
    }))
    const { envelope } = Either.getOrThrow(acceptSend(input))
    expect(envelope.recipients.map((r) => [r.email, r.field])).toEqual([
      ["ada@example.org", "to"], ["bob@example.org", "to"], ["cy@example.org", "cc"],
    ])
    expect(envelope.duplicates).toEqual([
      { email: "ada@example.org", field: "cc", index: 0 },
      { email: "bob@example.org", field: "bcc", index: 0 },
    ])
  })

  it("takes 100 distinct recipients across the fields and refuses 101, counting after deduplication", () => {
    const hundred = Either.getOrThrow(decode(SendInput, {
      ...valid, to: addresses(60), cc: addresses(40, "example.net"), bcc: addresses(60).map((a) => ({ email: a.email.toUpperCase() })),
    }))
    expect(Either.getOrThrow(acceptSend(hundred)).envelope.recipients).toHaveLength(100)
    const hundredAndOne = Either.getOrThrow(decode(SendInput, { ...valid, to: addresses(60), cc: addresses(40, "example.net"), bcc: [{ email: "x@example.com" }] }))
    const error = Either.flip(acceptSend(hundredAndOne)).pipe(Either.getOrThrow)
    expect(error._tag).toBe("ValidationFailed")
    expect(error).toMatchObject({ field: "to" })
    expect(error.message).toContain("101")
  })

  it("the distinct count never exceeds the limit and always equals the number of distinct lower-cased addresses", () => {
    fc.assert(fc.property(
      fc.array(fc.tuple(fc.constantFrom("to", "cc", "bcc"), fc.integer({ min: 0, max: 130 }), fc.boolean()), { minLength: 1, maxLength: 250 }),
      (entries) => {
        const fields: Record<string, Array<{ email: string }>> = { to: [{ email: "first@example.org" }], cc: [], bcc: [] }
        for (const [field, n, upper] of entries) {
          const email = `r${n}@example.org`
          fields[field]!.push({ email: upper ? email.toUpperCase() : email })
        }
        const input = Either.getOrThrow(decode(SendInput, { ...valid, ...fields }))
        const distinct = new Set(Object.values(fields).flat().map((a) => a.email.toLowerCase())).size
        const result = acceptSend(input)
        if (distinct > sendingLimits.recipientsPerMessage) return Either.isLeft(result)
        const { envelope } = Either.getOrThrow(result)
        return envelope.recipients.length === distinct
          && envelope.recipients.length + envelope.duplicates.length === Object.values(fields).flat().length
      },
    ))
  })

  it("answers 413 naming the body when html or text is over 1 MiB, counting UTF-8 bytes", () => {
    const atLimit = Either.getOrThrow(decode(SendInput, { ...valid, content: { subject: "s", html: "a".repeat(sendingLimits.bodyBytes) } }))
    expect(Either.isRight(acceptSend(atLimit))).toBe(true)
    const overHtml = Either.getOrThrow(decode(SendInput, { ...valid, content: { subject: "s", html: "é".repeat(sendingLimits.bodyBytes / 2 + 1) } }))
    const error = Either.getOrThrow(Either.flip(acceptSend(overHtml)))
    expect(error).toMatchObject({ _tag: "PayloadTooLarge", code: "PAYLOAD_TOO_LARGE", field: "content.html" })
    const overText = Either.getOrThrow(decode(SendInput, { ...valid, content: { subject: "s", html: "<p>x</p>", text: "t".repeat(sendingLimits.bodyBytes + 1) } }))
    expect(Either.getOrThrow(Either.flip(acceptSend(overText)))).toMatchObject({ _tag: "PayloadTooLarge", field: "content.text" })
  })

  it.each([
    ["content.text", { templateId: "tpl_1", text: "x" }],
    ["content.templateId", { templateId: "" }],
    ["content.html", { subject: "s" }],
    ["content.subject", { html: "<p>x</p>" }],
  ])("refuses content naming %s", (field, content) => {
    const input = Either.getOrThrow(decode(SendInput, { ...valid, content }))
    expect(Either.getOrThrow(Either.flip(acceptSend(input)))).toMatchObject({ code: "VALIDATION_ERROR", field })
  })

  it("refuses themeId while themes do not exist", () => {
    const input = Either.getOrThrow(decode(SendInput, { ...valid, themeId: "thm_1" }))
    expect(Either.getOrThrow(Either.flip(acceptSend(input)))).toMatchObject({ code: "VALIDATION_ERROR", field: "themeId" })
  })

  it("merges attachments of content and of the body", () => {
    const a = { filename: "a.txt", content: "aGVsbG8=", contentType: "text/plain" }
    const b = { filename: "b.pdf", content: "JVBERi0=", contentType: "application/pdf" }
    const input = Either.getOrThrow(decode(SendInput, { ...valid, content: { ...valid.content, attachments: [a] }, attachments: [b] }))
    expect(Either.getOrThrow(acceptSend(input)).attachments).toEqual([a, b])
  })
})

describe("stream", () => {
  it.each([
    [{}, { stream: "transactional", topicId: null }],
    [{ stream: "marketing" }, { stream: "marketing", topicId: null }],
    [{ suppressionGroupId: "tpc_1" }, { stream: "marketing", topicId: "tpc_1" }],
    [{ stream: "marketing", suppressionGroupId: "tpc_1" }, { stream: "marketing", topicId: "tpc_1" }],
  ] as const)("%j goes out as %j", (input, expected) => {
    expect(Either.getOrThrow(resolveStream(input))).toEqual(expected)
  })

  it("refuses suppressionGroupId on a send that asks for the transactional stream", () => {
    const error = Either.getOrThrow(Either.flip(resolveStream({ stream: "transactional", suppressionGroupId: "tpc_1" })))
    expect(error).toMatchObject({ code: "VALIDATION_ERROR", field: "suppressionGroupId" })
  })

  it.each([
    ["marketing", undefined, true], ["marketing", false, false], ["transactional", undefined, false], ["transactional", true, true],
  ] as const)("%s mail with track %s is tracked: %s", (stream, track, tracked) => {
    const input = Either.getOrThrow(decode(SendInput, { ...valid, stream, ...(track === undefined ? {} : { track }) }))
    expect(Either.getOrThrow(acceptSend(input)).track).toBe(tracked)
  })
})

describe("POST /emails/schedule", () => {
  const now = new Date("2026-03-15T10:00:00Z")

  it.each([
    ["one second ahead", "2026-03-15T10:00:01Z", true],
    ["exactly now", "2026-03-15T10:00:00Z", false],
    ["in the past", "2026-03-14T10:00:00Z", false],
    ["exactly one year ahead", "2027-03-15T10:00:00Z", true],
    ["one year and a second ahead", "2027-03-15T10:00:01Z", false],
    ["with an offset", "2026-03-15T12:30:00+02:00", true],
  ])("scheduledFor %s (%s) is accepted: %s", (_name, at, accepted) => {
    const input = Either.getOrThrow(decode(ScheduleInput, { ...valid, scheduledFor: at }))
    const result = acceptSchedule(input, now)
    expect(Either.isRight(result)).toBe(accepted)
    if (Either.isLeft(result)) expect(result.left).toMatchObject({ field: "scheduledFor" })
  })

  it.each(["2026-03-15", "2026-03-15T10:00:00", "tomorrow", "2026-13-01T00:00:00Z"])("refuses %s as scheduledFor", (at) => {
    expect(failedPath(ScheduleInput, { ...valid, scheduledFor: at })).toBe("scheduledFor")
  })

  it("requires scheduledFor", () => {
    expect(failedPath(ScheduleInput, valid)).toBe("scheduledFor")
  })

  it("the horizon of a leap day is the same date a year on, clamped to the month", () => {
    expect(Either.isRight(checkScheduledFor(new Date("2029-02-28T00:00:00Z"), new Date("2028-02-29T00:00:00Z")))).toBe(true)
    expect(Either.isLeft(checkScheduledFor(new Date("2029-03-01T00:00:00Z"), new Date("2028-02-29T00:00:00Z")))).toBe(true)
  })
})

describe("POST /emails/batch body", () => {
  const batch = {
    from: { email: "news@example.com" },
    content: { subject: "Hi {{name}}", html: "<p>{{greeting}} {{name}}</p>" },
    variables: { greeting: "Hello", name: "friend" },
    recipients: [
      { to: { email: "ada@example.org" }, variables: { name: "Ada" } },
      { to: { email: "bob@example.org" }, cc: [{ email: "BOB@example.org" }, { email: "carol@example.org" }] },
    ],
  }

  it("makes one message per entry, per-recipient variables over the top-level ones", () => {
    const messages = Either.getOrThrow(acceptBatch(Either.getOrThrow(decode(BatchInput, batch))))
    expect(messages).toHaveLength(2)
    expect(messages[0]!.variables).toEqual({ greeting: "Hello", name: "Ada" })
    expect(messages[1]!.variables).toEqual({ greeting: "Hello", name: "friend" })
    expect(messages[1]!.envelope.recipients.map((r) => r.email)).toEqual(["bob@example.org", "carol@example.org"])
    expect(messages[1]!.envelope.duplicates).toHaveLength(1)
  })

  it("takes 1,000 recipients and refuses 1,001", () => {
    const entries = (n: number) => Array.from({ length: n }, (_, i) => ({ to: { email: `r${i}@example.org` } }))
    expect(Either.isRight(decode(BatchInput, { ...batch, recipients: entries(1000) }))).toBe(true)
    expect(failedPath(BatchInput, { ...batch, recipients: entries(1001) })).toBe("recipients")
    expect(failedPath(BatchInput, { ...batch, recipients: [] })).toBe("recipients")
  })

  it("requires a subject and names the entry whose envelope is too large", () => {
    const noSubject = Either.getOrThrow(decode(BatchInput, { ...batch, content: { html: "<p>x</p>" } }))
    expect(Either.getOrThrow(Either.flip(acceptBatch(noSubject)))).toMatchObject({ field: "content.subject" })
    const wide = Either.getOrThrow(decode(BatchInput, { ...batch, recipients: [batch.recipients[0], { to: { email: "x@example.org" }, bcc: addresses(100) }] }))
    expect(Either.getOrThrow(Either.flip(acceptBatch(wide)))).toMatchObject({ field: "recipients.1.to" })
  })

  it("refuses a per-recipient variable that is not a string", () => {
    expect(failedPath(BatchInput, { ...batch, recipients: [{ to: { email: "a@example.org" }, variables: { n: 1 } }] }))
      .toBe("recipients.0.variables.n")
  })
})
