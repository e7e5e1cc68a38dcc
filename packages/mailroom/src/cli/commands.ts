/** The commands of `mailroom`, the operator CLI. Each opens the Mailroom of the environment (the starter's variables,
 *  environment.ts), does one thing, closes it, and answers an exit code; failures are printed as one line. */
import type { CreateAccountInput, CreateApiKeyInput } from "@mailroom/core"
import { randomBytes } from "node:crypto"
import { setTimeout as sleep } from "node:timers/promises"
import { createMailroom, type Mailroom, type MailroomConfig } from "../create-mailroom.js"
import { displayDatabase } from "../environment.js"
import { startupFailureLine } from "../startup-failure.js"

/** Where a command writes, and how it learns it should stop (`outbox --follow` runs until then). */
export interface CommandIo {
  readonly out: (line: string) => void
  readonly err: (line: string) => void
  readonly stopped: Promise<void>
}

/** A failure the operator can act on: printed as its message alone, exit code 1. */
export class CommandError extends Error {}

export type Options = Readonly<Record<string, string | boolean | undefined>>

const text = (options: Options, name: string): string | undefined => {
  const value = options[name]
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined
}

const required = (options: Options, name: string): string => {
  const value = text(options, name)
  if (value === undefined) throw new CommandError(`--${name} is required`)
  return value
}

const positiveNumber = (options: Options, name: string, fallback: number): number => {
  const value = text(options, name)
  if (value === undefined) return fallback
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new CommandError(`--${name} must be a positive whole number, not "${value}"`)
  return Number(value)
}

/** Opens the Mailroom of `config` (migrating its schema), runs `use`, and closes it whatever happens. */
const withMailroom = async <A>(config: MailroomConfig & { readonly database: string }, use: (mailroom: Mailroom) => Promise<A>) => {
  if (config.database.trim() === "memory:") {
    throw new CommandError(
      "DATABASE_URL is memory:, which lives inside one process: point DATABASE_URL at the server's database (sqlite:PATH or postgres://…)",
    )
  }
  const mailroom = createMailroom(config)
  try {
    try {
      await mailroom.ready()
    } catch (error) {
      throw new CommandError(startupFailureLine(config.database, error))
    }
    return await use(mailroom)
  } finally {
    await mailroom.close().catch(() => undefined)
  }
}

/** Only the schema and the call: no relay, no job workers in a short-lived command. */
const quiet = (config: MailroomConfig & { readonly database: string }) => ({ ...config, backgroundWork: false })

export const migrate = async (config: MailroomConfig & { readonly database: string }, _options: Options, io: CommandIo) => {
  await withMailroom(quiet(config), async () => undefined)
  io.out(`Migrated ${displayDatabase(config.database)}`)
}

export const createAccount = async (config: MailroomConfig & { readonly database: string }, options: Options, io: CommandIo) => {
  const name = text(options, "name")
  const plan = text(options, "plan")
  const ownerEmail = text(options, "owner-email")
  const created = await withMailroom(quiet(config), (mailroom) =>
    mailroom.accounts.create({
      ...(name === undefined ? {} : { name }),
      // Checked by the Accounts service, which answers VALIDATION_ERROR naming the plans.
      ...(plan === undefined ? {} : { plan: plan as CreateAccountInput["plan"] }),
      ...(ownerEmail === undefined ? {} : { ownerEmail }),
    }))
  if (options.json === true) {
    io.out(JSON.stringify({ id: created.account.id, name: created.account.name, plan: created.account.plan, apiKey: created.apiKey }))
    return
  }
  io.out(`Created account ${created.account.id} (${created.account.name ?? "no name"}, plan ${created.account.plan})`)
  io.out(`API key, shown only now: ${created.apiKey}`)
}

export const createApiKey = async (config: MailroomConfig & { readonly database: string }, options: Options, io: CommandIo) => {
  const accountId = required(options, "account")
  const name = text(options, "name")
  const scopes = text(options, "scopes")?.split(",").map((scope) => scope.trim()).filter((scope) => scope !== "")
  const created = await withMailroom(quiet(config), (mailroom) =>
    mailroom.accounts.createApiKey(accountId, {
      ...(name === undefined ? {} : { name }),
      // Checked by the Accounts service, as on POST /admin/accounts/{id}/api-keys.
      ...(scopes === undefined ? {} : { scopes: scopes as CreateApiKeyInput["scopes"] }),
    }))
  if (options.json === true) {
    io.out(JSON.stringify({ id: created.apiKey.id, key: created.key, scopes: created.apiKey.scopes }))
    return
  }
  io.out(`Created API key ${created.apiKey.id} for ${accountId} (${created.apiKey.scopes.join(", ")})`)
  io.out(`API key, shown only now: ${created.key}`)
}

