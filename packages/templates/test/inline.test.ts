/** Inline content (a send's own subject, html and text, and the default confirmation mail) rendered by the engine:
 *  sending rule 6. The send pipeline and the subscription steps render inline content through this call only. */
import type { InlineContent } from "@mailroom/core"
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeRenderer } from "../src/renderer.js"

const renderer = makeRenderer({ cacheSize: 4 })

const render = (content: InlineContent, variables: Record<string, string>, pipeline?: Record<string, string>) =>
  Either.getOrThrow(renderer.renderInline(content, { variables, pipeline }))

const failure = (content: InlineContent, variables: Record<string, string> = {}) =>
  Either.getOrThrow(Either.flip(renderer.renderInline(content, { variables })))

describe("inline content through the engine", () => {
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

  it("renders missing variables empty, and a text-only message has no html", () => {
    expect(render({ subject: "Hi {{name}}!", text: "x" }, {})).toEqual({ subject: "Hi !", html: undefined, text: "x" })
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

  it("lets the pipeline's values win over variables of the same names", () => {
    const out = render({ subject: "s", html: "<a href=\"{{unsubscribe_url}}\">{{name}}</a>" }, { name: "Ada", unsubscribe_url: "x" }, {
      unsubscribe_url: "https://track.example.com/u/tok",
    })
    expect(out.html).toBe("<a href=\"https://track.example.com/u/tok\">Ada</a>")
  })

  it.each([
    ["content.html", { subject: "s", html: "{{#if x}}open" }],
    ["content.subject", { subject: "{{", text: "x" }],
    ["content.text", { subject: "s", text: "{{shout name}}" }],
    ["content.html", { subject: "s", html: "{{> footer}}" }],
  ])("refuses content that does not compile or render, naming %s", (field, source) => {
    expect(failure(source)).toMatchObject({ code: "VALIDATION_ERROR", field })
  })

  it("does not reach the prototype of the variables", () => {
    expect(render({ subject: "{{constructor.name}}|{{__proto__}}", text: "x" }, {}).subject).toBe("|")
  })

  it("leaves the release cache alone", () => {
    const before = renderer.cached()
    for (let i = 0; i < 10; i++) render({ subject: `s${i}`, text: "x" }, {})
    expect(renderer.cached()).toBe(before)
    expect(renderer.compilations()).toBe(0)
  })
})
