/** The API reference page in Chromium: it renders the document's routes, makes no request to any origin but the
 *  starter's (its script is inline, its fonts are off, its CSP allows nothing else), and keeps a screenshot. */
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { expect, it } from "vitest"
import { describeBrowser, screenshots, useBrowserStarter } from "./harness.js"

const docsImages = fileURLToPath(new URL("../../../../docs/images/", import.meta.url))

describeBrowser("the API reference page in Chromium", () => {
  const session = useBrowserStarter({ name: "Reference reader" })

  it("shows the routes, loads nothing from elsewhere and breaks no CSP rule", async () => {
    const page = await session.browser.newPage()
    const origin = new URL(session.starter.origin).origin
    const elsewhere: Array<string> = []
    const violations: Array<string> = []
    page.on("request", (request) => {
      const url = new URL(request.url())
      if (url.protocol.startsWith("http") && url.origin !== origin) elsewhere.push(request.url())
    })
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text())
    })
    // The page is 3 MB of inline script: on a busy machine it takes a while to parse.
    await page.goto(`${session.starter.origin}/v1/reference`, { waitUntil: "domcontentloaded", timeout: 90_000 })
    // The first tag is open; the others (Emails among them) are folded in the sidebar.
    await page.getByText("Create a contact").first().waitFor({ timeout: 90_000 })
    expect(await page.getByText("Emails").count()).toBeGreaterThan(0)
    expect(elsewhere).toEqual([])
    expect(violations).toEqual([])
    await screenshots(page, "api-reference")
    await page.screenshot({ path: join(docsImages, "api-reference.png") })
    await page.close()
  }, 200_000)
})