/** Statuses after which a message will not change by itself (messageStatus in @mailroom/core). `held` is not one:
 *  a recipient is held while its submission is under way, and only stays so when the outcome is unknown. */
const settled = new Set(["delivered", "bounced", "dropped", "partially_delivered", "cancelled"])

export const sendTest = async (config: MailroomConfig & { readonly database: string }, options: Options, io: CommandIo) => {
  const accountId = required(options, "account")
  const to = required(options, "to")
  const from = text(options, "from") ?? "test@example.com"
  const waitMs = positiveNumber(options, "timeout", 30) * 1000
  // The background work runs here, so that the message is delivered (or kept in the dev outbox) before the command
  // ends, also when no server is running.
  await withMailroom(config, async (mailroom) => {
    const sent = await mailroom.emails.send(accountId, {
      from: { email: from, name: "Mailroom" },
      to: [{ email: to }],
      content: {
        subject: text(options, "subject") ?? "Mailroom test message",
        text: "This is a test message sent with the mailroom command. It reached you: sending works.",
      },
    })
    const deadline = Date.now() + waitMs
    for (;;) {
      const { status } = await mailroom.emails.get(accountId, sent.id)
      if (settled.has(status)) {
        const where = config.smtpUrl === undefined ? "the dev outbox" : "the SMTP relay"
        if (status !== "delivered") throw new CommandError(`message ${sent.id} to ${to} ended ${status} (through ${where})`)
        io.out(`Sent ${sent.id} to ${to}: delivered to ${where}`)
        return
      }
      if (Date.now() > deadline) {
        throw new CommandError(`message ${sent.id} to ${to} is still ${status} after ${waitMs / 1000} s: check SMTP_URL and the relay`)
      }
      await sleep(200)
    }
  })
}

interface OutboxEntry {
  readonly id: string
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly subject: string
  readonly createdAt: string
}

const outboxLine = (entry: OutboxEntry) => `${entry.createdAt}  ${entry.id}  ${entry.from} -> ${entry.to.join(", ")}  ${entry.subject}`

/** The dev outbox, read through the operator API of a Mailroom of this process (with a token of its own). */
export const outbox = async (config: MailroomConfig & { readonly database: string }, options: Options, io: CommandIo) => {
  if (config.smtpUrl !== undefined) {
    throw new CommandError("SMTP_URL is set: mail goes to the relay, and there is no dev outbox to show")
  }
  const limit = positiveNumber(options, "limit", 20)
  const to = text(options, "to")
  const adminToken = randomBytes(24).toString("hex")
  await withMailroom(quiet({ ...config, adminToken }), async (mailroom) => {
    const read = async (): Promise<ReadonlyArray<OutboxEntry>> => {
      const query = new URLSearchParams({ limit: String(limit), ...(to === undefined ? {} : { to }) })
      const response = await mailroom.fetch(new Request(`http://mailroom.local/admin/outbox?${query}`, {
        headers: { authorization: `Bearer ${adminToken}` },
      }))
      const body = await response.json() as { data?: ReadonlyArray<OutboxEntry>; error?: { message?: string } }
      if (!response.ok || body.data === undefined) {
        throw new CommandError(`the dev outbox could not be read: ${body.error?.message ?? response.status}`)
      }
      return body.data
    }
    const seen = new Set<string>()
    const show = (entries: ReadonlyArray<OutboxEntry>) => {
      // The API answers newest first; a terminal reads oldest first, new mail last.
      for (const entry of [...entries].reverse()) {
        if (seen.has(entry.id)) continue
        seen.add(entry.id)
        io.out(options.json === true ? JSON.stringify(entry) : outboxLine(entry))
      }
    }
    const first = await read()
    show(first)
    if (options.follow !== true) {
      if (first.length === 0) io.err("The dev outbox is empty")
      return
    }
    io.err("Following the dev outbox (Ctrl-C to stop)…")
    let stop = false
    void io.stopped.then(() => { stop = true })
    while (!stop) {
      await Promise.race([sleep(500), io.stopped])
      if (!stop) show(await read())
    }
  })
}
