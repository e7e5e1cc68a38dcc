// The floor of send-accept and batch-1000: a bare Hono route doing the acceptance work with the raw driver
// (better-sqlite3 with the same pragmas, or pg), in one transaction, on the schema of Mailroom's own migrations.
//  - POST /v1/emails/send: the transactional eligibility anti-join over the recipients, the quota upsert, and the
//    rows Mailroom writes for a message: messages, message_recipients, the email.queued outbox events and the
//    message's event log (multi-row inserts).
//  - POST /v1/emails/batch: one anti-join query (suppressions, contact statuses, opt-outs of the topic), the same
//    multi-row inserts (the messages, their recipients, their events in the outbox and in the log) and the quota
//    upsert: the rows Mailroom writes for a batch.
// SQLite: one multi-row INSERT per table, prepared once per row count. Postgres: one multi-row INSERT … VALUES per
// table, unnest of one array per column beyond 100 rows.
// DATABASE_URL=sqlite:PATH|postgres://…, AUDIENCE=1 seeds bench/servers/audience.mjs first (through Mailroom).
import { timeOrderedId } from "../lib.mjs"
import { announce, openPgPool, openSqlite, pgTransaction, serveHono, setUpWithMailroom, sqlite } from "./shared.mjs"

const { account, seeded: topicId } = await setUpWithMailroom({
  plan: "enterprise",
  backgroundWork: false,
  seed: process.env.AUDIENCE === "1"
    ? async (setup, seededAccount, apiKey) => (await import("./audience.mjs")).seedAudience(setup, seededAccount.id, apiKey)
    : undefined,
})
const transactionalBlocks = `s.reason IN ('Bounce', 'Complaint') OR c.status IN ('BOUNCED', 'COMPLAINED', 'CLEANED')`
const marketingBlocks = `s.email IS NOT NULL OR c.status IN ('UNSUBSCRIBED', 'BOUNCED', 'COMPLAINED', 'CLEANED') OR o.email IS NOT NULL`

/** The anti-join: the candidates (one JSON array parameter) that the account's suppressions, contacts or topic
 *  opt-outs block. Parameters: addresses JSON, account id (×2 or ×3), topic id. */
const droppedSql = (marketing, p) => {
  const candidates = sqlite ? `SELECT value AS email FROM json_each(${p(1)})` : `SELECT value AS email FROM json_array_elements_text(${p(1)}::json)`
  return `SELECT x.email FROM (${candidates}) x
    LEFT JOIN suppressions s ON s.account_id = ${p(2)} AND s.email = x.email
    LEFT JOIN contacts c ON c.account_id = ${p(2)} AND c.email = x.email
    ${marketing ? `LEFT JOIN topic_opt_outs o ON o.topic_id = ${p(3)} AND o.account_id = ${p(2)} AND o.email = x.email` : ""}
    WHERE ${marketing ? marketingBlocks : transactionalBlocks}`
}

/** Most parameters bound to one statement, as in Mailroom (packages/sql/src/internal/batch.ts). */
const maxParameters = 32_000

const tables = {
  messages: ["id", "account_id", "batch_id", "state", "stream", "topic_id", "from_email", "subject", "content", "scheduled_for", "created_at"],
  message_recipients: ["message_id", "position", "account_id", "email", "name", "field", "status", "attempts", "last_response", "updated_at"],
  events: ["id", "account_id", "type", "recipient", "details", "occurred_at"],
  message_events: ["id", "account_id", "message_id", "recipient", "type", "occurred_at", "smtp_response", "bounce_type", "bounce_code", "bounce_reason"],
}

/** The rows of one message: its row, its recipients and an email.queued or email.dropped event per recipient, in the
 *  outbox and in the message's log. */
const messageRows = (body, recipients, dropped, { batchId, stream, topic, variables }) => {
  const now = Date.now()
  const id = timeOrderedId("msg")
  const content = JSON.stringify({ ...body.content, from: body.from, variables: { ...body.variables, ...variables }, stream, topicId: topic })
  const rows = {
    messages: [[id, account.id, batchId, "queued", stream, topic, body.from.email, body.content.subject, content, null, now]],
    message_recipients: recipients.map((r, position) =>
      [id, position, account.id, r.email, r.name ?? null, r.field, dropped.has(r.email) ? "dropped" : "queued", 0, null, now]),
    events: [],
    message_events: [],
  }
  for (const r of recipients) {
    const type = dropped.has(r.email) ? "email.dropped" : "email.queued"
    rows.events.push([timeOrderedId("evt"), account.id, type, r.email,
      JSON.stringify({ messageId: id, sender: body.from.email, subject: body.content.subject, status: type.slice(6) }), now])
    rows.message_events.push([timeOrderedId("mev"), account.id, id, r.email, type, now, null, null, null, null])
  }
  return { id, now, rows }
}

const envelope = (to, cc = [], bcc = []) => {
  const seen = new Set()
  const out = []
  for (const [field, list] of [["to", to], ["cc", cc], ["bcc", bcc]]) {
    for (const r of list) {
      const email = r.email.trim().toLowerCase()
      if (!seen.has(email)) { seen.add(email); out.push({ email, name: r.name, field }) }
    }
  }
  return out
}

