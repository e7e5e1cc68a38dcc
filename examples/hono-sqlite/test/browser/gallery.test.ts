/** Starters of the gallery in a real browser: three of them rendered by the template engine with their sample data,
 *  in the default theme and in a dark one, at 600 px (the layout's width) and at 375 px (a phone): no serious axe-core
 *  finding, nothing wider than the viewport, and screenshots in docs/images/ that docs/templates.md shows. */
import { defaultTheme, findStarter, starterInput, starterSample, starters, type Theme, toDraft } from "@mailroom/core"
import { makeTemplateEngine, type TemplateEngineHandle } from "@mailroom/templates"
import { Effect, Exit, Scope } from "effect"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, expect, it } from "vitest"
import { describeBrowser, launchBrowser, seriousViolations } from "./harness.js"

const images = fileURLToPath(new URL("../../../../docs/images/", import.meta.url))

/** A dark brand whose pairs meet WCAG AA contrast. */
const dark: Theme = {
  ...defaultTheme,
  name: "Nightly",
  colors: {
    primary: "#8ab4ff", primaryText: "#0b1020", background: "#0b1020", surface: "#161b2e",
    text: "#e8eaf2", mutedText: "#b4bacb", link: "#8ab4ff",
  },
  footer: "Nightly Ltd, the night shift of email.",
  compliance: { company: "Nightly Ltd", address: "1 Moon Street, 10115 Berlin", email: null },
}
const themes = { default: defaultTheme, dark } as const
const shown = ["welcome", "password-reset", "receipt"] as const
const widths = [600, 375] as const

describeBrowser("gallery starters in Chromium", () => {
  let browser: Browser
  let scope: Scope.CloseableScope
  let engine: TemplateEngineHandle

  beforeAll(async () => {
    browser = await launchBrowser()
    scope = await Effect.runPromise(Scope.make())
    engine = await Effect.runPromise(Scope.extend(makeTemplateEngine(), scope))
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  const render = async (key: string, theme: Theme) => {
    const starter = findStarter(key)!
    const draft = toDraft(starterInput(starter, false), starter.locale)
    const { engine: _tag, ...compiled } = await Effect.runPromise(engine.service.prepare({ format: "mjml", subject: draft.subject, html: draft.html, text: draft.text }))
    return Effect.runPromise(engine.service.render(
      { cacheKey: `${key}:${theme.name}`, ...compiled },
      { variables: starterSample(starter), theme: theme as unknown as Record<string, unknown> },
      { mode: "strict", declared: starter.variables },
    ))
  }

  for (const key of shown) {
    for (const [themeName, theme] of Object.entries(themes)) {
      it(`${key} in the ${themeName} theme: no serious axe finding at 600 and 375 px, and fits both`, async () => {
        const { html } = await render(key, theme)
        const page = await browser.newPage()
        for (const width of widths) {
          await page.setViewportSize({ width, height: 900 })
          await page.setContent(html, { waitUntil: "load" })
          expect(await page.getAttribute("html", "lang")).toBe("en")
          expect(await seriousViolations(page), `${key} ${themeName} ${width}`).toEqual([])
          expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${key} ${themeName} ${width}`).toBe(true)
          // Body text stays readable: no paragraph smaller than 13 px.
          const small = await page.evaluate(() => [...document.querySelectorAll("p, h1, h2, h3")]
            .filter((el) => (el.textContent ?? "").trim() !== "" && parseFloat(getComputedStyle(el).fontSize) < 13)
            .map((el) => `${el.tagName} ${getComputedStyle(el).fontSize} ${(el.textContent ?? "").trim().slice(0, 40)}`))
          expect(small).toEqual([])
          await page.screenshot({ path: join(images, `gallery-${key}-${themeName}-${width}.png`), fullPage: true })
        }
        await page.close()
      }, 60_000)
    }
  }

  // Every other starter, in both themes and at both widths, without screenshots. Images from elsewhere are not
  // fetched (the page is checked once its markup is in).
  for (const { key } of starters.filter((starter) => !(shown as ReadonlyArray<string>).includes(starter.key))) {
    it(`${key}: no serious axe finding and fits, at 600 and 375 px, in both themes`, async () => {
      const page = await browser.newPage()
      await page.route(/^https?:\/\//, (route) => route.abort())
      for (const [themeName, theme] of Object.entries(themes)) {
        const { html } = await render(key, theme)
        for (const width of widths) {
          await page.setViewportSize({ width, height: 900 })
          await page.setContent(html, { waitUntil: "domcontentloaded" })
          expect(await seriousViolations(page), `${key} ${themeName} ${width}`).toEqual([])
          expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${key} ${themeName} ${width}`).toBe(true)
        }
      }
      await page.close()
    }, 60_000)
  }
})
