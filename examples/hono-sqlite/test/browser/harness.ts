/** The real-browser harness of the hosted pages: Debian's Chromium driven by playwright-core, axe-core for
 *  accessibility, a screenshot of each page at desktop and phone width, and the starter's own composition (Mailroom at
 *  the root of a Hono app on Node, a SQLite file) listening on a free port.
 *
 *  Chromium is found at MAILROOM_CHROMIUM or /usr/bin/chromium. Without it the browser tests are skipped with one line
 *  saying how to enable them, except under CI=true (or MAILROOM_REQUIRE_BROWSER=1), where they fail instead. */
import { serve } from "@hono/node-server"
import { Store, Tokens, type TokenPurpose } from "@mailroom/core"
import { mountMailroom } from "@mailroom/hono"
import { Effect, TestClock, TestContext } from "effect"
import { Hono } from "hono"
import { createMailroom, type Mailroom, type MailroomConfig } from "@mailroom/mailroom"
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import type { Server } from "node:http"
import { once } from "node:events"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { fileURLToPath } from "node:url"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserAvailable, browserRequired, chromiumPath } from "./chromium.js"
import { freePort } from "../free-port.js"

const root = fileURLToPath(new URL("../../../../", import.meta.url))

export { browserAvailable, chromiumPath } from "./chromium.js"

/** Where screenshots go: git-ignored, kept after the run as test artifacts. */
export const screenshotDirectory = join(root, ".artifacts", "screenshots")

/** `describe` for browser tests: skipped when Chromium is missing (the global setup `announce.ts` says so once per
 *  run), failing when CI requires it. */
export const describeBrowser = (name: string, body: () => void) => {
  if (browserAvailable) return describe(name, body)
  if (browserRequired) {
    return describe(name, () => {
      it("needs Chromium", () => {
        throw new Error(`Chromium not found at ${chromiumPath}: install it (apt-get install chromium) or set MAILROOM_CHROMIUM`)
      })
    })
  }
  return describe.skip(name, body)
}

/** What a browser test file works with: Chromium, the starter, and an account made through the operator API. */
export interface BrowserSession {
  readonly browser: Browser
  readonly starter: Starter
  /** The account's API key. */
  readonly key: string
  readonly accountId: string
}

/** The start of every browser test file: before its first test, Chromium, the starter and an account made with
 *  `account` (the body of POST /admin/accounts); after its last, both closed. Call it first in a describeBrowser body:
 *  its fields are set by the time the file's own beforeAll runs. */
export const useBrowserStarter = (account: Record<string, unknown>, config: Partial<MailroomConfig> = {}): BrowserSession => {
  const session: { -readonly [K in keyof BrowserSession]?: BrowserSession[K] } = {}
  beforeAll(async () => {
    session.browser = await launchBrowser()
    const starter = await startStarter(config)
    session.starter = starter
    const created = await starter.api("POST", "/admin/accounts", starter.adminToken, account)
    if (created.status !== 201) throw new Error(`POST /admin/accounts answered ${created.status}: ${JSON.stringify(created.body)}`)
    session.key = created.body.apiKey
    session.accountId = created.body.id
  }, 120_000)
  afterAll(async () => {
    await session.browser?.close()
    await session.starter?.close()
  })
  return session as BrowserSession
}

export const launchBrowser = (): Promise<Browser> =>
  // The sandbox needs user namespaces, which containers and root shells often lack.
  chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox", "--disable-dev-shm-usage"] })

export interface Host {
  readonly origin: string
  readonly close: () => Promise<void>
}

const hostOf = async (server: Server, origin: string): Promise<Host> => {
  if (!server.listening) await once(server, "listening")
  return {
    origin,
    close: () => new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()))
      server.closeAllConnections()
    }),
  }
}

/** Serves a Hono app (a host's own site, say) on a free port of 127.0.0.1. */
export const serveApp = async (app: { fetch: (request: Request) => Response | Promise<Response> }): Promise<Host> => {
  const port = await freePort()
  return hostOf(serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }) as Server, `http://127.0.0.1:${port}`)
}

export interface Starter extends Host {
  readonly mailroom: Mailroom
  readonly adminToken: string
  /** Calls the operator or /v1 API as JSON; `token` is the admin token or an API key. */
  readonly api: (method: string, path: string, token: string, body?: unknown) => Promise<{ status: number; body: any }>
  /** Runs an effect on the starter's Mailroom (its Store, Tokens, services). */
  readonly run: <A>(effect: Effect.Effect<A, unknown, any>) => Promise<A>
  /** A signed token of `purpose` for `subject`, made now, or (`expired`) under a TestClock at the epoch, long past its
   *  lifetime. */
  readonly token: (purpose: TokenPurpose, subject: Parameters<Tokens["make"]>[1], expired?: boolean) => Promise<string>
  /** The account's events in the event outbox (what webhooks deliver), oldest first, of `type` when given. */
  readonly events: (accountId: string, type?: string) => Promise<ReadonlyArray<OutboxEvent>>
  /** The dev outbox's mail to `to` (GET /admin/outbox), newest first, once at least `count` messages are there:
   *  delivery runs in the background, so this waits for it (at most 15 s). */
  readonly mailTo: (to: string, count?: number) => Promise<ReadonlyArray<OutboxMail>>
}

export interface OutboxEvent {
  readonly type: string
  readonly details: Record<string, unknown>
}

export interface OutboxMail {
  readonly subject: string
  readonly html: string | null
  readonly text: string | null
  readonly headers: Record<string, string>
}