const makeDb = async () => {
  if (sqlite) {
    const db = await openSqlite()
    const dropped = { true: db.prepare(droppedSql(true, (n) => `@p${n}`)), false: db.prepare(droppedSql(false, (n) => `@p${n}`)) }
    const quota = db.prepare(`INSERT INTO send_quota (account_id, period, used) VALUES (?, ?, ?)
      ON CONFLICT (account_id, period) DO UPDATE SET used = send_quota.used + excluded.used`)
    // One multi-row INSERT per table, prepared once per row count and cached (a send always has the same few counts,
    // a batch its entries' counts): one call into SQLite per table rather than one per row, the statements Mailroom
    // sends. Split only where a statement would pass SQLite's bound-parameter limit, as Mailroom's insertRows does.
    const cached = new Map()
    const insertStatement = (table, count) => {
      const key = `${table}:${count}`
      let statement = cached.get(key)
      if (statement === undefined) {
        const columns = tables[table]
        const row = `(${columns.map(() => "?").join(", ")})`
        statement = db.prepare(`INSERT INTO ${table} (${columns.join(", ")}) VALUES ${Array(count).fill(row).join(", ")}`)
        cached.set(key, statement)
      }
      return statement
    }
    const insertRows = (table, rows) => {
      const size = Math.floor(maxParameters / tables[table].length)
      for (let start = 0; start < rows.length; start += size) {
        const chunk = rows.slice(start, start + size)
        insertStatement(table, chunk.length).run(chunk.flat())
      }
    }
    const accept = db.transaction((addresses, marketing, topic, build) => {
      const params = { p1: JSON.stringify(addresses), p2: account.id, ...(marketing ? { p3: topic } : {}) }
      const blocked = new Set(dropped[String(marketing)].all(params).map((row) => row.email))
      const messages = build(blocked)
      for (const table of Object.keys(tables)) {
        const rows = messages.flatMap((message) => message.rows[table])
        if (rows.length > 0) insertRows(table, rows)
      }
      quota.run(account.id, new Date().toISOString().slice(0, 7), addresses.length - blocked.size)
      return messages
    })
    return { accept: async (...args) => accept(...args), close: async () => db.close() }
  }
  const pool = await openPgPool()
  const values = (columns, rows) => {
    const params = []
    const text = rows.map((row) => `(${row.map((value) => (params.push(value), `$${params.length}`)).join(", ")})`).join(", ")
    return { text: `(${columns.join(", ")}) VALUES ${text}`, params }
  }
  // The rows of a batch: one array parameter per column, unnested (the fastest multi-row insert of pg, see floor.mjs).
  const pgType = (column) =>
    column === "content" || column === "details" ? "json"
      : column === "position" || column === "attempts" ? "int"
        : column.endsWith("_at") || column === "scheduled_for" ? "bigint" : "text"
  return {
    accept: (addresses, marketing, topic, build) => pgTransaction(pool, async (client) => {
      const params = marketing && topic ? [JSON.stringify(addresses), account.id, topic] : [JSON.stringify(addresses), account.id]
      const blocked = new Set((await client.query(droppedSql(marketing && topic, (n) => `$${n}`), params)).rows.map((row) => row.email))
      const messages = build(blocked)
      for (const table of Object.keys(tables)) {
        const rows = messages.flatMap((message) => message.rows[table])
        if (rows.length === 0) continue
        if (rows.length > 100) {
          const columns = tables[table]
          const arrays = columns.map((column, c) => `$${c + 1}::${pgType(column)}[]`).join(", ")
          await client.query(`INSERT INTO ${table} (${columns.join(", ")}) SELECT * FROM unnest(${arrays})`, columns.map((_, c) => rows.map((row) => row[c])))
        } else {
          const { text, params: rowParams } = values(tables[table], rows)
          await client.query(`INSERT INTO ${table} ${text}`, rowParams)
        }
      }
      // The quota counter last, as Mailroom does: its row stays locked until commit.
      await client.query(`INSERT INTO send_quota (account_id, period, used) VALUES ($1, $2, $3)
        ON CONFLICT (account_id, period) DO UPDATE SET used = send_quota.used + excluded.used`,
      [account.id, new Date().toISOString().slice(0, 7), addresses.length - blocked.size])
      return messages
    }),
    close: () => pool.end(),
  }
}
const db = await makeDb()

const { Hono } = await import("hono")
const app = new Hono()
app.post("/v1/emails/send", async (c) => {
  const body = await c.req.json()
  const recipients = envelope(body.to, body.cc, body.bcc)
  const [message] = await db.accept(recipients.map((r) => r.email), false, null,
    (blocked) => [messageRows(body, recipients, blocked, { batchId: null, stream: "transactional", topic: null })])
  return c.json({
    success: true,
    data: {
      id: message.id, status: "queued", from: body.from.email, to: recipients.filter((r) => r.field === "to").map((r) => r.email),
      subject: body.content.subject, createdAt: new Date(message.now).toISOString(),
    },
  })
})
app.post("/v1/emails/batch", async (c) => {
  const body = await c.req.json()
  const batchId = timeOrderedId("bat")
  const entries = body.recipients.map((entry) => envelope([entry.to], entry.cc, entry.bcc))
  const variables = body.recipients.map((entry) => entry.variables)
  const addresses = [...new Set(entries.flat().map((r) => r.email))]
  const messages = await db.accept(addresses, true, body.suppressionGroupId, (blocked) =>
    entries.map((recipients, i) => messageRows(body, recipients, blocked, { batchId, stream: "marketing", topic: body.suppressionGroupId, variables: variables[i] })))
  return c.json({
    success: true,
    data: { batchId, status: "queued", totalRecipients: entries.length, messageIds: messages.map((m) => m.id), createdAt: new Date().toISOString() },
  })
})
announce(await serveHono(app), { apiKey: "unused", topicId }, () => db.close())
