// The floor of subscribe: a bare Hono route doing what POST /v1/subscriptions does for a new address with two lists,
// through the raw driver (better-sqlite3 with the same pragmas, or pg) in one transaction: one query that reads the
// lists, the contact and the suppression of the address, then one INSERT of the contact, one two-row INSERT of the
// memberships and one three-row INSERT of the events (contact.subscribed and two list.member_added). The schema, the
// account and the two lists come from Mailroom itself, so both sides write the same tables with the same indexes.
// DATABASE_URL=sqlite:PATH|postgres://…
import { timeOrderedId } from "../lib.mjs"
import { announce, openPgPool, openSqlite, pgTransaction, serveHono, setUpWithMailroom, sqlite } from "./shared.mjs"

const { account, seeded: listIds } = await setUpWithMailroom({
  plan: "pro",
  backgroundWork: false,
  seed: async (setup, _account, apiKey) => {
    const ids = []
    for (const name of ["News", "Offers"]) {
      const response = await setup.fetch(new Request("http://floor/v1/contacts/lists", {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ name }),
      }))
      ids.push((await response.json()).data.id)
    }
    return ids
  },
})

const contactColumns = [
  "id", "account_id", "created_at", "email", "first_name", "first_name_folded", "last_name", "last_name_folded", "phone",
  "phone_folded", "metadata", "source", "status", "subscribed_at", "unsubscribed_at", "confirmed_at", "consent_source",
  "consent_at", "consent_ip", "consent_user_agent", "consent_text", "updated_at",
]
const memberColumns = ["id", "account_id", "list_id", "contact_id", "added_at", "removed_at"]
const eventColumns = ["id", "account_id", "type", "recipient", "details", "occurred_at"]
const quoted = (columns) => columns.map((column) => `"${column}"`).join(",")
const values = (columns, rows, dollar) => {
  let n = 0
  return Array.from({ length: rows }, () => `(${columns.map(() => (dollar ? `$${++n}` : "?")).join(",")})`).join(",")
}

/** The rows of one subscribe: the contact, its two memberships, its three events. */
const rowsOf = (body) => {
  const now = Date.now()
  const contactId = timeOrderedId("ct")
  const firstName = body.firstName ?? null
  const contact = [contactId, account.id, now, body.email, firstName, firstName?.toLowerCase() ?? null, null, null, null,
    null, null, "API", "ACTIVE", now, null, null, "api", now, body.consent?.ip ?? null, body.consent?.userAgent ?? null,
    body.consent?.text ?? null, now]
  const members = listIds.flatMap((listId) => [timeOrderedId("mem"), account.id, listId, contactId, now, null])
  const subscribed = { contactId, email: body.email, source: "API", listIds, topicIds: [], requiresConfirmation: false, status: "ACTIVE" }
  const events = [
    [timeOrderedId("evt"), account.id, "contact.subscribed", body.email, JSON.stringify(subscribed), now],
    ...listIds.map((listId) => [timeOrderedId("evt"), account.id, "list.member_added", body.email,
      JSON.stringify({ listId, contactId, email: body.email, source: "API" }), now]),
  ].flat()
  return { contactId, contact, members, events }
}

const checkSql = (p) => `SELECT
  (SELECT count(*) FROM contact_lists WHERE account_id = ${p(1)} AND id IN (${p(2)}, ${p(3)})) AS lists,
  (SELECT count(*) FROM contacts WHERE account_id = ${p(4)} AND email = ${p(5)}) AS contacts,
  (SELECT count(*) FROM suppressions WHERE account_id = ${p(6)} AND email = ${p(7)}) AS suppressions`
const checkParams = (email) => [account.id, listIds[0], listIds[1], account.id, email, account.id, email]

const makeDb = async () => {
  if (sqlite) {
    const db = await openSqlite()
    const check = db.prepare(checkSql(() => "?"))
    const insertContact = db.prepare(`INSERT INTO contacts (${quoted(contactColumns)}) VALUES ${values(contactColumns, 1, false)}`)
    const insertMembers = db.prepare(`INSERT INTO list_members (${quoted(memberColumns)}) VALUES ${values(memberColumns, 2, false)}`)
    const insertEvents = db.prepare(`INSERT INTO events (${quoted(eventColumns)}) VALUES ${values(eventColumns, 3, false)}`)
    const subscribe = db.transaction((body) => {
      const found = check.get(checkParams(body.email))
      if (found.lists !== 2 || found.contacts > 0 || found.suppressions > 0) return undefined
      const rows = rowsOf(body)
      insertContact.run(rows.contact)
      insertMembers.run(rows.members)
      insertEvents.run(rows.events)
      return rows.contactId
    })
    return { subscribe: async (body) => subscribe.immediate(body), close: async () => db.close() }
  }
  const pool = await openPgPool()
  const dollar = (n) => `$${n}`
  const check = checkSql(dollar)
  const insertContact = `INSERT INTO contacts (${quoted(contactColumns)}) VALUES ${values(contactColumns, 1, true)}`
  const insertMembers = `INSERT INTO list_members (${quoted(memberColumns)}) VALUES ${values(memberColumns, 2, true)}`
  const insertEvents = `INSERT INTO events (${quoted(eventColumns)}) VALUES ${values(eventColumns, 3, true)}`
  return {
    subscribe: (body) => pgTransaction(pool, async (client, rollback) => {
      const found = (await client.query(check, checkParams(body.email))).rows[0]
      if (Number(found.lists) !== 2 || Number(found.contacts) > 0 || Number(found.suppressions) > 0) {
        rollback()
        return undefined
      }
      const rows = rowsOf(body)
      await client.query(insertContact, rows.contact)
      await client.query(insertMembers, rows.members)
      await client.query(insertEvents, rows.events)
      return rows.contactId
    }),
    close: () => pool.end(),
  }
}
const db = await makeDb()

const { Hono } = await import("hono")
const app = new Hono()
app.post("/v1/subscriptions", async (c) => {
  const body = await c.req.json()
  const contactId = await db.subscribe(body)
  if (contactId === undefined) return c.json({ success: false, error: { code: "RECIPIENT_UNSUBSCRIBED" } }, 409)
  return c.json({
    success: true,
    data: {
      contactId, email: body.email, status: "ACTIVE", created: true, listIds, addedToListIds: listIds, topicIds: [],
      requiresConfirmation: false, confirmationSent: false,
    },
  }, 201)
})
announce(await serveHono(app), { apiKey: "unused", listIds }, () => db.close())
