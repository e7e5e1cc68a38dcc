/** The unsubscribe page in a real browser on the starter, reached from the links of a marketing mail in the dev outbox
 *  (its List-Unsubscribe header and `{{unsubscribe_url}}`): a GET of the link, a HEAD, and the one-click GET (a 303 to
 *  the page) leave the address subscribed; pressing the button unsubscribes it, with contact.unsubscribed in the event
 *  outbox; a topic's or a list's link names it and leaves only it; the page offers the preference centre; an expired,
 *  forged or truncated link shows the invalid-link page and changes nothing. axe-core and the screenshots on every state. */
import type { Browser } from "playwright-core"
import { beforeAll, expect, it } from "vitest"
import { checkPage, describeBrowser, expectInvalidLinkPage, linkIn, type OutboxMail, type Starter, useBrowserStarter } from "./harness.js"

describeBrowser("the unsubscribe page in Chromium", () => {
  let browser: Browser
  let starter: Starter
  let key: string
  let accountId: string
  let listId: string
  let topicId: string

  const contactOf = async (email: string) =>
    (await starter.api("GET", `/v1/contacts?search=${encodeURIComponent(email)}`, key)).body.data[0] as { status: string }
  const unsubscribed = async () => (await starter.events(accountId, "contact.unsubscribed")).map((event) => event.details)

  /** Subscribes `email` to the list, sends it a marketing mail (under `topic` when given) and answers the mail as the
   *  dev outbox keeps it. */
  const mailFor = async (email: string, topic?: string): Promise<OutboxMail> => {
    expect((await starter.api("POST", "/v1/subscriptions", key, { email, listIds: [listId] })).status).toBe(201)
    const sent = await starter.api("POST", "/v1/emails/send", key, {
      from: { email: "news@acme.example", name: "Acme" },
      to: [{ email }],
      content: {
        subject: "Spring news",
        html: "<p>News.</p><p><a href=\"{{unsubscribe_url}}\">Unsubscribe</a> · <a href=\"{{preferences_url}}\">Preferences</a></p>",
      },
      ...(topic === undefined ? { stream: "marketing" } : { suppressionGroupId: topic }),
    })
    expect(sent.status, JSON.stringify(sent.body)).toBe(200)
    const [mail] = await starter.mailTo(email)
    return mail!
  }
  /** The http(s) unsubscribe URL of the mail's List-Unsubscribe header, which must be the `{{unsubscribe_url}}` too. */
  const unsubscribeLink = (mail: OutboxMail) => {
    const header = /<(https?:[^>]+)>/.exec(mail.headers["list-unsubscribe"] ?? "")?.[1]
    expect(header, JSON.stringify(mail.headers)).toBeDefined()
    expect(linkIn(mail, "u")).toBe(header)
    return header!
  }

  const session = useBrowserStarter({ name: "Acme <News>", plan: "pro" })

  beforeAll(async () => {
    ({ browser, starter, key, accountId } = session)
    listId = (await starter.api("POST", "/v1/contacts/lists", key, { name: "Weekly digest" })).body.data.id
    topicId = (await starter.api("POST", "/v1/suppression-groups", key, {
      name: "offers", publicLabel: "Offers & discounts", publicDescription: "A few times a month.", isPublishedOnUnsub: true,
    })).body.data.id
  }, 120_000)

  it("a GET, a HEAD and the one-click GET leave the address subscribed; the button unsubscribes it", async () => {
    const email = "ada@example.com"
    const link = unsubscribeLink(await mailFor(email))
    expect(new URL(link).origin).toBe(starter.origin)
    const token = new URL(link).pathname.split("/u/")[1]!

    // A link scanner fetches every link of the mail; the one-click GET is what a browser makes of the API's link.
    const page = await browser.newPage()
    expect((await page.request.head(link)).status()).toBe(200)
    expect((await page.request.get(link)).status()).toBe(200)
    const oneClick = `${starter.origin}/v1/unsubscribe/one-click?token=${encodeURIComponent(token)}`
    const redirect = await page.request.get(oneClick, { maxRedirects: 0 })
    expect(redirect.status()).toBe(303)
    expect(redirect.headers()["location"]).toBe(link)
    const response = await page.goto(oneClick)
    expect(response?.status()).toBe(200)
    expect(page.url()).toBe(link)
    await page.goto(link)
    expect(await page.locator("h1").textContent()).toBe("Unsubscribe")
    expect(await page.locator("main p").first().textContent()).toBe(`Stop sending marketing mail from Acme <News> to ${email}?`)
    await checkPage(page, "unsubscribe")
    expect((await contactOf(email)).status).toBe("ACTIVE")
    expect(await unsubscribed()).toEqual([])

    await Promise.all([page.waitForLoadState(), page.getByRole("button", { name: "Unsubscribe" }).click()])
    await expect.poll(() => page.locator("h1").textContent()).toBe("You are unsubscribed")
    expect((await contactOf(email)).status).toBe("UNSUBSCRIBED")
    expect(await unsubscribed()).toEqual([expect.objectContaining({ contactEmail: email, scope: "all", method: "one_click" })])
    await checkPage(page, "unsubscribe-done")

    // Pressed again from the page the browser goes back to: nothing more changes.
    await page.goto(link)
    await page.getByRole("button", { name: "Unsubscribe" }).click()
    await expect.poll(() => page.locator("h1").textContent()).toBe("You were already unsubscribed")
    expect(await unsubscribed()).toHaveLength(1)
    await page.close()
  })

  it("a topic's link names the topic, leaves only it, and offers the preference centre", async () => {
    const email = "bob@example.com"
    const link = unsubscribeLink(await mailFor(email, topicId))
    const page = await browser.newPage()
    await page.goto(link)
    expect(await page.locator("main p").first().textContent()).toBe(`Stop sending Offers & discounts to ${email}?`)
    expect(await page.getByText("A few times a month.").count()).toBe(1)
    await checkPage(page, "unsubscribe-topic")
    await page.getByRole("button", { name: "Unsubscribe" }).click()
    await expect.poll(() => page.locator("h1").textContent()).toBe("You are unsubscribed")
    expect((await unsubscribed()).at(-1)).toMatchObject({ contactEmail: email, scope: "topic", topicId, method: "one_click" })
    expect((await contactOf(email)).status).toBe("ACTIVE")

    // The preference centre, one click away, shows the topic left and the list kept.
    await Promise.all([page.waitForURL(/\/p\//), page.getByRole("link", { name: "Manage your email preferences" }).click()])
    expect(await page.locator("h1").textContent()).toBe("Email preferences")
    expect(await page.getByLabel("Offers & discounts").isChecked()).toBe(false)
    expect(await page.getByLabel("Weekly digest").isChecked()).toBe(true)
    await page.close()
  })

  it("a list's link names the list, and its button leaves only that list", async () => {
    const email = "cy@example.com"
    const otherListId = (await starter.api("POST", "/v1/contacts/lists", key, { name: "Product updates" })).body.data.id
    expect((await starter.api("POST", "/v1/subscriptions", key, { email, listIds: [listId, otherListId] })).status).toBe(201)
    const link = `${starter.origin}/u/${await starter.token("unsubscribe", { accountId, recipient: email, listId })}`
    const memberships = async () => Object.fromEntries(
      ((await starter.api("GET", `/v1/subscriptions/${encodeURIComponent(email)}`, key)).body.data.lists as Array<{ id: string; subscribed: boolean }>)
        .map((list) => [list.id, list.subscribed]))

    const page = await browser.newPage()
    await page.goto(link)
    expect(await page.locator("main p").first().textContent()).toBe(`Stop sending the list Weekly digest to ${email}?`)
    await checkPage(page, "unsubscribe-list")
    expect(await memberships()).toEqual({ [listId]: true, [otherListId]: true })

    await page.getByRole("button", { name: "Unsubscribe" }).click()
    await expect.poll(() => page.locator("h1").textContent()).toBe("You are unsubscribed")
    expect(await memberships()).toEqual({ [listId]: false, [otherListId]: true })
    expect((await contactOf(email)).status).toBe("ACTIVE")
    expect((await unsubscribed()).filter((event) => event.contactEmail === email))
      .toEqual([expect.objectContaining({ scope: "list", listId, topicId: null, method: "one_click" })])
    await checkPage(page, "unsubscribe-list-done")
    await page.close()
  })

  it("answers an expired, forged or truncated link with the invalid-link page, and changes nothing", async () => {
    const email = "eve@example.com"
    const link = unsubscribeLink(await mailFor(email))
    const [payload] = new URL(link).pathname.split("/u/")[1]!.split(".")
    const before = await starter.events(accountId)
    const page = await browser.newPage()
    const links = {
      // The recipient's own link, signed more than a year ago.
      expired: `${starter.origin}/u/${await starter.token("unsubscribe", { accountId, recipient: email }, true)}`,
      invalid: `${starter.origin}/u/${payload}.${"B".repeat(43)}`,
      truncated: link.slice(0, -3),
    }
    for (const [name, bad] of Object.entries(links)) {
      await expectInvalidLinkPage(page, bad, {
        name: `unsubscribe-${name}`, where: "main", says: "Use the unsubscribe link of a recent mail", hidden: email,
      })
      // What the button would post, made anyway: refused the same way.
      expect((await page.request.post(bad, { form: { "List-Unsubscribe": "One-Click" } })).status()).toBe(400)
    }
    expect((await contactOf(email)).status).toBe("ACTIVE")
    expect(await starter.events(accountId)).toEqual(before)
    await page.close()
  })
})