/** The first link in `mail` (html and text) whose path starts with `/<prefix>/`, as a full URL. */
export const linkIn = (mail: OutboxMail, prefix: string): string => {
  const link = new RegExp(`https?://[^\\s"'<>]+/${prefix}/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+`).exec(`${mail.html ?? ""} ${mail.text ?? ""}`)?.[0]
  if (link === undefined) throw new Error(`no /${prefix}/ link in ${JSON.stringify(mail)}`)
  return link
}

/** The starter's composition: Mailroom at the root of a Hono app, a fresh SQLite file, the dev outbox, APP_URL and
 *  TRACK_URL at its own origin (`localhost`, so that pages of 127.0.0.1 are another origin). */
export const startStarter = async (config: Partial<MailroomConfig> = {}): Promise<Starter> => {
  const directory = mkdtempSync(join(tmpdir(), "mailroom-browser-"))
  const port = await freePort()
  const origin = `http://localhost:${port}`
  const adminToken = "browser-test-admin-token"
  const mailroom = createMailroom({
    database: `sqlite:${join(directory, "mailroom.sqlite")}`, adminToken, appUrl: origin, logLevel: "warn", ...config,
  })
  await mailroom.ready()
  const app = new Hono()
  mountMailroom(app, "/", mailroom)
  const host = await hostOf(serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }) as Server, origin)
  const api: Starter["api"] = async (method, path, token, body) => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await response.text()
    return { status: response.status, body: text === "" ? null : JSON.parse(text) }
  }
  const run: Starter["run"] = (effect) => Effect.runPromise(effect.pipe(Effect.provide(mailroom.layer)) as Effect.Effect<never>)
  return {
    ...host,
    mailroom,
    adminToken,
    api,
    run,
    token: (purpose, subject, expired = false) =>
      run(Effect.gen(function* () {
        if (expired) yield* TestClock.setTime(0)
        return (yield* (yield* Tokens).make(purpose, subject)).token
      }).pipe(expired ? Effect.provide(TestContext.TestContext) : (effect) => effect)),
    events: async (accountId, type) => {
      const events = await run(Effect.flatMap(Store, (store) =>
        store.events.list(accountId as never, type === undefined ? undefined : { type: type as never })))
      return [...events].sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime())
        .map((event) => ({ type: event.type, details: event.details }))
    },
    mailTo: async (to, count = 1) => {
      for (let waited = 0; ; waited += 100) {
        const answer = await api("GET", `/admin/outbox?to=${encodeURIComponent(to)}`, adminToken)
        if (answer.status !== 200) throw new Error(`GET /admin/outbox answered ${answer.status}`)
        if (answer.body.data.length >= count) return answer.body.data
        if (waited >= 15_000) throw new Error(`${answer.body.data.length} of ${count} messages to ${to} in the dev outbox`)
        await sleep(100)
      }
    },
    close: async () => {
      await host.close()
      await mailroom.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}

const axeSource = readFileSync(join(root, "node_modules", "axe-core", "axe.min.js"), "utf8")

export interface AxeViolation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly targets: ReadonlyArray<string>
}

/** axe-core's violations of impact serious or critical on the page as it is now (WCAG 2.1 A and AA rules and best
 *  practices). axe runs through the DevTools protocol, so the pages' CSP (no script) does not have to be relaxed. */
export const seriousViolations = async (page: Page): Promise<ReadonlyArray<AxeViolation>> => {
  await page.evaluate(axeSource)
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<any> } }).axe
    const result = await axe.run(document, { resultTypes: ["violations"] })
    return (result.violations as Array<any>).map((v) => ({
      id: v.id as string, impact: v.impact as string | null, help: v.help as string,
      targets: (v.nodes as Array<any>).map((n) => String(n.target)),
    }))
  })
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical")
}

export const viewports = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const

/** Saves full-page screenshots of the page at desktop and phone width as `<name>-desktop.png` and `<name>-phone.png`,
 *  then puts the viewport back. */
export const screenshots = async (page: Page, name: string): Promise<void> => {
  mkdirSync(screenshotDirectory, { recursive: true })
  const before = page.viewportSize()
  for (const [width, size] of Object.entries(viewports)) {
    await page.setViewportSize(size)
    await page.screenshot({ path: join(screenshotDirectory, `${name}-${width}.png`), fullPage: true })
  }
  if (before !== null) await page.setViewportSize(before)
}

/** What every browser test checks on every page it shows: no serious or critical axe-core violation, nothing wider
 *  than a phone, and the screenshots saved as `<name>-desktop.png` and `<name>-phone.png`. */
export const checkPage = async (page: Page, name: string): Promise<void> => {
  expect(await seriousViolations(page)).toEqual([])
  expect(await fitsPhoneWidth(page)).toBe(true)
  await screenshots(page, name)
}

/** Opens `link` and checks the invalid-link page it must show: a 400 titled "This link is not valid", whose `where`
 *  says `says`, showing nothing of `hidden` (the recipient's address) and nothing to press; then the checks of every
 *  page (checkPage), as `name`. */
export const expectInvalidLinkPage = async (
  page: Page,
  link: string,
  expected: { readonly name: string; readonly where: string; readonly says: string; readonly hidden: string },
): Promise<void> => {
  const response = await page.goto(link)
  expect(response?.status(), expected.name).toBe(400)
  expect(await page.locator("h1").textContent()).toBe("This link is not valid")
  expect(await page.locator(expected.where).textContent()).toContain(expected.says)
  expect(await page.locator("main").textContent()).not.toContain(expected.hidden)
  expect(await page.getByRole("button").count()).toBe(0)
  await checkPage(page, expected.name)
}

/** The page fits a phone: nothing wider than the viewport, so no sideways scrolling. */
export const fitsPhoneWidth = async (page: Page): Promise<boolean> => {
  const before = page.viewportSize()
  await page.setViewportSize(viewports.phone)
  const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)
  if (before !== null) await page.setViewportSize(before)
  return fits
}
