/** Open and click tracking in a real browser on the starter (docs/tracking.md): Chromium opens a tracked marketing
 *  mail from the dev outbox with an ordinary user agent (exactly one email.opened), then clicks its link (email.clicked,
 *  landing on the original URL). The same kind of mail opened with Apple Mail Privacy Protection's user agent, through
 *  Gmail's image proxy, and by a headless scanner that follows every link, gets the verdicts the rules give. */
import { Store } from "@mailroom/core"
import { verifyWebhook } from "@mailroom/mailroom"
import { startWebhookReceiver, type WebhookReceiver } from "@mailroom/testing"
import { Effect } from "effect"
import { Hono } from "hono"
import type { Browser } from "playwright-core"
import { setTimeout as sleep } from "node:timers/promises"
import { afterAll, beforeAll, expect, it } from "vitest"
import { describeBrowser, type Host, serveApp, type Starter, useBrowserStarter } from "./harness.js"

const desktopChrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
const appleMpp = "Mozilla/5.0"
const gmailProxy = "Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)"

describeBrowser("open and click tracking in Chromium", () => {
  let browser: Browser
  let starter: Starter
  let key: string
  let accountId: string
  let shop: Host
  let receiver: WebhookReceiver
  let secret: string

  // The webhook receiver listens on 127.0.0.1: private addresses are allowed for this starter.
  const session = useBrowserStarter({ name: "Acme", plan: "pro" }, { unsafeAllowPrivateUrls: true })

  beforeAll(async () => {
    ({ browser, starter, key, accountId } = session)
    shop = await serveApp(new Hono().get("/sale", (c) => c.html("<!doctype html><title>Sale</title><h1>Spring sale</h1>")))
    receiver = await startWebhookReceiver()
    const created = await starter.api("POST", "/v1/webhooks", key, {
      url: `${receiver.origin}/hooks`, events: ["email.opened", "email.clicked"],
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    secret = created.body.secret
  }, 120_000)
  afterAll(async () => {
    await shop?.close()
    await receiver?.close()
  })

  /** Sends a tracked marketing mail with one link to the shop and answers it from the dev outbox, with its id. */
  const mailFor = async (email: string) => {
    const sent = await starter.api("POST", "/v1/emails/send", key, {
      from: { email: "news@acme.example", name: "Acme" },
      to: [{ email }],
      stream: "marketing",
      content: { subject: "Spring sale", html: `<html><body><h1>Sale</h1><p><a id="sale" href="${shop.origin}/sale">Shop now</a></p></body></html>` },
    })
    expect(sent.status, JSON.stringify(sent.body)).toBe(200)
    const [mail] = await starter.mailTo(email)
    return { html: mail!.html!, messageId: sent.body.data.id as string }
  }
  /** The account's events of `type` for `email`, once the hits were written (every second). */
  const eventsFor = async (type: string, email: string, expected: number) => {
    for (let i = 0; i < 40; i++) {
      const found = (await starter.events(accountId, type)).filter((event) => event.details["email"] === email)
      if (found.length >= expected) {
        await sleep(1500)
        return (await starter.events(accountId, type)).filter((event) => event.details["email"] === email)
      }
      await sleep(100)
    }
    return (await starter.events(accountId, type)).filter((event) => event.details["email"] === email)
  }
  const verdicts = async (messageId: string, count: number) => {
    for (let i = 0; i < 40; i++) {
      const hits = await starter.run(Effect.flatMap(Store, (store) => store.tracking.hits(accountId as never, messageId)))
      if (hits.length >= count) return hits.map((hit) => `${hit.kind}:${hit.classification}:${hit.signal}`)
      await sleep(100)
    }
    throw new Error(`fewer than ${count} hits of ${messageId} were recorded`)
  }
  /** Opens the mail's html in a page of a context with `userAgent`, as a mail client shows it (images load). */
  const openMail = async (html: string, userAgent: string) => {
    const context = await browser.newContext({ userAgent })
    const page = await context.newPage()
    const pixel = page.waitForResponse((response) => response.url().includes("/o/"))
    await page.setContent(html)
    expect((await pixel).status()).toBe(200)
    return { page, context }
  }

  it("a person's open fires email.opened once; the click lands on the original URL and fires email.clicked", async () => {
    const email = "ada@example.com"
    const mail = await mailFor(email)
    const { page, context } = await openMail(mail.html, desktopChrome)
    // Opened again in another window: still one email.opened.
    const again = await context.newPage()
    const pixel = again.waitForResponse((response) => response.url().includes("/o/"))
    await again.setContent(mail.html)
    expect((await pixel).status()).toBe(200)
    const opened = await eventsFor("email.opened", email, 1)
    expect(opened).toHaveLength(1)
    expect(opened[0]!.details).toEqual({ email, trackingId: mail.messageId, userAgent: desktopChrome, engagementType: "HUMAN" })

    await Promise.all([page.waitForURL(`${shop.origin}/sale`), page.click("#sale")])
    expect(page.url()).toBe(`${shop.origin}/sale`)
    expect(await page.locator("h1").textContent()).toBe("Spring sale")
    const clicked = await eventsFor("email.clicked", email, 1)
    expect(clicked.map((event) => event.details)).toEqual([
      { email, trackingId: mail.messageId, url: `${shop.origin}/sale`, userAgent: desktopChrome, engagementType: "HUMAN" },
    ])
    expect(await verdicts(mail.messageId, 3)).toEqual(["open:human:person", "open:human:person", "click:human:person"])
    await context.close()

    // The webhook receiver gets both, signed with the endpoint's secret, with the spec's details.
    // Delivery order between the two events is not guaranteed: sorted by type (clicked, then opened).
    const received = (await receiver.waitFor(2, 30_000)).map((request) => verifyWebhook(request.body, request.headers, { secret }))
      .sort((a, b) => a.eventType.localeCompare(b.eventType))
    expect(received.map((delivery) => [delivery.eventType, delivery.recipient, (delivery.payload["details"] as Record<string, unknown>)["engagementType"]]))
      .toEqual([["email.clicked", email, "HUMAN"], ["email.opened", email, "HUMAN"]])
    expect(received[0]!.payload["details"]).toEqual({
      email, trackingId: mail.messageId, url: `${shop.origin}/sale`, userAgent: desktopChrome, engagementType: "HUMAN",
    })
  }, 60_000)

  it("Apple MPP's prefetch is a machine's open and fires nothing; Gmail's image proxy is a person's", async () => {
    const apple = await mailFor("apple@example.com")
    await (await openMail(apple.html, appleMpp)).context.close()
    const gmail = await mailFor("gmail@example.com")
    await (await openMail(gmail.html, gmailProxy)).context.close()
    expect(await verdicts(apple.messageId, 1)).toEqual(["open:machine:apple_mpp_user_agent"])
    expect(await verdicts(gmail.messageId, 1)).toEqual(["open:proxy_human:image_proxy"])
    expect(await eventsFor("email.opened", "gmail@example.com", 1)).toHaveLength(1)
    expect(await eventsFor("email.opened", "apple@example.com", 0)).toEqual([])
  }, 60_000)

  it("a headless scanner that follows every link, the hidden one too, is a bot: no event", async () => {
    const email = "scanned@example.com"
    const mail = await mailFor(email)
    // Chromium's own headless user agent, as a scanner runs it.
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.setContent(mail.html)
    const links = await page.locator("a").evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).href))
    expect(links).toHaveLength(2)
    for (const link of links) await page.request.get(link, { maxRedirects: 0 })
    await context.close()
    const seen = await verdicts(mail.messageId, 3)
    expect(seen.every((verdict) => verdict.includes(":bot:")), seen.join()).toBe(true)
    expect(await eventsFor("email.clicked", email, 0)).toEqual([])
    expect(await eventsFor("email.opened", email, 0)).toEqual([])
  }, 60_000)
})
