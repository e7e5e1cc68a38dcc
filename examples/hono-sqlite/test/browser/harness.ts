/** The real-browser harness of the hosted pages: Debian's Chromium driven by playwright-core, axe-core for
 *  accessibility, a screenshot of each page at desktop and phone width, and the starter's own composition (Mailroom at
 *  the root of a Hono app on Node, a SQLite file) listening on a free port.
 *
 *  Chromium is found at MAILROOM_CHROMIUM or /usr/bin/chromium. Without it the browser tests are skipped with one line
 *  saying how to enable them, except under CI=true (or MAILROOM_REQUIRE_BROWSER=1), where they fail instead. */
import { serve } from "@hono/node-server"
import { mountMailroom } from "@mailroom/hono"
import { Hono } from "hono"
import { createMailroom, type Mailroom, type MailroomConfig } from "mailroom"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { once } from "node:events"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Browser, chromium, type Page } from "playwright-core"
import { describe, it } from "vitest"

const root = fileURLToPath(new URL("../../../../", import.meta.url))

export const chromiumPath = process.env.MAILROOM_CHROMIUM ?? "/usr/bin/chromium"
export const browserAvailable = existsSync(chromiumPath)
const browserRequired = process.env.CI === "true" || process.env.MAILROOM_REQUIRE_BROWSER === "1"

/** Where screenshots go: git-ignored, kept after the run as test artifacts. */
export const screenshotDirectory = join(root, ".artifacts", "screenshots")

let announced = false
/** `describe` for browser tests: skipped with one line when Chromium is missing, failing when CI requires it. */
export const describeBrowser = (name: string, body: () => void) => {
  if (browserAvailable) return describe(name, body)
  if (browserRequired) {
    return describe(name, () => {
      it("needs Chromium", () => {
        throw new Error(`Chromium not found at ${chromiumPath}: install it (apt-get install chromium) or set MAILROOM_CHROMIUM`)
      })
    })
  }
  if (!announced) {
    announced = true
    console.log(`Browser tests skipped: no Chromium at ${chromiumPath}; run \`apt-get install chromium\` (or set MAILROOM_CHROMIUM=/path/to/chromium) to enable them.`)
  }
  return describe.skip(name, body)
}

export const launchBrowser = (): Promise<Browser> =>
  // The sandbox needs user namespaces, which containers and root shells often lack.
  chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox", "--disable-dev-shm-usage"] })

/** A TCP port nothing listens on. */
export const freePort = async (): Promise<number> => {
  const server = createServer()
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const { port } = server.address() as AddressInfo
  server.close()
  await once(server, "close")
  return port
}

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
  return {
    ...host,
    mailroom,
    adminToken,
    api: async (method, path, token, body) => {
      const response = await fetch(`${origin}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      const text = await response.text()
      return { status: response.status, body: text === "" ? null : JSON.parse(text) }
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

/** The page fits a phone: nothing wider than the viewport, so no sideways scrolling. */
export const fitsPhoneWidth = async (page: Page): Promise<boolean> => {
  const before = page.viewportSize()
  await page.setViewportSize(viewports.phone)
  const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)
  if (before !== null) await page.setViewportSize(before)
  return fits
}
