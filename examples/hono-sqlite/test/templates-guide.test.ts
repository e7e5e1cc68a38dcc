/** docs/templates.md's "Your first template" followed on the main starter, as a new user would: `node scripts/start.mjs`
 *  with ADMIN_TOKEN set and no SMTP_URL (the dev outbox), a Pro account, an MJML design created, previewed, published
 *  and sent by templateId (the mail in GET /admin/outbox, values escaped), the draft edited while the live mail stays as
 *  it was, a rollback, and a retirement whose sends fail with TEMPLATE_RETIRED naming the replacement. */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, expect, it } from "vitest"
import { freePort } from "./free-port.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const adminToken = "templates-guide-admin-token"
const directory = mkdtempSync(join(tmpdir(), "mailroom-starter-templates-"))
let child: ChildProcess | undefined

afterAll(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM")
    await Promise.race([once(child, "exit"), new Promise((resolve) => setTimeout(resolve, 5_000))])
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
  rmSync(directory, { recursive: true, force: true })
})

/** Boots the starter; resolves with the URL of its first stdout line. */
const boot = async (variables: Record<string, string>): Promise<string> => {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ["PORT", "HOST", "DATABASE_URL", "ADMIN_TOKEN", "SMTP_URL", "APP_URL", "TRACK_URL"]) delete env[name]
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

// The MJML of docs/templates.md, "Your first template".
const mjml = `<mjml>
  <mj-body>
    <mj-section>
      <mj-column>
        <mj-text>Hello {{first_name}}, your order {{order}} has shipped.</mj-text>
        <mj-button href="{{tracking_url}}">Track it</mj-button>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`

