// The floor of track-click: a bare Hono route GET /l/:token that verifies the token's HMAC-SHA256 (the key derived from
// the secret as Mailroom derives it), reads the target from its payload, inserts one tracking_hits row with the raw
// driver (better-sqlite3 with Mailroom's pragmas, or pg), and answers 302. DATABASE_URL, MAILROOM_SECRET.
import { createHmac, timingSafeEqual } from "node:crypto"
import { Hono } from "hono"
import { timeOrderedId } from "../lib.mjs"
import { announce, openPgPool, openSqlite, serveHono, setUpWithMailroom, sqlite } from "./shared.mjs"

await setUpWithMailroom({ plan: "pro" })
const key = createHmac("sha256", process.env.MAILROOM_SECRET).update("mailroom token key: click").digest()

const columns = "id, account_id, message_id, recipient, kind, classification, signal, occurred_at, country, url, position, campaign_id"
const makeInsert = async () => {
  if (sqlite) {
    const db = await openSqlite()
    const statement = db.prepare(`INSERT INTO tracking_hits (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    return { insert: async (row) => { statement.run(row) }, close: async () => db.close() }
  }
  const pool = await openPgPool()
  const text = `INSERT INTO tracking_hits (${columns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`
  return { insert: async (row) => { await pool.query(text, row) }, close: () => pool.end() }
}
const { insert, close } = await makeInsert()

const app = new Hono().get("/l/:token", async (c) => {
  const [payload, signature] = c.req.param("token").split(".")
  const expected = createHmac("sha256", key).update(payload ?? "").digest()
  const given = Buffer.from(signature ?? "", "base64url")
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return c.text("Not found", 404)
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"))
  await insert([timeOrderedId("hit"), claims.a, claims.m, claims.r, "click", "human", "person", Date.now(), null, claims.u, claims.i, null])
  return c.redirect(claims.u, 302)
})
announce(await serveHono(app), {}, close)
