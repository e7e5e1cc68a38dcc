/** Signup forms in a real browser on the starter (docs/forms.md): the embed snippet on a page served from another
 *  origin, allowed and then refused; the honeypot; the hosted page, its thank-you and its refusal; a double opt-in
 *  form's "Almost done" page, the same for a new and a known address; axe-core on each. */
import { Hono } from "hono"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, expect, it } from "vitest"
import { checkPage, describeBrowser, type Host, linkIn, serveApp, type Starter, useBrowserStarter } from "./harness.js"

describeBrowser("signup forms in Chromium", () => {
  let browser: Browser
  let starter: Starter
  let shop: Host
  let key: string
  let form: { id: string; embedHtml: string }
  let listId: string
  let snippet = ""

  const contactOf = async (email: string) =>
    (await starter.api("GET", `/v1/contacts?search=${encodeURIComponent(email)}`, key)).body.data[0] as
      { email: string; status: string; source: string; consentText: string; firstName: string } | undefined

  const session = useBrowserStarter({ plan: "pro" })

  beforeAll(async () => {
    ({ browser, starter, key } = session)
    // The host's own site: another origin (127.0.0.1 rather than localhost, another port) with the snippet pasted in.
    shop = await serveApp(new Hono().get("/", (c) => c.html(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Shop</title>
<style>*{box-sizing:border-box}body{font-family:sans-serif;max-width:30rem;margin:2rem auto;padding:0 1rem}label{display:block;margin-top:1rem}
input[type=email],input[type=text]{width:100%;padding:.5rem}button{margin-top:1rem;padding:.5rem 1rem}</style></head>
<body><main><h1>Our shop</h1><p>Get our newsletter:</p>${snippet}</main></body></html>`)))
    listId = (await starter.api("POST", "/v1/contacts/lists", key, { name: "Newsletter" })).body.data.id
    form = (await starter.api("POST", "/v1/forms", key, {
      name: "Shop newsletter", listIds: [listId], allowedOrigins: [shop.origin],
      fields: [{ name: "firstName", label: "First name", required: true }],
    })).body.data
    snippet = form.embedHtml
  }, 120_000)
  afterAll(async () => {
    await shop?.close()
  })

  it("subscribes through the snippet on an allowed origin, then refuses once the origin is no longer allowed", async () => {
    const page = await browser.newPage()
    await page.goto(shop.origin)
    await checkPage(page, "form-embedded")
    await page.getByLabel("Email address").fill("ada@example.com")
    await page.getByLabel("First name").fill("Ada <b>Lovelace</b>")
    await page.getByRole("button", { name: "Subscribe" }).click()
    await expect.poll(() => page.locator("[data-mailroom-status]").textContent()).toBe("Thank you for signing up.")
    expect(await contactOf("ada@example.com")).toMatchObject({
      status: "ACTIVE", source: "FORM", consentText: "Signup form: Shop newsletter", firstName: "Ada <b>Lovelace</b>",
    })

    // The same page, once the form no longer allows its origin: the browser's CORS check refuses the fetch.
    expect((await starter.api("PATCH", `/v1/forms/${form.id}`, key, { allowedOrigins: [] })).status).toBe(200)
    await page.reload()
    await page.getByLabel("Email address").fill("eve@example.com")
    await page.getByLabel("First name").fill("Eve")
    await page.getByRole("button", { name: "Subscribe" }).click()
    await expect.poll(() => page.locator("[data-mailroom-status]").textContent())
      .toBe("The form could not be sent. Please try again.")
    expect(await contactOf("eve@example.com")).toBeUndefined()
    await page.close()

    // Without JavaScript the browser posts the form itself: Mailroom refuses the origin with a page, and creates nothing.
    const context = await browser.newContext({ javaScriptEnabled: false })
    const plain = await context.newPage()
    await plain.goto(shop.origin)
    await plain.getByLabel("Email address").fill("mallory@example.com")
    await plain.getByLabel("First name").fill("Mallory")
    const answer = plain.waitForResponse((response) => response.url().endsWith(`/v1/forms/${form.id}/submit`))
    await plain.getByRole("button", { name: "Subscribe" }).click()
    expect((await answer).status()).toBe(403)
    await plain.waitForLoadState()
    expect(await plain.locator("[role=alert]").textContent()).toContain("cannot be submitted from the page you used")
    expect(await contactOf("mallory@example.com")).toBeUndefined()
    await context.close()

    // The same refusal page, reached with JavaScript on (the form's listener dropped), for axe-core and the screenshots.
    const checked = await browser.newPage()
    await checked.goto(shop.origin)
    await checked.evaluate(() => {
      const element = document.querySelector("form.mailroom-form")!
      element.replaceWith(element.cloneNode(true))
    })
    await checked.getByLabel("Email address").fill("mallory@example.com")
    await checked.getByLabel("First name").fill("Mallory")
    await Promise.all([checked.waitForURL(/\/submit$/), checked.getByRole("button", { name: "Subscribe" }).click()])
    await checkPage(checked, "form-refused-origin")
    await checked.close()
  }, 90_000)

  it("answers a filled honeypot like a success and creates nothing", async () => {
    await starter.api("PATCH", `/v1/forms/${form.id}`, key, { allowedOrigins: [shop.origin] })
    const page = await browser.newPage()
    await page.goto(shop.origin)
    await page.getByLabel("Email address").fill("bot@example.com")
    await page.getByLabel("First name").fill("Bot")
    // A person never sees the field; a bot fills every input it finds.
    await page.locator("input[name=website_url]").fill("http://spam.example", { force: true })
    await page.getByRole("button", { name: "Subscribe" }).click()
    await expect.poll(() => page.locator("[data-mailroom-status]").textContent()).toBe("Thank you for signing up.")
    expect(await contactOf("bot@example.com")).toBeUndefined()
    await page.close()
  })

  it("shows the refusal of bad input in the snippet's status line on an allowed origin, and creates nothing", async () => {
    await starter.api("PATCH", `/v1/forms/${form.id}`, key, { allowedOrigins: [shop.origin] })
    const page = await browser.newPage()
    await page.goto(shop.origin)
    await page.getByLabel("Email address").fill("long@example.com")
    await page.getByLabel("First name").fill("x".repeat(1001))
    await page.getByRole("button", { name: "Subscribe" }).click()
    // The browser lets the page read the answer only when it carries the form's CORS headers.
    await expect.poll(() => page.locator("[data-mailroom-status]").textContent()).toMatch(/^firstName: /)
    expect(await contactOf("long@example.com")).toBeUndefined()
    await page.close()
  })

  it("serves the hosted page, refuses bad input with the form again, and thanks after a plain post", async () => {
    const page = await browser.newPage()
    await page.goto(`${starter.origin}/f/${form.id}`)
    expect(await page.title()).toBe("Shop newsletter · Mailroom")
    await checkPage(page, "form-hosted")
    await page.getByLabel("Email address").fill("grace@example.com")
    // Too long, and markup: the page shows it again as the field's value, not as markup.
    const typed = `"><script>window.pwned = 1</script><b>bold</b>${"x".repeat(1000)}`
    await page.getByLabel("First name").fill(typed)
    await page.getByRole("button", { name: "Subscribe" }).click()
    await page.waitForLoadState()
    expect(await page.locator("[role=alert]").textContent()).toContain("firstName")
    expect(await page.getByLabel("Email address").inputValue()).toBe("grace@example.com")
    // What was typed comes back as the field's value (cut at 1,000 characters), markup and all.
    expect(await page.getByLabel("First name").inputValue()).toBe(typed.slice(0, 1000))
    expect(await page.locator("main script, main b").count()).toBe(0)
    await checkPage(page, "form-hosted-error")
    await page.getByLabel("First name").fill("<script>window.pwned = 1</script>Grace")
    await page.getByRole("button", { name: "Subscribe" }).click()
    await page.waitForURL(`${starter.origin}/f/${form.id}?submitted=1`)
    expect(await page.locator("[role=status]").textContent()).toBe("Thank you for signing up.")
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
    await checkPage(page, "form-hosted-thanks")
    expect(await contactOf("grace@example.com")).toMatchObject({ status: "ACTIVE", firstName: "<script>window.pwned = 1</script>Grace" })
    await page.close()
  })

  it("a double opt-in form's hosted page says \"Almost done\", the same for a new and a known address, and mails the link", async () => {
    const optIn = (await starter.api("POST", "/v1/forms", key, { name: "Confirmed newsletter", listIds: [listId], doubleOptIn: true })).body.data
    const page = await browser.newPage()
    const submit = async (email: string) => {
      await page.goto(`${starter.origin}/f/${optIn.id}`)
      await page.getByLabel("Email address").fill(email)
      await page.getByRole("button", { name: "Subscribe" }).click()
      await page.waitForURL(`${starter.origin}/f/${optIn.id}?submitted=1`)
      return page.locator("[role=status]").textContent()
    }
    const almostDone = "Almost done: we sent you an email. Follow the link in it to confirm your subscription."
    expect(await submit("pat@example.com")).toBe(almostDone)
    await checkPage(page, "form-hosted-almost-done")
    expect(await contactOf("pat@example.com")).toMatchObject({ status: "PENDING", source: "FORM" })
    const [mail] = await starter.mailTo("pat@example.com")
    expect(linkIn(mail!, "c").startsWith(`${starter.origin}/c/`)).toBe(true)
    // An address already subscribed gets the very same page: nothing tells it from a new one.
    expect(await submit("grace@example.com")).toBe(almostDone)
    expect(await contactOf("grace@example.com")).toMatchObject({ status: "ACTIVE" })
    await page.close()
  })
})
