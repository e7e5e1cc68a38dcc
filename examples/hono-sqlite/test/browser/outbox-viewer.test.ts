/** The dev mail viewer (docs/dev-outbox.md) in Chromium, on the starter's composition: signing in with the admin
 *  token, messages newest first, search, a message's html in its sandboxed frame (a hostile message runs no script and
 *  reaches nothing: a local server counts every request it gets), text, headers, an attachment downloaded, the raw
 *  source, an inline (cid:) image showing, new mail appearing without a reload, and clearing. Screenshots go to docs/images/. */
import { createServer, type Server } from "node:http"
import { once } from "node:events"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Mailer, type OutgoingMessage, Store } from "@mailroom/core"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, expect, it } from "vitest"
import { checkPage, describeBrowser, useBrowserStarter } from "./harness.js"
import { freePort } from "../free-port.js"

const docsImages = fileURLToPath(new URL("../../../../docs/images/", import.meta.url))

const pdf = Buffer.from("%PDF-1.4\n% Mailroom invoice 2026-11 ✓\n")

describeBrowser("the dev mail viewer in Chromium", () => {
  const session = useBrowserStarter({ name: "Viewer reader" })
  /** Every request the hostile message tries to make lands here, if any gets out. */
  const hits: Array<string> = []
  let counter: Server
  let counterOrigin = ""

  beforeAll(async () => {
    const port = await freePort()
    counter = createServer((request, response) => {
      hits.push(request.url ?? "")
      response.writeHead(200, { "content-type": "image/gif", "access-control-allow-origin": "*" }).end()
    })
    counter.listen(port, "127.0.0.1")
    await once(counter, "listening")
    counterOrigin = `http://127.0.0.1:${port}`
  })
  afterAll(async () => {
    counter?.closeAllConnections()
    await new Promise((resolve) => counter?.close(resolve))
  })

  const send = (message: Partial<OutgoingMessage> & { subject: string; to?: ReadonlyArray<{ email: string }> }) =>
    session.starter.run(Effect.flatMap(Mailer, (mailer) => mailer.send({
      envelopeFrom: "bounces@mail.example.com",
      envelopeTo: (message.to ?? [{ email: "ada@example.net" }]).map((to) => to.email),
      from: { email: "news@example.com", name: "Example News" },
      to: [{ email: "ada@example.net" }],
      ...message,
    })))

  const subjects = (page: Page) => page.locator("#messages .subject").allTextContents()

  it("signs in, lists newest first, searches, shows every part of a message, downloads, then follows and clears", async () => {
    await send({ subject: "Welcome aboard", text: "Hello Ada, welcome.\nSee you soon." })
    await send({
      subject: "Your invoice",
      to: [{ email: "bob@example.org" }],
      html: "<h1 style=\"font-family:sans-serif;color:#1f5fbf\">Invoice 2026-11</h1><p>Attached: your invoice.</p>",
      text: "Attached: your invoice.",
      attachments: [{ filename: "invoice-2026-11.pdf", contentType: "application/pdf", contentBase64: pdf.toString("base64") }],
    })
    const hostile = [
      "<p id=\"hostile\">A message that tries everything</p>",
      "<script>document.body.setAttribute('data-ran', 'yes'); fetch('" + counterOrigin + "/fetch')</script>",
      `<img src="${counterOrigin}/x" alt="remote">`,
      `<link rel="stylesheet" href="${counterOrigin}/style.css">`,
      `<div style="background:url(${counterOrigin}/background)">styled</div>`,
      `<meta http-equiv="refresh" content="0;url=${counterOrigin}/refresh">`,
      `<img src="x" onerror="document.body.setAttribute('data-ran', 'onerror')" alt="broken">`,
      `<iframe src="${counterOrigin}/frame" title="nested"></iframe>`,
    ].join("\n")
    await send({ subject: "Hostile html", html: hostile, text: "hostile" })
    await session.starter.mailTo("ada@example.net", 2)

    const context = await session.browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 } })
    const page = await context.newPage()
    const requests: Array<string> = []
    page.on("request", (request) => requests.push(request.url()))
    // Chromium reports a request the page's policy refuses as one that failed ("csp"), never as finished.
    const finished: Array<string> = []
    const failed: Array<string> = []
    page.on("requestfinished", (request) => finished.push(request.url()))
    page.on("requestfailed", (request) => failed.push(`${request.url()} ${request.failure()?.errorText}`))

    // Signing in: the form, then a wrong token, then the right one.
    await page.goto(`${session.starter.origin}/admin/mail`)
    await expect(page.locator("h1").textContent()).resolves.toBe("Mail viewer")
    await checkPage(page, "outbox-viewer-sign-in")
    await page.screenshot({ path: join(docsImages, "dev-outbox-sign-in.png") })
    await page.getByLabel("Admin token").fill("not-the-token")
    await page.getByRole("button", { name: "Sign in" }).click()
    await expect(page.getByRole("alert").textContent()).resolves.toContain("not the admin token")
    await page.getByLabel("Admin token").fill(session.starter.adminToken)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.waitForURL(/\/admin\/mail$/)
    expect(requests.some((url) => url.includes(session.starter.adminToken))).toBe(false)
    const cookies = await context.cookies()
    expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite, c.path])).toEqual([["mailroom_outbox_session", true, "Strict", "/admin/mail"]])

    // Newest first.
    await page.locator("#messages li").nth(2).waitFor()
    expect(await subjects(page)).toEqual(["Hostile html", "Your invoice", "Welcome aboard"])
    expect(await page.locator("#status").textContent()).toBe("3 messages, newest first")

    // Search: by subject, by recipient, by text; nothing.
    // Search (on the server, over the whole outbox, once typing pauses): by subject, by recipient, by text; nothing.
    const searched = (q: string) => page.waitForResponse((response) =>
      response.url().endsWith(q === "" ? "/admin/mail/messages" : `/admin/mail/messages?q=${encodeURIComponent(q)}`))
    for (const [q, expected] of [
      ["invoice", ["Your invoice"]], ["BOB@example.org", ["Your invoice"]], ["see you soon", ["Welcome aboard"]],
      ["nothing like this", []],
    ] as const) {
      const answered = searched(q)
      await page.getByRole("searchbox", { name: "Search" }).fill(q)
      await answered
      await expect.poll(() => subjects(page)).toEqual(expected)
    }
    expect(await page.locator("#status").textContent()).toBe("No message matches “nothing like this”.")
    await page.getByRole("searchbox", { name: "Search" }).fill("")
    await expect.poll(() => subjects(page)).toEqual(["Hostile html", "Your invoice", "Welcome aboard"])

    // The invoice: html in the frame, text, headers, attachment, raw source.
    await page.locator("#messages button", { hasText: "Your invoice" }).click()
    await expect(page.locator("#subject").textContent()).resolves.toBe("Your invoice")
    const frame = page.frameLocator("#frame")
    await expect(frame.locator("h1").textContent()).resolves.toBe("Invoice 2026-11")
    expect(await page.locator("#frame").getAttribute("sandbox")).toBe("")
    await checkPage(page, "outbox-viewer")
    await page.screenshot({ path: join(docsImages, "dev-outbox-viewer.png") })

    await page.getByRole("tab", { name: "Text" }).click()
    expect(await page.locator("#text").textContent()).toBe("Attached: your invoice.")
    await page.getByRole("tab", { name: "Headers" }).click()
    expect(await page.locator("#headers tr", { hasText: "content-type" }).textContent()).toContain("multipart/mixed")
    expect(await page.locator("#headers tr", { hasText: "subject" }).first().textContent()).toContain("Your invoice")
    await page.getByRole("tab", { name: "Attachments (1)" }).click()
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "invoice-2026-11.pdf" }).click(),
    ])
    expect(download.suggestedFilename()).toBe("invoice-2026-11.pdf")
    expect(readFileSync((await download.path()))).toEqual(pdf)
    await page.getByRole("tab", { name: "Raw source" }).click()
    await page.locator("#raw", { hasText: "Content-Type: multipart/mixed" }).waitFor()
    expect(await page.locator("#raw").textContent()).toContain("Subject: Your invoice")
    expect(await page.locator("#raw").textContent()).toContain("filename=invoice-2026-11.pdf")
    await checkPage(page, "outbox-viewer-raw")
    await page.screenshot({ path: join(docsImages, "dev-outbox-raw.png") })

    // A text-only message: no frame, its text.
    await page.getByRole("tab", { name: "HTML" }).click()
    await page.locator("#messages button", { hasText: "Welcome aboard" }).click()
    await page.locator("#no-html").waitFor()
    expect(await page.locator("#frame").isVisible()).toBe(false)
    await page.getByRole("tab", { name: "Text" }).click()
    expect(await page.locator("#text").textContent()).toBe("Hello Ada, welcome.\nSee you soon.")

    // The hostile message: no script runs, nothing outside the message is asked for, the frame stays where it is.
    await page.getByRole("tab", { name: "HTML" }).click()
    await page.locator("#messages button", { hasText: "Hostile html" }).click()
    await expect(frame.locator("#hostile").textContent()).resolves.toBe("A message that tries everything")
    await page.waitForTimeout(1500)
    const messageFrame = page.frames().find((f) => f.url().endsWith("/html"))!
    expect(messageFrame).toBeDefined()
    expect(await messageFrame.evaluate(() => document.body.getAttribute("data-ran"))).toBeNull()
    expect(hits).toEqual([])
    expect(finished.filter((url) => url.startsWith(counterOrigin))).toEqual([])
    expect(failed.filter((line) => line.startsWith(counterOrigin)).every((line) => line.endsWith(" csp")),
      failed.join("\n")).toBe(true)
    expect(page.frames().find((f) => f.url().endsWith("/html"))).toBeDefined()

    // Inline images (cid:) show, served in the html as data: URLs; the message's external image still asks for nothing.
    const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64")
    const inlineHtml = `<p>Our logo: <img id="logo" src="cid:logo@news.example.com" alt="logo"> <img id="remote" src="${counterOrigin}/inline-remote" alt="remote"></p>`
    await session.starter.run(Effect.flatMap(Store, (store) => store.devOutbox.insert({
      id: "out_inline_image", from: "news@example.com", to: ["ada@example.net"], subject: "With a logo", html: inlineHtml,
      text: "Our logo", headers: { subject: "With a logo" }, createdAt: new Date(),
      raw: [
        "From: news@example.com", "To: ada@example.net", "Subject: With a logo", "MIME-Version: 1.0",
        "Content-Type: multipart/related; boundary=\"rel\"", "",
        "--rel", "Content-Type: text/html; charset=utf-8", "", inlineHtml,
        "--rel", "Content-Type: image/png; name=\"logo.png\"", "Content-ID: <logo@news.example.com>",
        "Content-Disposition: inline; filename=\"logo.png\"", "Content-Transfer-Encoding: base64", "", png.toString("base64"),
        "--rel--", "",
      ].join("\r\n"),
    })))
    await page.locator("#messages button", { hasText: "With a logo" }).click()
    await frame.locator("#logo").waitFor()
    const logoFrame = () => page.frames().find((f) => f.url().endsWith("/out_inline_image/html"))!
    await expect.poll(() => logoFrame()?.evaluate(() => {
      const logo = document.getElementById("logo") as HTMLImageElement
      return logo.complete ? logo.naturalWidth : -1
    })).toBe(1)
    expect(await logoFrame().evaluate(() => (document.getElementById("remote") as HTMLImageElement).naturalWidth)).toBe(0)
    await page.waitForTimeout(500)
    expect(hits).toEqual([])
    expect(finished.filter((url) => url.startsWith(counterOrigin))).toEqual([])

    // New mail shows without a reload.
    await page.evaluate(() => { (window as unknown as { marker: number }).marker = 1 })
    await send({ subject: "Fresh off the press", text: "new" })
    await page.locator("#messages .subject", { hasText: "Fresh off the press" }).waitFor({ timeout: 10_000 })
    expect((await subjects(page))[0]).toBe("Fresh off the press")
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1)

    // Clearing, after a confirmation.
    page.once("dialog", (dialog) => void dialog.accept())
    await page.getByRole("button", { name: "Clear outbox" }).click()
    await page.locator("#status", { hasText: "Cleared 5 messages." }).waitFor()
    expect(await page.locator("#messages li").count()).toBe(0)
    expect((await session.starter.api("GET", "/admin/outbox", session.starter.adminToken)).body.data).toEqual([])
    expect(hits).toEqual([])

    // Signing out: the cookie goes, and the page asks for the token again.
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByLabel("Admin token").waitFor()
    expect(await context.cookies()).toEqual([])
    await context.close()
  }, 120_000)
})
