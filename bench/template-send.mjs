// template-send: POST /v1/emails/send with content.templateId (a published template of about 6 KB reading 10
// variables) beside the same send with the same mail rendered inline (subject, html and text, no variables), on one
// Mailroom server with the Hono mount, SQLite and Postgres, 50 connections. Target 0.80: a send by template resolves
// the template and its live release and renders it once per send from the release compiled once (the engine's cache),
// so it may cost little more than inline content. Enterprise account (no quota to run out of), background work off:
// this measures acceptance, not delivery.
import { freshPostgresUrl, freshSqliteFile, interleave, load, report, startServer, uniqueEmail } from "./lib.mjs"

const seconds = Number(process.env.MAILROOM_BENCH_SECONDS ?? 3)

const names = Array.from({ length: 10 }, (_, i) => `var_${i}`)
const values = Object.fromEntries(names.map((name, i) => [name, `value ${i} for the reader`]))

/** About 6 KB of email HTML with each of the 10 variables read twice. */
const paragraph = (i) =>
  `<tr><td style="padding:12px 24px;font-family:Helvetica,Arial,sans-serif;font-size:15px;line-height:22px;color:#333333;">` +
  `<p style="margin:0 0 8px 0;">Section ${i}: {{${names[i % 10]}}} and {{${names[(i + 5) % 10]}}}. Thank you for your order; the ` +
  `items below ship from our warehouse within two working days, and you will get a tracking link when they leave.</p></td></tr>`
const html = `<!doctype html><html><head><meta charset="utf-8"><title>Order</title></head><body style="margin:0;padding:0;">` +
  `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">` +
  Array.from({ length: 18 }, (_, i) => paragraph(i)).join("") + `</table></body></html>`
const subject = "Your order {{var_0}}"
const text = "Order {{var_0}}: {{var_1}}, {{var_2}}, {{var_3}}."

const fill = (template) => template.replace(/\{\{(\w+)\}\}/g, (_, name) => values[name])

const call = async (server, method, path, body) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
  return (await response.json()).data
}

const from = { email: "orders@sender.example", name: "Orders" }

export const run = async ({ backends }) => {
  for (const backend of backends) {
    const database = backend === "sqlite" ? `sqlite:${freshSqliteFile("bench_template_send")}` : await freshPostgresUrl("bench_template_send")
    if (!database) {
      console.log(`bench template-send ${backend}: skipped (no database server answers)`)
      continue
    }
    const server = await startServer("mailroom.mjs", { FRAMEWORK: "hono", DATABASE_URL: database, PLAN: "enterprise", BACKGROUND: "0" })
    try {
      const design = await call(server, "POST", "/v1/designs", {
        key: "order", locale: "en", draft: { name: "Order", subject, html, text },
      })
      await call(server, "POST", `/v1/designs/${design.id}/publish`, { expectedRevision: 1 })
      const send = (content, variables) => () =>
        load({
          url: server.url,
          path: "/v1/emails/send",
          headers: { authorization: `Bearer ${server.apiKey}` },
          makeBody: () => JSON.stringify({ from, to: [{ email: uniqueEmail("to") }], content, ...(variables ? { variables } : {}) }),
          seconds,
        })
      const [byTemplate, inline] = await interleave(
        send({ templateId: design.id }, values),
        send({ subject: fill(subject), html: fill(html), text: fill(text) }),
      )
      report("template-send", backend, byTemplate, inline, 0.8, `template=${Buffer.byteLength(html)}B`)
    } finally {
      await server.stop()
    }
  }
}
