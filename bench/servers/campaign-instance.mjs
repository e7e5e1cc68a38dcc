// One Mailroom instance with its background work for `campaign-two-instances`: DATABASE_URL, SMTP_URL, and
// DELIVERY_CONCURRENCY (delivery runs at once, default 2). Sends nothing itself; tells its parent { ready: true } once
// its workers run, and stops on SIGTERM.
import { createMailroom } from "@mailroom/mailroom"

const mailroom = createMailroom({
  database: process.env.DATABASE_URL,
  smtpUrl: process.env.SMTP_URL,
  trackUrl: "https://t.example.com",
  logLevel: "error",
  shutdownGraceMillis: 5_000,
  delivery: { concurrency: Number(process.env.DELIVERY_CONCURRENCY ?? 2) },
})
await mailroom.ready()
process.send({ ready: true })
process.once("SIGTERM", () => {
  mailroom.close().then(() => process.exit(0), () => process.exit(1))
})
