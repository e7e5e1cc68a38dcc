/** The starter gallery through the real engine: every starter compiles from its blocks, renders with its sample data
 *  in the default theme and in another, and carries what mail clients and screen readers need (lang, title, alt text,
 *  the theme's colours rather than literals). */
import { blockLimits, BlockList, compileBlocks, defaultTheme, findStarter, starterCategories, starterInput, starterSample, starters, toDraft } from "@mailroom/core"
import { Effect, Either, Exit, Schema, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeTemplateEngine, type TemplateEngineHandle } from "../src/engine.js"

let handle: TemplateEngineHandle
let scope: Scope.CloseableScope
beforeAll(async () => {
  scope = await Effect.runPromise(Scope.make())
  handle = await Effect.runPromise(Scope.extend(makeTemplateEngine(), scope))
})
afterAll(async () => { await Effect.runPromise(Scope.close(scope, Exit.void)) })

const dark = {
  ...defaultTheme,
  name: "Nightly",
  colors: { primary: "#8ab4ff", primaryText: "#0b1020", background: "#0b1020", surface: "#161b2e", text: "#e8eaf2", mutedText: "#b4bacb", link: "#8ab4ff" },
  logo: { url: "https://cdn.example.com/logo.png", alt: "Nightly", width: 120 },
  footer: "Nightly Ltd, the night shift of email.",
  compliance: { company: "Nightly Ltd", address: "1 Moon Street, 10115 Berlin", email: null },
}

const render = async (key: string, theme: unknown) => {
  const starter = findStarter(key)!
  const draft = toDraft(starterInput(starter, false), starter.locale)
  const { engine: _tag, ...compiled } = await Effect.runPromise(handle.service.prepare({ format: "mjml", subject: draft.subject, html: draft.html, text: draft.text }))
  return Effect.runPromise(handle.service.render(
    { cacheKey: `${key}:${JSON.stringify(theme).length}:${Math.random()}`, ...compiled },
    { variables: starterSample(starter), theme: theme as Record<string, unknown> },
    { mode: "strict", declared: starter.variables },
  ))
}

describe("the starter gallery", () => {
  it("holds at least twelve starters, the spec's, in its four groups, each key once", () => {
    const keys = starters.map((starter) => starter.key)
    expect(new Set(keys).size).toBe(keys.length)
    expect(keys).toEqual(expect.arrayContaining([
      "verify-email", "password-reset", "magic-link", "sign-in-code", "welcome", "notification", "receipt", "invoice",
      "payment-failed", "newsletter", "announcement", "double-opt-in",
    ]))
    expect(new Set(starters.map((starter) => starter.category))).toEqual(new Set(starterCategories))
  })

  it.each(starters.map((starter) => [starter.key]))("%s renders in strict mode with its sample data, in the default and a dark theme", async (key) => {
    const starter = findStarter(key)!
    expect(Either.isRight(Schema.decodeUnknownEither(BlockList)(starter.blocks))).toBe(true)
    for (const name of Object.keys(starter.variables)) expect(starter.variables[name]!.example, name).toBeDefined()
    const light = await render(key, defaultTheme)
    expect(light.html).toMatch(/<html[^>]* lang="en"/)
    expect(light.html).toContain("<title>")
    expect(light.html).toContain(defaultTheme.colors.primary)
    expect(light.html).toContain(defaultTheme.name)
    expect(light.html).not.toContain("<mj-")
    expect(light.html).not.toContain("{{")
    // Every image carries an alt attribute.
    for (const img of light.html.match(/<img\b[^>]*>/g) ?? []) expect(img).toMatch(/\balt="/)
    expect(light.text).toContain(defaultTheme.name)
    const night = await render(key, dark)
    expect(night.html).toContain(dark.colors.background)
    expect(night.html).not.toContain(defaultTheme.colors.background)
    expect(night.html).toContain(`src="${dark.logo.url}"`)
    expect(night.html).toContain('alt="Nightly"')
    expect(night.html).toContain("1 Moon Street")
  })

  it("a value is escaped in the blocks' html, and a block's own text is escaped when compiled", async () => {
    const mjml = compileBlocks([{ type: "text", size: "normal", text: "Fish & <chips>" }], { lang: "de", title: "T" })
    expect(mjml).toContain("Fish &amp; &lt;chips&gt;")
    expect(mjml).toContain('<mjml lang="de">')
  })

  it("the marketing starters carry their unsubscribe link as a link, in the html and in the text", async () => {
    for (const key of ["newsletter", "announcement"]) {
      const { html, text } = await render(key, defaultTheme)
      const unsubscribe = findStarter(key)!.variables["unsubscribe_url"]!.example as string
      expect(html, key).toMatch(new RegExp(`<a href="${unsubscribe}"[^>]*>Unsubscribe</a>`))
      expect(text, key).toContain(unsubscribe)
    }
  })

  it("a footer's links: label and href escaped, an href that is not a URL or a variable refused, at most four", () => {
    const mjml = compileBlocks([{ type: "footer", links: [{ label: "Prefs & more", href: "{{preferences_url}}" }, { label: "Site", href: "https://example.com/?a=1&b=2" }] }], { lang: "en", title: "T" })
    expect(mjml).toContain('<a href="{{preferences_url}}"')
    expect(mjml).toContain(">Prefs &amp; more</a> · <a href=\"https://example.com/?a=1&amp;b=2\"")
    const footer = (links: ReadonlyArray<unknown>) => Schema.decodeUnknownEither(BlockList)([{ type: "footer", links }])
    expect(Either.isLeft(footer([{ label: "x", href: "javascript:alert(1)" }]))).toBe(true)
    expect(Either.isRight(footer(Array(blockLimits.footerLinks).fill({ label: "x", href: "https://example.com" })))).toBe(true)
    expect(Either.isLeft(footer(Array(blockLimits.footerLinks + 1).fill({ label: "x", href: "https://example.com" })))).toBe(true)
  })

  it("a block list beyond 500 blocks, columns' blocks counted, is refused", () => {
    const spacer = { type: "spacer", height: 8 }
    const inColumns = { type: "columns", columns: [Array(200).fill(spacer), Array(200).fill(spacer)] }
    const result = Schema.decodeUnknownEither(BlockList)([inColumns, ...Array(blockLimits.blocks - 402).fill(spacer)])
    expect(Either.isRight(result)).toBe(true)
    const over = Schema.decodeUnknownEither(BlockList)([inColumns, ...Array(blockLimits.blocks - 400).fill(spacer)])
    expect(Either.isLeft(over)).toBe(true)
    expect(Either.isLeft(Schema.decodeUnknownEither(BlockList)([{ type: "video", src: "https://x" }]))).toBe(true)
    expect(Either.isLeft(Schema.decodeUnknownEither(BlockList)([{ type: "button", label: "Go", href: "javascript:alert(1)" }]))).toBe(true)
  })
})
