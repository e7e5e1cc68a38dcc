/** The preference centre in a real browser on the starter: published topics in display order with their public
 *  labels, the recipient's lists, saving changes and unsubscribing from everything with method preference_center in
 *  the event outbox, a forged link, and axe-core on each page. */
import { Store, Tokens } from "@mailroom/core"
import { Effect } from "effect"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, expect, it } from "vitest"
import { describeBrowser, fitsPhoneWidth, launchBrowser, screenshots, seriousViolations, type Starter, startStarter } from "./harness.js"

describeBrowser("the preference centre in Chromium", () => {
  let browser: Browser
  let starter: Starter
  let key: string
  let accountId: string
  let url: string
  const email = "lin@example.com"
  const topicIds: Record<string, string> = {}
  let listId: string

  const run = <A>(effect: Effect.Effect<A, unknown, any>) =>
    Effect.runPromise(effect.pipe(Effect.provide(starter.mailroom.layer)) as Effect.Effect<A>)
  const events = () => run(Effect.flatMap(Store, (store) => store.events.list(accountId as never)))

  const checkPage = async (page: Page, name: string) => {
    expect(await seriousViolations(page)).toEqual([])
    expect(await fitsPhoneWidth(page)).toBe(true)
    await screenshots(page, name)
  }

  beforeAll(async () => {
    browser = await launchBrowser()
    starter = await startStarter()
    const account = await starter.api("POST", "/admin/accounts", starter.adminToken, { plan: "pro" })
    key = account.body.apiKey
    accountId = account.body.id
    for (const [name, fields] of [
      ["offers", { publicLabel: "Offers & discounts", publicDescription: "A few times a month.", isPublishedOnUnsub: true, sortOrder: 2 }],
      ["news", { publicLabel: "Product news", publicDescription: "Once a month, what is new.", isPublishedOnUnsub: true, sortOrder: 1 }],
      ["internal", { publicLabel: "Internal", isPublishedOnUnsub: false, sortOrder: 0 }],
    ] as const) {
      topicIds[name] = (await starter.api("POST", "/v1/suppression-groups", key, { name, ...fields })).body.data.id
    }
    listId = (await starter.api("POST", "/v1/contacts/lists", key, { name: "Weekly digest" })).body.data.id
    const form = (await starter.api("POST", "/v1/forms", key, { name: "Signup", listIds: [listId] })).body.data
    const submitted = await fetch(form.submitUrl, {
      method: "POST", headers: { origin: starter.origin, accept: "application/json", "content-type": "application/json" },
      body: JSON.stringify({ email }),
    })
    expect(submitted.status).toBe(200)
    url = await run(Effect.flatMap(Tokens, (tokens) => tokens.preferencesUrl({ accountId, recipient: email })))
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await starter?.close()
  })

  it("shows published topics in display order with their public labels, and the recipient's lists; opening it changes nothing", async () => {
    const before = (await events()).length
    const page = await browser.newPage()
    const response = await page.goto(url)
    expect(response?.status()).toBe(200)
    expect(await page.locator("fieldset").first().locator("label").allTextContents()).toEqual(["Product news", "Offers & discounts"])
    expect(await page.getByText("Once a month, what is new.").count()).toBe(1)
    expect(await page.getByText("Internal").count()).toBe(0)
    expect(await page.getByLabel("Weekly digest").isChecked()).toBe(true)
    expect(await page.getByLabel("Product news").isChecked()).toBe(true)
    await checkPage(page, "preferences")
    await page.reload()
    expect((await events()).length).toBe(before)
    await page.close()
  })

  it("saves a topic change and a list change with method preference_center", async () => {
    const page = await browser.newPage()
    await page.goto(url)
    await page.getByLabel("Offers & discounts").uncheck()
    await page.getByLabel("Weekly digest").uncheck()
    await page.getByRole("button", { name: "Save preferences" }).click()
    await page.waitForURL(/\?saved=1$/)
    expect(await page.locator("[role=status]").first().textContent()).toBe("Your preferences are saved.")
    expect(await page.getByLabel("Offers & discounts").isChecked()).toBe(false)
    expect(await page.getByLabel("Product news").isChecked()).toBe(true)
    await checkPage(page, "preferences-saved")
    const unsubscribed = (await events()).filter((event) => event.type === "contact.unsubscribed")
    expect(unsubscribed.map((event) => event.details)).toEqual(expect.arrayContaining([
      expect.objectContaining({ scope: "topic", topicId: topicIds.offers, method: "preference_center" }),
      expect.objectContaining({ scope: "list", listId, method: "preference_center" }),
    ]))
    // Ticking the topic again opts back in: contact.subscribed from the preference centre.
    await page.getByLabel("Offers & discounts").check()
    await page.getByRole("button", { name: "Save preferences" }).click()
    await page.waitForURL(/\?saved=1$/)
    const subscribed = (await events()).filter((event) => event.type === "contact.subscribed")
    expect(subscribed.at(-1)?.details).toMatchObject({ source: "PREFERENCE_CENTER" })
    await page.close()
  })

  it("unsubscribes from everything only when the button is pressed", async () => {
    const page = await browser.newPage()
    await page.goto(url)
    expect((await starter.api("GET", `/v1/contacts?search=${email}`, key)).body.data[0].status).toBe("ACTIVE")
    await page.getByRole("button", { name: "Unsubscribe from everything" }).click()
    await page.waitForURL(/\?saved=all$/)
    expect((await starter.api("GET", `/v1/contacts?search=${email}`, key)).body.data[0].status).toBe("UNSUBSCRIBED")
    const last = (await events()).filter((event) => event.type === "contact.unsubscribed").at(-1)
    expect(last?.details).toMatchObject({ scope: "all", method: "preference_center", contactEmail: email })
    await checkPage(page, "preferences-unsubscribed")
    await page.close()
  })

  it("answers a forged or truncated link with a page that tells nothing", async () => {
    const page = await browser.newPage()
    for (const bad of [`${url}x`, url.slice(0, -5), `${starter.origin}/p/forged`]) {
      const response = await page.goto(bad)
      expect(response?.status()).toBe(400)
      expect(await page.locator("h1").textContent()).toBe("This link is not valid")
    }
    await checkPage(page, "preferences-invalid")
    await page.close()
  })
})
