/** The confirmation page in a real browser on the starter: a double opt-in confirmed from the link of the mail in the
 *  dev outbox (GET /admin/outbox). Headless Chromium (its User-Agent says HeadlessChrome, as a mail scanner's does)
 *  opening the link, or a HEAD of it, confirms nothing and sees the button, which confirms; a person's click on the
 *  link in a browser with an ordinary User-Agent confirms in one step. The used link, an expired link with its "Send me
 *  a new link" button, a link replaced by a newer mail, and links that are not valid. axe-core and the screenshots on
 *  every state. */
import type { Browser } from "playwright-core"
import { beforeAll, expect, it } from "vitest"
import { checkPage, describeBrowser, linkIn, type Starter, useBrowserStarter } from "./harness.js"

/** An ordinary desktop Chrome's User-Agent: what a person's browser says. */
const desktopUserAgent =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

describeBrowser("the confirmation page in Chromium", () => {
  let browser: Browser
  let starter: Starter
  let key: string
  let accountId: string
  let listId: string

  const statusOf = async (email: string) =>
    (await starter.api("GET", `/v1/subscriptions/${encodeURIComponent(email)}`, key)).body.data.contact.status as string
  /** Subscribes `email` with double opt-in and answers the confirmation link of the mail in the dev outbox. */
  const subscribePending = async (email: string) => {
    const subscribed = await starter.api("POST", "/v1/subscriptions", key, { email, doubleOptIn: true, listIds: [listId] })
    expect(subscribed.body.data).toMatchObject({ status: "PENDING", requiresConfirmation: true, confirmationSent: true })
    const [mail] = await starter.mailTo(email)
    return linkIn(mail!, "c")
  }

  const session = useBrowserStarter({ name: "Acme <News>", plan: "pro" })

  beforeAll(async () => {
    ({ browser, starter, key, accountId } = session)
    listId = (await starter.api("POST", "/v1/contacts/lists", key, { name: "Weekly digest" })).body.data.id
  }, 120_000)

  it("headless Chromium opening the link confirms nothing and sees the button, which confirms; the used link says so", async () => {
    const email = "ada@example.com"
    const link = await subscribePending(email)
    expect(new URL(link).origin).toBe(starter.origin)

    // A link scanner: a HEAD and a GET of the link, as a mail gateway makes them, and a headless browser opening it
    // with its own User-Agent, confirm nothing.
    const page = await browser.newPage()
    expect(await page.evaluate(() => navigator.userAgent)).toContain("HeadlessChrome")
    expect((await page.request.head(link)).status()).toBe(200)
    expect((await page.request.get(link)).status()).toBe(200)
    const response = await page.goto(link)
    expect(response?.status()).toBe(200)
    expect(await page.locator("h1").textContent()).toBe("Confirm your subscription")
    expect(await page.locator("main").textContent()).toContain(email)
    await checkPage(page, "confirm")
    await page.reload()
    expect(await statusOf(email)).toBe("PENDING")
    expect(await starter.events(accountId, "contact.confirmed")).toEqual([])

    await Promise.all([page.waitForLoadState(), page.getByRole("button", { name: "Confirm subscription" }).click()])
    await expect.poll(() => page.locator("h1").textContent()).toBe("Subscription confirmed")
    expect(await statusOf(email)).toBe("ACTIVE")
    const confirmed = await starter.events(accountId, "contact.confirmed")
    expect(confirmed.map((event) => event.details)).toEqual([expect.objectContaining({ email, listIds: [listId], formId: null })])
    await checkPage(page, "confirm-confirmed")

    // Opened again, the link says it was used, and confirms nothing more.
    await page.goto(link)
    expect(await page.locator("h1").textContent()).toBe("Already confirmed")
    await checkPage(page, "confirm-already")
    expect(await starter.events(accountId, "contact.confirmed")).toHaveLength(1)
    await page.close()
  })

  it("a person's click on the link, in a browser with an ordinary User-Agent, confirms in one step with no second button", async () => {
    const email = "katherine@example.com"
    const link = await subscribePending(email)
    const context = await browser.newContext({ userAgent: desktopUserAgent })
    const page = await context.newPage()
    // The mail as a webmail shows it: a page with the link, which the person clicks.
    await page.setContent(`<main><p>Confirm your subscription:</p><p><a href="${link}">Yes, subscribe me</a></p></main>`)
    await Promise.all([page.waitForURL(link), page.getByRole("link", { name: "Yes, subscribe me" }).click()])
    expect(await page.locator("h1").textContent()).toBe("Subscription confirmed")
    expect(await page.locator("main").textContent()).toContain(email)
    expect(await page.getByRole("button").count()).toBe(0)
    await checkPage(page, "confirm-one-step")
    expect(await statusOf(email)).toBe("ACTIVE")
    const confirmedOf = async () =>
      (await starter.events(accountId, "contact.confirmed")).map((event) => event.details).filter((details) => details.email === email)
    expect(await confirmedOf()).toEqual([expect.objectContaining({ email, listIds: [listId], formId: null })])

    // Reloaded, the page says the link was used, and confirms nothing more.
    await page.reload()
    expect(await page.locator("h1").textContent()).toBe("Already confirmed")
    expect(await confirmedOf()).toHaveLength(1)
    await context.close()
  })

  it("a person's click on a link with a redirectUrl confirms and sends the browser to that page", async () => {
    const email = "mary@example.com"
    const subscribed = await starter.api("POST", "/v1/subscriptions", key, {
      email, doubleOptIn: true, redirectUrl: "https://welcome.example.com/thanks",
    })
    expect(subscribed.body.data).toMatchObject({ status: "PENDING", confirmationSent: true })
    const link = linkIn((await starter.mailTo(email))[0]!, "c")
    const context = await browser.newContext({ userAgent: desktopUserAgent })
    const page = await context.newPage()
    await page.setContent(`<a href="${link}">Yes, subscribe me</a>`)
    // The host's page is not reachable from here (redirectUrl is https only): the browser's attempt to open it shows
    // that it was sent there.
    const [followed, redirected] = await Promise.all([
      page.waitForResponse(link),
      page.waitForEvent("request", (request) => request.url() === "https://welcome.example.com/thanks"),
      page.getByRole("link", { name: "Yes, subscribe me" }).click(),
    ])
    expect(followed.status()).toBe(303)
    expect(redirected.isNavigationRequest()).toBe(true)
    expect(await statusOf(email)).toBe("ACTIVE")
    await context.close()
  })

  it("an expired link confirms nothing and its button sends a new link; the older link then says it was replaced", async () => {
    const email = "grace@example.com"
    const link = await subscribePending(email)
    // The same confirmation's link, signed seven days and more ago.
    const claims = JSON.parse(Buffer.from(new URL(link).pathname.split("/c/")[1]!.split(".")[0]!, "base64url").toString())
    const expired = await starter.token("confirm", { accountId, recipient: email, nonce: claims.n }, true)

    const page = await browser.newPage()
    const response = await page.goto(`${starter.origin}/c/${expired}`)
    expect(response?.status()).toBe(410)
    expect(await page.locator("h1").textContent()).toBe("This link has expired")
    await checkPage(page, "confirm-expired")
    expect(await statusOf(email)).toBe("PENDING")

    await Promise.all([page.waitForURL(/\/resend$/), page.getByRole("button", { name: "Send me a new link" }).click()])
    expect(await page.locator("h1").textContent()).toBe("Check your inbox")
    await checkPage(page, "confirm-new-link")
    const [newest] = await starter.mailTo(email, 2)
    const fresh = linkIn(newest!, "c")
    expect(fresh).not.toBe(link)

    const replaced = await page.goto(link)
    expect(replaced?.status()).toBe(410)
    expect(await page.locator("h1").textContent()).toBe("This link was replaced")
    await checkPage(page, "confirm-replaced")
    await Promise.all([page.waitForURL(/\/resend$/), page.getByRole("button", { name: "Send me a new link" }).click()])
    expect(await statusOf(email)).toBe("PENDING")

    const [latest] = await starter.mailTo(email, 3)
    await page.goto(linkIn(latest!, "c"))
    await page.getByRole("button", { name: "Confirm subscription" }).click()
    await expect.poll(() => page.locator("h1").textContent()).toBe("Subscription confirmed")
    expect(await statusOf(email)).toBe("ACTIVE")
    await page.close()
  })

  it("answers a forged, truncated or wrongly-purposed link with the invalid-link page, and changes nothing", async () => {
    const email = "lin@example.com"
    const link = await subscribePending(email)
    const unsubscribeToken = await starter.token("unsubscribe", { accountId, recipient: email })
    const [payload] = link.split("/c/")[1]!.split(".")
    const before = await starter.events(accountId)
    const page = await browser.newPage()
    for (const bad of [`${starter.origin}/c/${payload}.${"C".repeat(43)}`, link.slice(0, -4), `${starter.origin}/c/${unsubscribeToken}`]) {
      const response = await page.goto(bad)
      expect(response?.status()).toBe(400)
      expect(await page.locator("h1").textContent()).toBe("This link is not valid")
      // The page still has its button-less shape: nothing to press.
      expect(await page.getByRole("button").count()).toBe(0)
    }
    await checkPage(page, "confirm-invalid")
    expect(await statusOf(email)).toBe("PENDING")
    expect(await starter.events(accountId)).toEqual(before)
    await page.close()
  })
})
