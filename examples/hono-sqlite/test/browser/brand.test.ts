/** The hosted pages of a branded account in a real browser on the starter: the unsubscribe page reached from a
 *  marketing mail shows the account's default brand (its name, its logo served by a real HTTP host, its colours and
 *  its own message), says that an unsubscribe stops marketing mail (not all mail), and has no serious axe findings;
 *  a brand with hard-to-read colours keeps the host's colours on the page, and the page stays free of serious
 *  findings. Screenshots go with the others. */
import { deflateSync } from "node:zlib"
import { Hono } from "hono"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, expect, it } from "vitest"
import { checkPage, describeBrowser, type Host, linkIn, serveApp, type Starter, useBrowserStarter } from "./harness.js"

/** A real PNG of `width` x `height` pixels, one colour: what the logo host serves. */
const png = (width: number, height: number, rgb: readonly [number, number, number]): Buffer => {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    return c >>> 0
  })
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff
    for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8)
    return (c ^ 0xffffffff) >>> 0
  }
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data])
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const sum = Buffer.alloc(4)
    sum.writeUInt32BE(crc(body))
    return Buffer.concat([length, body, sum])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8)
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())])
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)))
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", pixels), chunk("IEND", Buffer.alloc(0)),
  ])
}

describeBrowser("hosted pages in the account's brand, in Chromium", () => {
  let browser: Browser
  let starter: Starter
  let key: string
  let logoHost: Host
  let listId: string

  const session = useBrowserStarter({ name: "Acme Holdings", plan: "pro" })

  beforeAll(async () => {
    ({ browser, starter, key } = session)
    const logo = png(120, 40, [11, 92, 173])
    logoHost = await serveApp(new Hono().get("/logo.png", () => new Response(new Uint8Array(logo), { headers: { "content-type": "image/png" } })))
    listId = (await starter.api("POST", "/v1/contacts/lists", key, { name: "Weekly digest" })).body.data.id
  }, 120_000)
  afterAll(async () => { await logoHost?.close() })

  /** Subscribes `email`, sends it a marketing mail, and answers the unsubscribe link of the mail in the dev outbox. */
  const unsubscribeLinkFor = async (email: string) => {
    expect((await starter.api("POST", "/v1/subscriptions", key, { email, listIds: [listId] })).status).toBe(201)
    const sent = await starter.api("POST", "/v1/emails/send", key, {
      from: { email: "news@acme.example" }, to: [{ email }], stream: "marketing",
      content: { subject: "News", html: "<p>News.</p><p><a href=\"{{unsubscribe_url}}\">Unsubscribe</a></p>" },
    })
    expect(sent.status, JSON.stringify(sent.body)).toBe(200)
    const [mail] = await starter.mailTo(email)
    return linkIn(mail!, "u")
  }

  it("the unsubscribe page shows the default brand's name, logo, colours and message, promises only marketing mail, and passes axe", async () => {
    const created = await starter.api("POST", "/v1/designs/brands", key, {
      name: "Northwind Post",
      logo: { url: `${logoHost.origin}/logo.png`, alt: "Northwind Post", width: 120 },
      colors: { background: "#e8eef4", surface: "#fdfaf3", text: "#1a1a1a", mutedText: "#4a4a4a", primary: "#7a1f1f", primaryText: "#ffffff", link: "#7a1f1f" },
      fonts: { body: "Georgia, serif" },
      compliance: { company: "Northwind Post Ltd", address: "1 Harbour Road\nPortsmouth" },
      unsubscribePage: { message: "We only write when there is news worth reading." },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    expect(created.body.data.isDefault).toBe(true)
    const link = await unsubscribeLinkFor("reader@example.com")
    const page = await browser.newPage()
    await page.goto(link)
    expect(await page.locator("header.site .name").textContent()).toBe("Northwind Post")
    expect(await page.title()).toBe("Unsubscribe · Northwind Post")
    const logo = page.locator("header.site img")
    expect(await logo.getAttribute("src")).toBe(`${logoHost.origin}/logo.png`)
    await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(120)
    const main = await page.locator("main").textContent()
    expect(main).toContain("We only write when there is news worth reading.")
    expect(main).toContain("Stop sending marketing mail from Northwind Post to reader@example.com?")
    expect(main).toContain("receipts, security alerts and password resets, still arrives")
    expect(main).not.toContain("all mail")
    const colours = await page.evaluate(() => ({
      body: getComputedStyle(document.body).backgroundColor,
      main: getComputedStyle(document.querySelector("main")!).backgroundColor,
      button: getComputedStyle(document.querySelector("main button")!).backgroundColor,
      font: getComputedStyle(document.body).fontFamily,
    }))
    expect(colours).toEqual({ body: "rgb(232, 238, 244)", main: "rgb(253, 250, 243)", button: "rgb(122, 31, 31)", font: "Georgia, serif" })
    expect(await page.locator("footer.site").textContent()).toContain("Northwind Post Ltd, 1 Harbour Road, Portsmouth")
    await checkPage(page, "unsubscribe-branded")
    await page.close()
  })

  it("a default brand with hard-to-read colours keeps the host's colours on the page, which stays free of serious axe findings", async () => {
    const pale = await starter.api("POST", "/v1/designs/brands", key, {
      name: "Pale Co", colors: { text: "#cccccc", mutedText: "#dddddd", primary: "#ffff66", primaryText: "#ffffff" },
    })
    expect(pale.status).toBe(201)
    expect(pale.body.warnings.length).toBeGreaterThan(0)
    expect((await starter.api("POST", `/v1/designs/brands/${pale.body.data.id}/default`, key)).status).toBe(200)
    const page = await browser.newPage()
    await page.goto(await unsubscribeLinkFor("pale@example.com"))
    expect(await page.locator("header.site .name").textContent()).toBe("Pale Co")
    const text = await page.evaluate(() => getComputedStyle(document.body).color)
    expect(text).not.toBe("rgb(204, 204, 204)")
    await checkPage(page, "unsubscribe-pale-brand")
    await page.close()
  })
})
