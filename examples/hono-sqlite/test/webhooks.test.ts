/** docs/webhooks.md followed on the main starter, as a new user would: `node scripts/start.mjs` with
 *  MAILROOM_UNSAFE_ALLOW_PRIVATE_URLS=1, an endpoint on a local receiver, then a real API change (a contact added to
 *  a list). The receiver gets the signed `list.member_added` event and verifies it with `standardwebhooks` and with
 *  the spec's X-Service-Signature. */
import { type ChildProcess, spawn } from "node:child_process"
import { createHmac } from "node:crypto"
import { once } from "node:events"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { startWebhookReceiver, type WebhookReceiver } from "@mailroom/testing"
import { Webhook } from "standardwebhooks"
import { afterAll, expect, it } from "vitest"
import { freePort } from "./free-port.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const adminToken = "webhooks-guide-admin-token"
const directory = mkdtempSync(join(tmpdir(), "mailroom-starter-webhooks-"))
let child: ChildProcess | undefined
let receiver: WebhookReceiver | undefined

afterAll(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM")
    await Promise.race([once(child, "exit"), new Promise((resolve) => setTimeout(resolve, 5_000))])
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
  await receiver?.close()
  rmSync(directory, { recursive: true, force: true })
})

/** Boots the starter; resolves with the URL of its first stdout line. */
const boot = async (variables: Record<string, string>): Promise<string> => {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ["PORT", "HOST", "DATABASE_URL", "ADMIN_TOKEN", "MAILROOM_UNSAFE_ALLOW_PRIVATE_URLS", "SMTP_URL"]) delete env[name]
  const started = spawn(process.execPath, ["scripts/start.mjs"], { cwd: root, env: { ...env, ...variables }, stdio: ["ignore", "pipe", "pipe"] })
  child = started
  let stdout = ""
  let stderr = ""
  started.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  return new Promise<string>((resolve, reject) => {
    started.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      const url = stdout.includes("\n") ? /https?:\/\/\S+/.exec(stdout.split("\n")[0]!)?.[0] : undefined
      if (url !== undefined) resolve(url)
    })
    started.once("exit", (code) => reject(new Error(`the starter exited (${code}) before it printed its URL\n${stdout}\n${stderr}`)))
  })
}

it("a local receiver gets a signed event for a real API change and verifies it", { timeout: 300_000 }, async () => {
  receiver = await startWebhookReceiver()
  const port = await freePort()
  const base = await boot({
    PORT: String(port),
    HOST: "127.0.0.1",
    DATABASE_URL: `sqlite:${join(directory, "guide.sqlite")}`,
    ADMIN_TOKEN: adminToken,
    MAILROOM_UNSAFE_ALLOW_PRIVATE_URLS: "1",
  })
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const response = await fetch(new URL(path, base), {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: response.status, body: await response.json() }
  }

  const account = await call("POST", "/admin/accounts", adminToken, { plan: "pro", ownerEmail: "owner@example.com" })
  expect(account.status).toBe(201)
  const key = account.body.apiKey as string
  const created = await call("POST", "/v1/webhooks", key, { url: `${receiver.origin}/hooks`, events: ["list.member_added"] })
  expect(created.status).toBe(201)
  const secret = created.body.secret as string
  expect(secret).toMatch(/^whsec_/)

  const list = await call("POST", "/v1/contacts/lists", key, { name: "Newsletter" })
  expect(list.status).toBe(201)
  const added = await call("POST", `/v1/contacts/lists/${list.body.data.id}/members`, key, { emails: ["ada@example.com"], createMissing: true })
  expect(added.status).toBe(200)
  expect(added.body.added).toBe(1)

  const [request] = await receiver.waitFor(1, 30_000)
  expect(request!.path).toBe("/hooks")
  // Standard Webhooks: webhook-id, webhook-timestamp (within the tolerance) and the v1 signature over id.timestamp.body.
  const verified = new Webhook(secret).verify(request!.body, request!.headers) as Record<string, unknown>
  expect(verified).toMatchObject({ eventType: "list.member_added", recipient: "ada@example.com" })
  // The spec's signature: hex HMAC-SHA256 of the raw body, with the secret as given.
  expect(request!.headers["x-service-signature"]).toBe(createHmac("sha256", secret).update(request!.body).digest("hex"))
  expect(request!.headers["x-service-event"]).toBe("list.member_added")
  // A forged body does not verify.
  expect(() => new Webhook(secret).verify(request!.body.replace("ada@", "eve@"), request!.headers)).toThrow()

  // The delivery is recorded as succeeded in the endpoint's history.
  let deliveries: any
  for (let i = 0; i < 50; i++) {
    deliveries = await call("GET", `/v1/webhooks/${created.body.webhook.id}/deliveries`, key)
    if (JSON.stringify(deliveries.body).includes("succeeded")) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  expect(JSON.stringify(deliveries.body)).toContain("succeeded")
})
