// delivery-smtp: messages per second from queued to accepted by an smtp-server sink on 127.0.0.1. Each round commits
// a batch of queued one-recipient messages (with their email.queued events, as acceptance does) in one transaction and
// times until the sink has accepted every one: Mailroom's outbox relay, delivery jobs, per-recipient rendering, SMTP
// submission and the recording of each outcome. Its floor is a bare pooled nodemailer transport (the same number of
// connections) sending the same rendered messages, all at once. Target 0.5.
// Run alone with `npm run bench -- delivery-smtp` (MAILROOM_BENCH_BACKENDS=sqlite to skip Postgres).
import {
  acceptSend, emailEvent, Ids, SendInput, Store, toStoredMessage,
} from "@mailroom/core"
import { Clock, Effect, Either, Schema } from "effect"
import { createMailroom } from "@mailroom/mailroom"
import nodemailer from "nodemailer"
import { SMTPServer } from "smtp-server"
import { freshPostgresUrl, freshSqliteFile, interleave, report } from "./lib.mjs"

const target = 0.5
const messagesPerRound = Number(process.env.MAILROOM_BENCH_DELIVERY_MESSAGES ?? 300)
const connections = 5
const synchronous = process.env.SQLITE_SYNCHRONOUS ?? "FULL"

const html = "<h1>Your receipt</h1><p>Hello {{name}}, thank you for order {{order}}.</p><p>Total: {{total}}</p>"
const subject = "Receipt {{order}}"

let counter = 0
const body = () => {
  const n = counter++
  return {
    from: { email: "shop@example.com", name: "Example Shop" },
    to: [{ email: `buyer-${n}@example.org` }],
    content: { subject, html },
    variables: { name: `Buyer ${n}`, order: `#${n}`, total: "42.00 EUR" },
  }
}

/** Commits `count` queued messages of `accountId` with their email.queued events in one transaction. */
const queueMessages = (accountId, bodies) =>
  Effect.gen(function* () {
    const store = yield* Store
    const ids = yield* Ids
    const at = new Date(yield* Clock.currentTimeMillis)
    const messages = bodies.map((b) => toStoredMessage({
      id: ids.make("message", at), accountId, batchId: null,
      message: Either.getOrThrow(acceptSend(Schema.decodeUnknownSync(SendInput)(b))), scheduledFor: null, createdAt: at,
    }))
    const records = messages.map((m) => ({
      id: ids.make("messageEvent", at), accountId, messageId: m.id, recipient: m.recipients[0].email, type: "email.queued",
      occurredAt: at, smtpResponse: null, bounceType: null, bounceCode: null, bounceReason: null,
    }))
    const events = messages.map((m) => emailEvent({
      id: ids.make("event", at), accountId, type: "email.queued", messageId: m.id, recipient: m.recipients[0].email,
      sender: m.content.from.email, subject: m.content.subject, occurredAt: at, metadata: null,
    }))
    yield* store.transaction(Effect.gen(function* () {
      yield* store.messages.insertMany(messages)
      yield* store.messages.appendEvents(records)
      yield* store.events.append(events)
    }))
  })

/** An smtp-server on 127.0.0.1 that accepts everything and counts the messages it received to the end of DATA. */
const startSink = () =>
  new Promise((resolve) => {
    let received = 0
    let waiter
    const server = new SMTPServer({
      disabledCommands: ["STARTTLS", "AUTH"], authOptional: true, logger: false, closeTimeout: 100,
      onData: (stream, _session, callback) => {
        stream.on("data", () => undefined)
        stream.once("end", () => {
          received += 1
          if (waiter !== undefined && received >= waiter.count) waiter.resolve()
          callback(null, "2.0.0 OK: queued")
        })
      },
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.server.address()
      resolve({
        host: "127.0.0.1",
        port,
        url: `smtp://127.0.0.1:${port}`,
        reset: () => { received = 0 },
        waitForMessages: (count, timeoutMs) => new Promise((done, fail) => {
          if (received >= count) return done()
          const timer = setTimeout(() => fail(new Error(`the sink received ${received} of ${count} messages`)), timeoutMs)
          waiter = { count, resolve: () => { clearTimeout(timer); waiter = undefined; done() } }
        }),
        close: () => new Promise((done) => server.close(() => done())),
      })
    })
  })

const render = (template, variables) => template.replace(/\{\{(\w+)\}\}/g, (_, name) => variables[name] ?? "")

const databaseFor = async (backend, name) =>
  backend === "memory" ? "memory:" : backend === "sqlite" ? `sqlite:${freshSqliteFile(name)}` : await freshPostgresUrl(name)

export const run = async ({ backends }) => {
  for (const backend of backends) {
    const database = await databaseFor(backend, "bench_delivery_smtp")
    if (database === undefined) {
      console.log(`bench delivery-smtp ${backend}: skipped (no Postgres)`)
      continue
    }
    const sink = await startSink()
    const mailroom = createMailroom({
      database,
      sqliteSynchronous: synchronous,
      logLevel: "error",
      smtpUrl: `${sink.url}?maxConnections=${connections}`,
      delivery: { concurrency: 16 },
    })
    await mailroom.ready()
    const { account } = await mailroom.accounts.create({ name: "bench", plan: "enterprise" })
    const transport = nodemailer.createTransport({
      host: sink.host, port: sink.port, secure: false, ignoreTLS: true, pool: true, maxConnections: connections, maxMessages: 100,
    })
    try {
      const mailroomSide = async () => {
        sink.reset()
        const bodies = Array.from({ length: messagesPerRound }, body)
        await mailroom.runtime.runPromise(queueMessages(account.id, bodies))
        const started = performance.now()
        await sink.waitForMessages(messagesPerRound, 120_000)
        return messagesPerRound / ((performance.now() - started) / 1000)
      }
      const floorSide = async () => {
        sink.reset()
        const bodies = Array.from({ length: messagesPerRound }, body)
        const started = performance.now()
        await Promise.all(bodies.map((b, i) => transport.sendMail({
          envelope: { from: "bounces@example.com", to: [b.to[0].email] },
          from: { address: b.from.email, name: b.from.name },
          to: b.to[0].email,
          subject: render(subject, b.variables),
          html: render(html, b.variables),
          text: `Your receipt\n\nHello ${b.variables.name}, thank you for order ${b.variables.order}.\n\nTotal: ${b.variables.total}`,
          messageId: `<bench-${i}-${started}@example.com>`,
        })))
        await sink.waitForMessages(messagesPerRound, 120_000)
        return messagesPerRound / ((performance.now() - started) / 1000)
      }
      const [mine, floor] = await interleave(mailroomSide, floorSide, 3, 1)
      report("delivery-smtp", backend, mine, floor, target, `messages=${messagesPerRound} connections=${connections}`)
    } finally {
      transport.close()
      await mailroom.close()
      await sink.close()
    }
  }
}
