/** The page shell in a real browser: the default theme passes axe-core (contrast, landmarks, labels) and fits a phone. */
import { html, notice, pageResponse, postForm, submitButton, textField, checkboxField, fieldset } from "@mailroom/http"
import { Hono } from "hono"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, expect, it } from "vitest"
import { describeBrowser, fitsPhoneWidth, type Host, launchBrowser, screenshots, seriousViolations, serveApp } from "./harness.js"

describeBrowser("the page shell in Chromium", () => {
  let browser: Browser
  let host: Host

  beforeAll(async () => {
    browser = await launchBrowser()
    const app = new Hono().get("/shell", () => pageResponse({
      title: "Every building block",
      body: html`<h1>Every building block</h1>
${notice("success", "Saved.")}${notice("error", "Something went wrong.")}
<p>Body text with <a href="#main">a link</a>.</p><p class="muted">Muted text.</p>
${postForm("/shell", html`${textField({ name: "email", label: "Email", type: "email", required: true, hint: "We never share it." })}
${fieldset("Topics", html`${checkboxField({ id: "a", name: "topic", value: "a", label: "News", hint: "Monthly.", checked: true })}${checkboxField({ id: "b", name: "topic", value: "b", label: "Offers" })}`)}
<div class="actions">${submitButton("Save")}${submitButton("Unsubscribe from everything", "danger")}</div>`)}`,
    }))
    host = await serveApp(app)
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await host?.close()
  })

  it("has no serious accessibility violation, fits a phone and keeps a screenshot", async () => {
    const page = await browser.newPage()
    await page.goto(`${host.origin}/shell`)
    expect(await page.title()).toBe("Every building block · Mailroom")
    expect(await page.getAttribute("html", "lang")).toBe("en")
    expect(await seriousViolations(page)).toEqual([])
    expect(await fitsPhoneWidth(page)).toBe(true)
    // Keyboard focus walks the controls in reading order, and each label names its control.
    const order: Array<string | null> = []
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press("Tab")
      order.push(await page.evaluate(() => {
        const el = document.activeElement
        return el === null ? null : el.getAttribute("href") ?? el.getAttribute("id") ?? el.textContent
      }))
    }
    expect(order).toEqual(["#main", "f-email", "c-a", "c-b", "Save", "Unsubscribe from everything"])
    await page.getByLabel("Email").fill("ada@example.com")
    expect(await page.getByLabel("Offers").isChecked()).toBe(false)
    await screenshots(page, "page-shell")
    await page.close()
  })
})
