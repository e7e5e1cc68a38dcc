/** The MIME submission of one recipient around its rendered content. Rendering itself is the TemplateEngine's, tested
 *  in @mailroom/templates (inline.test.ts). */
import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { acceptSend, SendInput, type AcceptedMessage, type RenderedInline } from "../../src/index.js"
import { buildOutgoing, type OutgoingInput, pipelineValues } from "../../src/domain/outgoing.js"

const message = (body: Record<string, unknown>): AcceptedMessage =>
  Either.getOrThrow(acceptSend(Schema.decodeUnknownSync(SendInput)({
    from: { email: "news@example.com", name: "Example News" },
    to: [{ email: "ada@example.org", name: "Ada" }],
    content: { subject: "Hello {{name}}", html: "<p>Hi {{name}}</p>" },
    ...body,
  })))

const rendered: RenderedInline = { subject: "Hello Ada", html: "<p>Hi Ada</p>", text: "Hi Ada" }

const build = (input: Omit<OutgoingInput, "rendered"> & { readonly rendered?: RenderedInline }) =>
  buildOutgoing({ rendered, ...input })

describe("the outgoing message of one recipient", () => {
  const links = { unsubscribeUrl: "https://track.example.com/u/tok123", preferencesUrl: "https://app.example.com/p/tok123", mailto: "unsubscribe@example.com" }

  it("puts the recipient alone in the envelope, To and Cc in the headers, Bcc nowhere in the headers", () => {
    const m = message({ cc: [{ email: "cy@example.org" }], bcc: [{ email: "secret@example.org" }], replyTo: { email: "help@example.com" } })
    const out = Either.getOrThrow(build({ messageId: "msg_1", message: m, recipient: "secret@example.org", envelopeFrom: "bounces@mail.example.com" }))
    expect(out.envelopeTo).toEqual(["secret@example.org"])
    expect(out.envelopeFrom).toBe("bounces@mail.example.com")
    expect(out.from).toEqual({ email: "news@example.com", name: "Example News" })
    expect(out.to).toEqual([{ email: "ada@example.org", name: "Ada" }])
    expect(out.cc).toEqual([{ email: "cy@example.org" }])
    expect(out.replyTo).toEqual({ email: "help@example.com" })
    expect(JSON.stringify(out.headers ?? {})).not.toContain("secret")
    expect(out.messageId).toBe("<msg_1-2@example.com>")
    expect(out.subject).toBe("Hello Ada")
    expect(out.text).toBe("Hi Ada")
  })

  it("gives each recipient its own Message-ID on the chosen domain", () => {
    const m = message({ to: [{ email: "a@example.org" }, { email: "b@example.org" }] })
    const ids = ["a@example.org", "b@example.org"].map((recipient) =>
      Either.getOrThrow(build({ messageId: "msg_9", message: m, recipient, envelopeFrom: "b@x.test", messageIdDomain: "mail.example.com" })).messageId)
    expect(ids).toEqual(["<msg_9-0@mail.example.com>", "<msg_9-1@mail.example.com>"])
  })

  it("transactional mail carries no List-Unsubscribe, even when links are given", () => {
    const out = Either.getOrThrow(build({ messageId: "msg_1", message: message({}), recipient: "ada@example.org", envelopeFrom: "b@x.test", unsubscribe: links }))
    expect(out.headers).toBeUndefined()
  })

  it("fills {{unsubscribe_url}} and {{preferences_url}} from the links of marketing mail, and nothing in transactional mail", () => {
    expect(pipelineValues(links)).toEqual({ unsubscribe_url: links.unsubscribeUrl, preferences_url: links.preferencesUrl })
    expect(pipelineValues({ unsubscribeUrl: "https://t.test/u/x", mailto: "u@x.test" })).toEqual({ unsubscribe_url: "https://t.test/u/x" })
    expect(pipelineValues(undefined)).toEqual({})
  })

  it("marketing mail carries one-click List-Unsubscribe with the link first and a mailto, around the rendered bodies", () => {
    const m = message({
      stream: "marketing",
      content: { subject: "News", html: "<a href=\"{{unsubscribe_url}}\">unsubscribe</a>" },
    })
    const out = Either.getOrThrow(build({ messageId: "msg_1", message: m, recipient: "ada@example.org", envelopeFrom: "b@x.test", unsubscribe: links }))
    expect(out.headers).toEqual({
      "List-Unsubscribe": "<https://track.example.com/u/tok123>, <mailto:unsubscribe@example.com?subject=unsubscribe>",
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    })
    expect(out.html).toBe(rendered.html)
  })

  it("refuses marketing mail without unsubscribe links and a recipient the message does not have", () => {
    expect(Either.isLeft(build({ messageId: "m", message: message({ stream: "marketing" }), recipient: "ada@example.org", envelopeFrom: "b@x.test" }))).toBe(true)
    expect(Either.isLeft(build({ messageId: "m", message: message({}), recipient: "eve@example.org", envelopeFrom: "b@x.test" }))).toBe(true)
  })

  it("passes attachments through as base64 with their type", () => {
    const m = message({ attachments: [{ filename: "a.txt", content: "aGVsbG8=", contentType: "text/plain" }] })
    const out = Either.getOrThrow(build({ messageId: "m", message: m, recipient: "ada@example.org", envelopeFrom: "b@x.test" }))
    expect(out.attachments).toEqual([{ filename: "a.txt", contentBase64: "aGVsbG8=", contentType: "text/plain" }])
  })

  it("names only the recipients that remain in To and Cc: dropped ones are left out, the Message-ID keeps its position", () => {
    const m = message({
      to: [{ email: "ada@example.org" }, { email: "dan@example.org" }],
      cc: [{ email: "bob@example.org" }, { email: "carol@example.org", name: "Carol" }],
      bcc: [{ email: "erin@example.org" }],
    })
    const dropped = new Set(["dan@example.org", "bob@example.org"])
    const out = Either.getOrThrow(build({ messageId: "m", message: m, recipient: "carol@example.org", envelopeFrom: "b@x.test", dropped }))
    expect(out.envelopeTo).toEqual(["carol@example.org"])
    expect(out.to).toEqual([{ email: "ada@example.org" }])
    expect(out.cc).toEqual([{ email: "carol@example.org", name: "Carol" }])
    expect(out.messageId).toBe("<m-3@example.com>")
    const allCcDropped = Either.getOrThrow(build({
      messageId: "m", message: m, recipient: "ada@example.org", envelopeFrom: "b@x.test",
      dropped: new Set(["bob@example.org", "carol@example.org"]),
    }))
    expect(allCcDropped.cc).toBeUndefined()
    const allToDropped = Either.getOrThrow(build({
      messageId: "m", message: m, recipient: "carol@example.org", envelopeFrom: "b@x.test",
      dropped: new Set(["ada@example.org", "dan@example.org"]),
    }))
    expect(allToDropped.to).toEqual([{ email: "news@example.com", name: "Example News" }])
  })

  it("shows the sender as To when every recipient is in Bcc", () => {
    const m = message({ to: [{ email: "ada@example.org" }], bcc: [{ email: "b@example.org" }] })
    expect(m.envelope.recipients).toHaveLength(2)
    const onlyBcc: AcceptedMessage = { ...m, envelope: { ...m.envelope, recipients: [{ email: m.envelope.recipients[1]!.email, field: "bcc" }] } }
    const out = Either.getOrThrow(build({ messageId: "m", message: onlyBcc, recipient: "b@example.org", envelopeFrom: "b@x.test" }))
    expect(out.to).toEqual([{ email: "news@example.com", name: "Example News" }])
  })
})
