/** The preference centre in a real browser on the starter: published topics in display order with their public
 *  labels, the recipient's lists, saving changes and unsubscribing from everything with method preference_center in
 *  the event outbox; a post from another site refused (403), a list that cannot be joined after unsubscribing from
 *  everything (409), an expired or forged link; each changes nothing. axe-core and the screenshots on each page. */
import { Tokens } from "@mailroom/core"
import { Effect } from "effect"
import { Hono } from "hono"
import type { Browser } from "playwright-core"
import { beforeAll, expect, it } from "vitest"
import { checkPage, describeBrowser, expectInvalidLinkPage, serveApp, type Starter, useBrowserStarter } from "./harness.js"

describeBrowser("the preference centre in Chromium", () => {
  let browser: Browser
  let starter: Starter
  let key: string
  let accountId: string
  let url: string
  const email = "lin@example.com"
  const topicIds: Record<string, string> = {}
  let listId: string

  const events = () => starter.events(accountId)

  const session = useBrowserStarter({ plan: "pro" })

  beforeAll(async () => {
    ({ browser, starter, key, accountId } = session)
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
    url = await starter.run(Effect.flatMap(Tokens, (tokens) => tokens.preferencesUrl({ accountId, recipient: email })))
  }, 120_000)

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

  it("refuses a post from another site's page with a 403 page, and changes nothing", async () => {
    // Another origin (127.0.0.1 rather than localhost) with a form that posts to the recipient's preference centre.
    const site = await serveApp(new Hono().get("/", (c) => c.html(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Prize</title></head><body><main><h1>You won</h1><form method="post" action="${url}">
<input type="hidden" name="action" value="unsubscribe_all"><button>Claim</button></form></main></body></html>`)))
    const before = await events()
    const page = await browser.newPage()
    try {
      await page.goto(site.origin)
      const answer = page.waitForResponse((response) => response.url() === url)
      await page.getByRole("button", { name: "Claim" }).click()
      expect((await answer).status()).toBe(403)
      await page.waitForLoadState()
      expect(await page.locator("h1").textContent()).toBe("Email preferences")
      expect(await page.locator("[role=alert]").textContent()).toBe("Change your preferences on this page itself.")
      await checkPage(page, "preferences-cross-site")
      expect((await starter.api("GET", `/v1/contacts?search=${email}`, key)).body.data[0].status).toBe("ACTIVE")
      expect(await events()).toEqual(before)
    } finally {
      await page.close()
      await site.close()
    }
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

  it("refuses to join a list after unsubscribing from everything: the 409 page says why, and nothing changes", async () => {
    const before = await events()
    const page = await browser.newPage()
    await page.goto(url)
    expect(await page.getByLabel("Weekly digest").isChecked()).toBe(false)
    await page.getByLabel("Weekly digest").check()
    const answer = page.waitForResponse((response) => response.url() === url && response.request().method() === "POST")
    await page.getByRole("button", { name: "Save preferences" }).click()
    expect((await answer).status()).toBe(409)
    await page.waitForLoadState()
    expect(await page.locator("[role=alert]").textContent())
      .toBe("You unsubscribed from everything, so lists cannot be joined here. Subscribe again through a signup form.")
    expect(await page.getByLabel("Weekly digest").isChecked()).toBe(false)
    await checkPage(page, "preferences-refused")
    expect((await starter.api("GET", `/v1/contacts?search=${email}`, key)).body.data[0].status).toBe("UNSUBSCRIBED")
    expect(await events()).toEqual(before)
    await page.close()
  })

  it("answers an expired, forged or truncated link with a page that tells nothing, and changes nothing", async () => {
    const before = await events()
    const page = await browser.newPage()
    const links = {
      // The recipient's own link, signed more than a year ago.
      expired: `${starter.origin}/p/${await starter.token("preferences", { accountId, recipient: email }, true)}`,
      invalid: `${url}x`,
      truncated: url.slice(0, -5),
      forged: `${starter.origin}/p/forged`,
    }
    for (const [name, bad] of Object.entries(links)) {
      await expectInvalidLinkPage(page, bad, {
        name: `preferences-${name}`, where: "[role=alert]", says: "The link may have expired", hidden: email,
      })
      // What the page's buttons would post, made anyway: refused the same way.
      const posted = await page.request.post(bad, { form: { action: "unsubscribe_all" }, headers: { origin: starter.origin } })
      expect(posted.status()).toBe(400)
    }
    expect(await events()).toEqual(before)
    await page.close()
  })
})
