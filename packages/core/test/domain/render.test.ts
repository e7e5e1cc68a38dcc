import { Either, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { acceptSend, buildOutgoing, compileContent, renderContent, SendInput, type AcceptedMessage } from "../../src/index.js"

const render = (source: { subject: string; html?: string; text?: string }, variables: Record<string, string>) =>
  Either.getOrThrow(renderContent(Either.getOrThrow(compileContent(source)), variables))

const message = (body: Record<string, unknown>): AcceptedMessage =>
  Either.getOrThrow(acceptSend(Schema.decodeUnknownSync(SendInput)({
    from: { email: "news@example.com", name: "Example News" },
    to: [{ email: "ada@example.org", name: "Ada" }],
    content: { subject: "Hello {{name}}", html: "<p>Hi {{name}}</p>" },
    ...body,
  })))

describe("rendering", () => {
  it("substitutes variables in subject, html and text, case-sensitively", () => {
    const out = render(
      { subject: "Hi {{name}} {{Name}}", html: "<p>{{name}}/{{Name}}</p>", text: "{{name}}|{{NAME}}" },
      { name: "ada", Name: "Ada" },
    )
    expect(out).toEqual({ subject: "Hi ada Ada", html: "<p>ada/Ada</p>", text: "ada|" })
  })

  it("escapes values in html and leaves them as they are in subject and text", () => {
    const out = render({ subject: "{{v}}", html: "<p>{{v}}</p>", text: "{{v}}" }, { v: `<b>"Tom & Jerry"</b>` })
    expect(out.html).toBe("<p>&lt;b&gt;&quot;Tom &amp; Jerry&quot;&lt;/b&gt;</p>")
    expect(out.subject).toBe(`<b>"Tom & Jerry"</b>`)
    expect(out.text).toBe(`<b>"Tom & Jerry"</b>`)
  })

  it("escapes every value in html: no markup a variable brings survives", () => {
    fc.assert(fc.property(fc.string(), (value) => {
      const { html } = render({ subject: "s", html: "<p>{{v}}</p>" }, { v: value })
      return !/[<>"]/.test(html!.slice(3, -4))
    }))
  })

  it("renders missing variables empty", () => {
    expect(render({ subject: "Hi {{name}}!", text: "x" }, {}).subject).toBe("Hi !")
  })

  it("turns line breaks a variable brings into the subject into spaces", () => {
    expect(render({ subject: "Hi {{name}}", text: "x" }, { name: "Ada\r\nBcc: eve@evil.test" }).subject).toBe("Hi Ada Bcc: eve@evil.test")
  })

  it("derives the text part from the html when there is none", () => {
    const out = render({ subject: "s", html: "<h1>Welcome</h1><p>Read <a href=\"https://example.com/a\">the guide</a>.</p><img src=\"x.png\">" }, {})
    expect(out.text).toContain("WELCOME")
    expect(out.text).toContain("the guide [https://example.com/a]")
    expect(out.text).not.toContain("<")
  })

  it.each([
    ["content.html", { subject: "s", html: "{{#if x}}open" }],
    ["content.subject", { subject: "{{", text: "x" }],
    ["content.text", { subject: "s", text: "{{shout name}}" }],
  ])("refuses a template that does not compile, naming %s", (field, source) => {
    const error = Either.getOrThrow(Either.flip(compileContent(source)))
    expect(error).toMatchObject({ code: "VALIDATION_ERROR", field })
  })

  it("reports a partial that does not exist when rendering", () => {
    const compiled = Either.getOrThrow(compileContent({ subject: "s", html: "{{> footer}}" }))
    expect(Either.getOrThrow(Either.flip(renderContent(compiled, {})))).toMatchObject({ field: "content.html" })
  })

  it("does not reach the prototype of the variables", () => {
    expect(render({ subject: "{{constructor.name}}|{{__proto__}}", text: "x" }, {}).subject).toBe("|")
  })
})

describe("the outgoing message of one recipient", () => {
  const links = { unsubscribeUrl: "https://track.example.com/u/tok123", preferencesUrl: "https://app.example.com/p/tok123", mailto: "unsubscribe@example.com" }

  it("puts the recipient alone in the envelope, To and Cc in the headers, Bcc nowhere in the headers", () => {
    const m = message({ cc: [{ email: "cy@example.org" }], bcc: [{ email: "secret@example.org" }], replyTo: { email: "help@example.com" } })
    const out = Either.getOrThrow(buildOutgoing({ messageId: "msg_1", message: m, recipient: "secret@example.org", envelopeFrom: "bounces@mail.example.com" }))
    expect(out.envelopeTo).toEqual(["secret@example.org"])
    expect(out.envelopeFrom).toBe("bounces@mail.example.com")
    expect(out.from).toEqual({ email: "news@example.com", name: "Example News" })
    expect(out.to).toEqual([{ email: "ada@example.org", name: "Ada" }])
    expect(out.cc).toEqual([{ email: "cy@example.org" }])
    expect(out.replyTo).toEqual({ email: "help@example.com" })
    expect(JSON.stringify(out.headers ?? {})).not.toContain("secret")
    expect(out.messageId).toBe("<msg_1-2@example.com>")
    expect(out.subject).toBe("Hello ")
  })

  it("gives each recipient its own Message-ID on the chosen domain", () => {
    const m = message({ to: [{ email: "a@example.org" }, { email: "b@example.org" }] })
    const ids = ["a@example.org", "b@example.org"].map((recipient) =>
      Either.getOrThrow(buildOutgoing({ messageId: "msg_9", message: m, recipient, envelopeFrom: "b@x.test", messageIdDomain: "mail.example.com" })).messageId)
    expect(ids).toEqual(["<msg_9-0@mail.example.com>", "<msg_9-1@mail.example.com>"])
  })

  it("transactional mail carries no List-Unsubscribe, even when links are given", () => {
    const out = Either.getOrThrow(buildOutgoing({ messageId: "msg_1", message: message({}), recipient: "ada@example.org", envelopeFrom: "b@x.test", unsubscribe: links }))
    expect(out.headers).toBeUndefined()
  })

  it("marketing mail carries one-click List-Unsubscribe with the link first and a mailto, and the links in its bodies", () => {
    const m = message({
      stream: "marketing",
      variables: { unsubscribe_url: "https://phish.test" },
      content: { subject: "News", html: "<a href=\"{{unsubscribe_url}}\">unsubscribe</a> <a href=\"{{preferences_url}}\">preferences</a>" },
    })
    const out = Either.getOrThrow(buildOutgoing({ messageId: "msg_1", message: m, recipient: "ada@example.org", envelopeFrom: "b@x.test", unsubscribe: links }))
    expect(out.headers).toEqual({
      "List-Unsubscribe": "<https://track.example.com/u/tok123>, <mailto:unsubscribe@example.com?subject=unsubscribe>",
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    })
    expect(out.html).toContain("href=\"https://track.example.com/u/tok123\"")
    expect(out.html).toContain("href=\"https://app.example.com/p/tok123\"")
    expect(out.html).not.toContain("phish")
    expect(out.text).toContain("https://track.example.com/u/tok123")
  })

  it("refuses marketing mail without unsubscribe links and a recipient the message does not have", () => {
    expect(Either.isLeft(buildOutgoing({ messageId: "m", message: message({ stream: "marketing" }), recipient: "ada@example.org", envelopeFrom: "b@x.test" }))).toBe(true)
    expect(Either.isLeft(buildOutgoing({ messageId: "m", message: message({}), recipient: "eve@example.org", envelopeFrom: "b@x.test" }))).toBe(true)
  })

  it("passes attachments through as base64 with their type", () => {
    const m = message({ attachments: [{ filename: "a.txt", content: "aGVsbG8=", contentType: "text/plain" }] })
    const out = Either.getOrThrow(buildOutgoing({ messageId: "m", message: m, recipient: "ada@example.org", envelopeFrom: "b@x.test" }))
    expect(out.attachments).toEqual([{ filename: "a.txt", contentBase64: "aGVsbG8=", contentType: "text/plain" }])
  })

  it("names only the recipients that remain in To and Cc: dropped ones are left out, the Message-ID keeps its position", () => {
    const m = message({
      to: [{ email: "ada@example.org" }, { email: "dan@example.org" }],
      cc: [{ email: "bob@example.org" }, { email: "carol@example.org", name: "Carol" }],
      bcc: [{ email: "erin@example.org" }],
    })
    const dropped = new Set(["dan@example.org", "bob@example.org"])
    const out = Either.getOrThrow(buildOutgoing({ messageId: "m", message: m, recipient: "carol@example.org", envelopeFrom: "b@x.test", dropped }))
    expect(out.envelopeTo).toEqual(["carol@example.org"])
    expect(out.to).toEqual([{ email: "ada@example.org" }])
    expect(out.cc).toEqual([{ email: "carol@example.org", name: "Carol" }])
    expect(out.messageId).toBe("<m-3@example.com>")
    const allCcDropped = Either.getOrThrow(buildOutgoing({
      messageId: "m", message: m, recipient: "ada@example.org", envelopeFrom: "b@x.test",
      dropped: new Set(["bob@example.org", "carol@example.org"]),
    }))
    expect(allCcDropped.cc).toBeUndefined()
    const allToDropped = Either.getOrThrow(buildOutgoing({
      messageId: "m", message: m, recipient: "carol@example.org", envelopeFrom: "b@x.test",
      dropped: new Set(["ada@example.org", "dan@example.org"]),
    }))
    expect(allToDropped.to).toEqual([{ email: "news@example.com", name: "Example News" }])
  })

  it("shows the sender as To when every recipient is in Bcc", () => {
    const m = message({ to: [{ email: "ada@example.org" }], bcc: [{ email: "b@example.org" }] })
    expect(m.envelope.recipients).toHaveLength(2)
    const onlyBcc: AcceptedMessage = { ...m, envelope: { ...m.envelope, recipients: [{ email: m.envelope.recipients[1]!.email, field: "bcc" }] } }
    const out = Either.getOrThrow(buildOutgoing({ messageId: "m", message: onlyBcc, recipient: "b@example.org", envelopeFrom: "b@x.test" }))
    expect(out.to).toEqual([{ email: "news@example.com", name: "Example News" }])
  })
})
