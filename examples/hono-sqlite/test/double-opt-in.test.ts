/** Double opt-in end to end, as a new user tries it on the main starter (CONTRACT.md: `node scripts/start.mjs`, the
 *  operator API, the dev outbox and the link forms): subscribe with doubleOptIn, find the confirmation mail in
 *  GET /admin/outbox, follow its link as a browser does (the page, then its button), and see the contact confirmed and
 *  the events in the outbox table of the starter's SQLite database. A GET or HEAD of the link confirms nothing. */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { mkdtempSync, rmSync } from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { fileURLToPath } from "node:url"
import Database from "better-sqlite3"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../../../", import.meta.url))
/** A boot may have to build every package first. */
const bootTimeoutMs = 300_000
const adminToken = "double-opt-in-admin-token"

const directory = mkdtempSync(join(tmpdir(), "mailroom-double-opt-in-"))
const databaseFile = join(directory, "starter.sqlite")

const freePort = async (): Promise<number> => {
  const server = createServer()
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const { port } = server.address() as AddressInfo
  server.close()
  await once(server, "close")
  return port
}

let child: ChildProcess | undefined
let origin = ""

beforeAll(async () => {
  const port = await freePort()
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ["APP_URL", "TRACK_URL", "MAILROOM_SECRET", "SMTP_URL", "DATABASE_URL", "LOG_LEVEL"]) delete env[name]
  child = spawn(process.execPath, ["scripts/start.mjs"], {
    cwd: root,
    env: { ...env, PORT: String(port), HOST: "127.0.0.1", DATABASE_URL: `sqlite:${databaseFile}`, ADMIN_TOKEN: adminToken },
    stdio: ["ignore", "pipe", "pipe"],
  })
  let stdout = ""
  let stderr = ""
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  origin = await new Promise<string>((resolve, reject) => {
    child!.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      const url = /https?:\/\/\S+/.exec(stdout.split("\n")[0] ?? "")?.[0]
      if (stdout.includes("\n")) {
        if (url === undefined) reject(new Error(`no URL on the starter's first line: ${stdout}`))
        else resolve(url)
      }
    })
    child!.once("exit", (code) => reject(new Error(`the starter exited (${code}) before it listened:\n${stderr}`)))
  })
}, bootTimeoutMs)

afterAll(async () => {
  if (child !== undefined && child.exitCode === null) {
    child.kill("SIGTERM")
    await Promise.race([once(child, "exit"), sleep(5_000)])
  }
  rmSync(directory, { recursive: true, force: true })
})

const call = async (method: string, path: string, options: { token?: string; body?: unknown } = {}) => {
  const headers: Record<string, string> = {}
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  if (options.body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(new URL(path, origin), {
    method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  })
  const text = await response.text()
  return { status: response.status, text, json: text.startsWith("{") ? JSON.parse(text) : undefined }
}

/** The account's events in the starter's database, oldest first. */
const eventsOf = (accountId: string) => {
  const db = new Database(databaseFile, { readonly: true, fileMustExist: true })
  try {
    return (db.prepare("SELECT type, details FROM events WHERE account_id = ? ORDER BY seq").all(accountId) as Array<{ type: string; details: string }>)
      .map((row) => ({ type: row.type, details: JSON.parse(row.details) as Record<string, unknown> }))
  } finally {
    db.close()
  }
}

describe("double opt-in on the starter", () => {
  it("subscribe, confirmation mail in the dev outbox, link followed, contact confirmed, events in the outbox", async () => {
    const account = await call("POST", "/admin/accounts", { token: adminToken, body: { name: "Acme News" } })
    expect(account.status, account.text).toBe(201)
    const { id: accountId, apiKey } = account.json
    const list = await call("POST", "/v1/contacts/lists", { token: apiKey, body: { name: "Weekly" } })
    expect(list.status, list.text).toBe(201)
    const listId = list.json.data.id
    const email = `new.reader.${process.pid}@example.com`

    const subscribed = await call("POST", "/v1/subscriptions", {
      token: apiKey, body: { email, doubleOptIn: true, listIds: [listId], firstName: "Ada" },
    })
    expect(subscribed.status, subscribed.text).toBe(201)
    expect(subscribed.json.data).toMatchObject({ email, status: "PENDING", requiresConfirmation: true, confirmationSent: true })

    // The confirmation mail, kept in the dev outbox.
    const outbox = await call("GET", `/admin/outbox?to=${encodeURIComponent(email)}`, { token: adminToken })
    expect(outbox.status).toBe(200)
    expect(outbox.json.data).toHaveLength(1)
    const mail = outbox.json.data[0]
    const link = /https?:\/\/[^\s"'<>]+\/c\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/.exec(`${mail.text ?? ""} ${mail.html ?? ""}`)?.[0]
    expect(link, JSON.stringify(mail)).toBeDefined()

    // A scanner's HEAD or GET of the link confirms nothing.
    expect((await fetch(link!, { method: "HEAD" })).status).toBe(200)
    const page = await fetch(link!)
    const pageHtml = await page.text()
    expect(page.status).toBe(200)
    expect(pageHtml).toContain("Confirm subscription")
    const pending = await call("GET", `/v1/subscriptions/${encodeURIComponent(email)}`, { token: apiKey })
    expect(pending.json.data.contact.status).toBe("PENDING")
    expect(pending.json.data.pendingConfirmation).not.toBeNull()

    // The recipient presses the button: the form posts to the page's own URL.
    const confirmed = await fetch(link!, {
      method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "", redirect: "manual",
    })
    expect(confirmed.status).toBe(200)
    expect(await confirmed.text()).toContain("Subscription confirmed")

    const active = await call("GET", `/v1/subscriptions/${encodeURIComponent(email)}`, { token: apiKey })
    expect(active.json.data.contact.status).toBe("ACTIVE")
    expect(active.json.data.contact.confirmedAt).not.toBeNull()
    expect(active.json.data.pendingConfirmation).toBeNull()

    // Used again, the link says it was used and confirms nothing more.
    const again = await fetch(link!, { method: "POST", body: "", headers: { "content-type": "application/x-www-form-urlencoded" } })
    expect(await again.text()).toContain("Already confirmed")

    const events = eventsOf(accountId)
    const subscribedEvent = events.find((event) => event.type === "contact.subscribed")
    expect(subscribedEvent?.details).toMatchObject({ email, source: "API", requiresConfirmation: true, status: "PENDING" })
    const confirmations = events.filter((event) => event.type === "contact.confirmed")
    expect(confirmations).toHaveLength(1)
    expect(confirmations[0]!.details).toMatchObject({ email, formId: null, listIds: [listId] })
    expect(Number.isNaN(Date.parse(String(confirmations[0]!.details.confirmedAt)))).toBe(false)
  }, 60_000)
})
