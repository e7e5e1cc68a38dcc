// campaign-two-instances: Mailroom processes on one PostgreSQL database deliver a campaign to a list of 20,000 members
// (MAILROOM_BENCH_CAMPAIGN_RECIPIENTS) through an smtp-server sink on 127.0.0.1 that takes 20 ms per message. Each
// instance (bench/servers/campaign-instance.mjs) runs its background work, relays through a pool of 5 connections
// and runs 2 delivery runs at once; chunk, send and message.deliver jobs go to whichever instance claims them. Timed
// from POST /v1/campaigns/{id}/send (made by a process that runs no background work) until the sink has every
// message, with one instance, then with two (the ratio of the rates; target 1.7). Then a third campaign with two
// instances, one SIGKILLed halfway: the other must finish it. Each run checks that the sink saw each Message-ID once;
// the SIGKILL run prints what the killed instance left held (its delivery runs in flight: their submission may have
// happened, so they wait for an operator, docs/mail-delivery.md). PostgreSQL only.
import { fork } from "node:child_process"
import { join } from "node:path"
import { createMailroom } from "@mailroom/mailroom"
import pg from "pg"
import { SMTPServer } from "smtp-server"
import { apiCall as call, benchDir, freshPostgresUrl } from "./lib.mjs"

const target = 1.7
const recipients = Number(process.env.MAILROOM_BENCH_CAMPAIGN_RECIPIENTS ?? 20_000)
const delayMs = 20
const listId = "lst_bench_two"
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** The sink: answers each message 20 ms after its end, and records its Message-ID and recipients. */
const startSink = () =>
  new Promise((resolve) => {
    let ids = []
    const server = new SMTPServer({
      disabledCommands: ["STARTTLS", "AUTH"], authOptional: true, logger: false, closeTimeout: 100,
      onData: (stream, session, callback) => {
        let head = ""
        stream.on("data", (chunk) => { if (head.length < 8192) head += chunk.toString("latin1") })
        stream.once("end", () => {
          const id = /^Message-ID:\s*(\S+)/im.exec(head)?.[1] ?? "(none)"
          setTimeout(() => {
            ids.push(id)
            callback(null, "2.0.0 OK: queued")
          }, delayMs)
        })
      },
    })
    // A SIGKILLed instance resets its connections: the sink carries on with the others.
    server.on("error", () => undefined)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.server.address()
      resolve({
        url: `smtp://127.0.0.1:${port}`,
        received: () => ids.length,
        ids: () => ids,
        reset: () => { ids = [] },
        close: () => new Promise((done) => server.close(() => done())),
      })
    })
  })

const startInstance = (database, smtpUrl) =>
  new Promise((resolve, reject) => {
    const child = fork(join(benchDir, "servers", "campaign-instance.mjs"), [], {
      env: { ...process.env, DATABASE_URL: database, SMTP_URL: smtpUrl }, stdio: ["ignore", "inherit", "inherit", "ipc"],
    })
    child.once("exit", (code) => reject(new Error(`campaign-instance exited with ${code} before it was ready`)))
    child.once("message", () => {
      child.removeAllListeners("exit")
      resolve({
        kill: () => new Promise((done) => { child.once("exit", done); child.kill("SIGKILL") }),
        stop: () => new Promise((done) => { child.once("exit", done); child.kill("SIGTERM") }),
      })
    })
  })

/** The campaign's recipients by delivery status. */
const statuses = async (db, campaignId) => {
  const { rows } = await db.query(`SELECT mr.status, count(*)::int AS n FROM campaign_recipients cr
    JOIN message_recipients mr ON mr.message_id = cr.message_id WHERE cr.campaign_id = $1 GROUP BY mr.status`, [campaignId])
  return Object.fromEntries(rows.map((r) => [r.status, r.n]))
}