it("creates an MJML design, previews, publishes and sends it; edits, rolls back and retires it", { timeout: 300_000 }, async () => {
  const base = await boot({
    PORT: String(await freePort()),
    HOST: "127.0.0.1",
    DATABASE_URL: `sqlite:${join(directory, "guide.sqlite")}`,
    ADMIN_TOKEN: adminToken,
  })
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await response.text()
    return { status: response.status, json: JSON.parse(text), text }
  }
  /** The newest outbox entry to `to` whose subject is `subject`, waiting for the delivery job. */
  const mailTo = async (to: string, subject: string) => {
    for (let tries = 0; tries < 100; tries++) {
      const entry = (await call("GET", `/admin/outbox?to=${encodeURIComponent(to)}`, adminToken)).json.data
        .find((mail: any) => mail.subject === subject)
      if (entry !== undefined) return entry
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error(`no mail "${subject}" to ${to} in the dev outbox`)
  }

  // 1. An account on a plan with Studio templates (Micro or above).
  const account = await call("POST", "/admin/accounts", adminToken, { plan: "pro" })
  expect(account.status).toBe(201)
  const key = account.json.apiKey as string

  // 2. Create the MJML design.
  const created = await call("POST", "/v1/designs", key, {
    key: "order-shipped",
    locale: "en",
    draft: {
      name: "Order shipped",
      subject: "Order {{order}} shipped",
      format: "mjml",
      html: mjml,
      variables: {
        first_name: { type: "string", example: "Ada" },
        order: { type: "string", example: "A-100" },
        tracking_url: { type: "string", format: "url", example: "https://example.com/track/A-100" },
      },
    },
  })
  expect(created.status, created.text).toBe(201)
  const id = created.json.data.id as string
  expect(created.json.data).toMatchObject({ status: "draft", revision: 1, liveVersion: null })

  // 3. Preview it with the examples.
  const preview = await call("POST", `/v1/designs/${id}/preview`, key, { sample: true })
  expect(preview.status, preview.text).toBe(200)
  expect(preview.json.data.subject).toBe("Order A-100 shipped")
  expect(preview.json.data.html).toContain("Hello Ada, your order A-100 has shipped.")

  // 4. Publish: release 1.
  const published = await call("POST", `/v1/designs/${id}/publish`, key, { expectedRevision: 1 })
  expect(published.json.data).toMatchObject({ status: "published", liveVersion: 1, release: { version: 1 } })

  // 5. Send by templateId; the values are escaped in the html of the mail in the dev outbox.
  const send = (to: string, firstName: string) => call("POST", "/v1/emails/send", key, {
    from: { email: "orders@example.com" },
    to: [{ email: to }],
    content: { templateId: id },
    variables: { first_name: firstName, order: "A-100", tracking_url: "https://example.com/track/A-100" },
  })
  const first = await send("ada@example.org", "Ada <script>alert(1)</script>")
  expect(first.status, first.text).toBe(200)
  expect(first.json.data.subject).toBe("Order A-100 shipped")
  const mail = await mailTo("ada@example.org", "Order A-100 shipped")
  expect(mail.html).toContain("Hello Ada &lt;script&gt;alert(1)&lt;/script&gt;, your order A-100 has shipped.")
  expect(mail.html).not.toContain("<script>")
  expect(mail.html).toContain(`href="https://example.com/track/A-100"`)
  expect(mail.text).toContain("Hello Ada <script>alert(1)</script>, your order A-100 has shipped.")
  const message = await call("GET", `/v1/emails/${first.json.data.id}`, key)
  expect(message.json.data.template).toEqual({ id, version: 1 })

  // 6. Edit the draft: the live mail does not change until the next publish.
  const edited = await call("PATCH", `/v1/designs/${id}`, key, {
    expectedRevision: 1,
    draft: { ...created.json.data.draft, subject: "Your order {{order}} is on its way" },
  })
  expect(edited.json.data).toMatchObject({ revision: 2, liveVersion: 1 })
  expect((await send("bob@example.org", "Bob")).json.data.subject).toBe("Order A-100 shipped")
  await mailTo("bob@example.org", "Order A-100 shipped")
  await call("POST", `/v1/designs/${id}/publish`, key, { expectedRevision: 2 })
  expect((await send("carol@example.org", "Carol")).json.data.subject).toBe("Your order A-100 is on its way")
  await mailTo("carol@example.org", "Your order A-100 is on its way")

  // 7. Roll back to version 1: a new release, 3, with version 1's content.
  const rolled = await call("POST", `/v1/designs/${id}/rollback`, key, { version: 1 })
  expect(rolled.json.data).toMatchObject({ liveVersion: 3, release: { version: 3, rolledBackFrom: 1 } })
  const afterRollback = await send("dan@example.org", "Dan")
  expect(afterRollback.json.data.subject).toBe("Order A-100 shipped")
  await mailTo("dan@example.org", "Order A-100 shipped")
  expect((await call("GET", `/v1/emails/${afterRollback.json.data.id}`, key)).json.data.template).toEqual({ id, version: 3 })

  // 8. Retire it in favour of a replacement: sends fail with TEMPLATE_RETIRED naming the replacement.
  const replacement = await call("POST", "/v1/designs", key, {
    key: "order-shipped-v2", locale: "en", draft: { ...created.json.data.draft, name: "Order shipped (new)" },
  })
  await call("POST", `/v1/designs/${replacement.json.data.id}/publish`, key, { expectedRevision: 1 })
  const retired = await call("PATCH", `/v1/designs/${id}/lifecycle`, key, { action: "retire", replacementId: replacement.json.data.id })
  expect(retired.json.data.status).toBe("retired")
  const refused = await send("erin@example.org", "Erin")
  expect(refused.status).toBe(409)
  expect(refused.json.error).toMatchObject({ code: "TEMPLATE_RETIRED" })
  expect(refused.json.error.message).toContain(replacement.json.data.id)
  expect(refused.json.error.fix_action).toContain("replacement")

  // The template's deliveries list what it sent, newest first.
  const deliveries = await call("GET", `/v1/designs/${id}/deliveries?limit=10`, key)
  expect(deliveries.json.data.map((m: any) => m.template.version)).toEqual([3, 2, 1, 1])
})