const waitUntil = async (what, done, ms) => {
  const deadline = Date.now() + ms
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

export const run = async ({ backends }) => {
  if (!backends.includes("postgres")) return
  const database = await freshPostgresUrl("bench_campaign_two")
  if (database === undefined) {
    console.log("bench campaign-two-instances postgres: skipped (no Postgres)")
    return
  }
  const sink = await startSink()
  const smtpUrl = `${sink.url}?maxConnections=5`
  const setup = createMailroom({ database, backgroundWork: false, logLevel: "error" })
  const db = new pg.Client({ connectionString: database })
  await db.connect()
  const instances = []
  try {
    await setup.ready()
    const { account, apiKey } = await setup.accounts.create({ name: "bench", plan: "enterprise" })
    const now = Date.now()
    await db.query(`INSERT INTO contact_lists (id, account_id, name, description, type, segment_rules, suppression_group_id,
        tracking_enabled, is_archived, created_at, updated_at, last_synced_at)
      VALUES ($1, $2, 'Readers', NULL, 'STATIC', NULL, NULL, true, false, $3, $3, NULL)`, [listId, account.id, now])
    await db.query(`INSERT INTO contacts (id, account_id, email, first_name, source, status, subscribed_at, created_at, updated_at)
      SELECT 'con_bench_' || lpad(i::text, 7, '0'), $1, 'r' || lpad(i::text, 7, '0') || '@example.org', 'Reader', 'API',
        'ACTIVE', $2, $2, $2 FROM generate_series(1, $3::int) AS i`, [account.id, now, recipients])
    await db.query(`INSERT INTO list_members (id, account_id, list_id, contact_id, added_at, removed_at)
      SELECT 'mem_bench_' || lpad(i::text, 7, '0'), $1, $2, 'con_bench_' || lpad(i::text, 7, '0'), $3, NULL
      FROM generate_series(1, $4::int) AS i`, [account.id, listId, now, recipients])
    for (const table of ["contacts", "list_members"]) await db.query(`ANALYZE ${table}`)
    await call(setup, apiKey, "PUT", "/campaigns/settings", { messagesPerSecond: 10_000 })

    /** Sends a new campaign to the list; answers its id and the send's start. */
    const send = async (name) => {
      const campaign = await call(setup, apiKey, "POST", "/campaigns", {
        name, listIds: [listId], subject: "News for {{contact.firstName}}", from: { email: "news@example.com" },
        text: "Hello {{contact.firstName}}, this is {{contact.email}}.",
      })
      sink.reset()
      const started = performance.now()
      await call(setup, apiKey, "POST", `/campaigns/${campaign.id}/send`)
      return { id: campaign.id, started }
    }
    const duplicates = () => sink.ids().length - new Set(sink.ids()).size

    /** A campaign delivered by `count` instances; answers messages per second. */
    const delivered = async (count, name) => {
      while (instances.length < count) instances.push(await startInstance(database, smtpUrl))
      const { started } = await send(name)
      await waitUntil(`${name} delivered`, () => sink.received() >= recipients, 600_000)
      const rate = recipients / ((performance.now() - started) / 1000)
      await sleep(500)
      return { rate, received: sink.received(), duplicates: duplicates() }
    }

    const one = await delivered(1, "one instance")
    const two = await delivered(2, "two instances")
    console.log(`bench campaign-two-instances postgres: two=${Math.round(two.rate)}/s one=${Math.round(one.rate)}/s`
      + ` ratio=${(two.rate / one.rate).toFixed(2)} target=${target.toFixed(2)} recipients=${recipients} sink_delay=${delayMs}ms`
      + ` received=${one.received}+${two.received} duplicate_message_ids=${one.duplicates + two.duplicates}`)

    // Two instances again; the first is SIGKILLed once the sink has half the campaign.
    const { id, started } = await send("killed")
    await waitUntil("half the campaign", () => sink.received() >= recipients / 2, 600_000)
    await instances.shift().kill()
    const atKill = sink.received()
    // The survivor sends the second half alone: at one instance's rate, over two minutes for 20,000 recipients.
    await waitUntil("nothing left queued", async () => {
      const s = await statuses(db, id)
      return (s.queued ?? 0) + (s.deferred ?? 0) === 0
        && (await db.query("SELECT status FROM campaigns WHERE id = $1", [id])).rows[0].status === "finished"
    }, 600_000).catch(() => undefined)
    // Nothing queued means the survivor has taken the last recipients, not that it has sent them: wait until the sink
    // stops receiving, so that its runs in flight are recorded.
    let last = -1
    while (sink.received() !== last) {
      last = sink.received()
      await sleep(1_500)
    }
    const seconds = (performance.now() - started) / 1000
    const final = await statuses(db, id)
    const stuck = (final.queued ?? 0) + (final.deferred ?? 0)
    const ids = sink.ids()
    console.log(`bench campaign-two-instances postgres sigkill: received=${ids.length} distinct=${new Set(ids).size}`
      + ` duplicate_message_ids=${ids.length - new Set(ids).size} at_kill=${atKill} delivered=${final.delivered ?? 0}`
      + ` held=${final.held ?? 0} still_queued=${stuck} lost=${recipients - (final.delivered ?? 0) - (final.held ?? 0) - stuck}`
      + ` seconds=${seconds.toFixed(1)}`)
  } finally {
    for (const instance of instances) await instance.stop()
    await db.end()
    await setup.close()
    await sink.close()
  }
}
