/** What Mailroom prints on stderr (docs/logging.md): one line per request, per delivery outcome and per failed job
 *  attempt, as JSON or key=value text, at the configured level, with no key, token, secret, password or full address
 *  in any of them. */
import { Mailer, MailerError } from "@mailroom/core"
import { Effect, Layer } from "effect"
import { afterEach, describe, expect, it, vi } from "vitest"
import { createMailroom, LogConfigError, type Mailroom, type MailroomConfig } from "../src/index.js"

const adminToken = "admin-token-do-not-log"

/** A relay that accepts mail to example.com, quoting the address in its reply as real relays do, and cannot be
 *  reached for anything else (its error names the address and the relay's password). */
const relay = Layer.succeed(Mailer, {
  send: (message) => message.envelopeTo.some((to) => to.endsWith("@unreachable.example"))
    ? Effect.fail(new MailerError({
      detail: `connection to smtp://mailer:hunter2@relay.example.net refused for ${message.envelopeTo.join(", ")}`,
      cause: null,
    }))
    : Effect.succeed({
      messageId: "<m@example.com>",
      recipients: message.envelopeTo.map((to) => ({
        recipient: to, status: "accepted" as const, code: 250, reply: `250 2.0.0 Ok: queued for <${to}>`,
      })),
    }),
})

let output: Array<string> = []
const started: Array<Mailroom> = []
afterEach(async () => {
  vi.restoreAllMocks()
  await Promise.all(started.splice(0).map((mailroom) => mailroom.close()))
})

const start = async (config: Partial<MailroomConfig>) => {
  output = []
  vi.spyOn(console, "error").mockImplementation((...args: Array<unknown>) => {
    output.push(args.map(String).join(" "))
  })
  const mailroom = createMailroom({ database: "memory:", adminToken, mailer: relay, ...config })
  started.push(mailroom)
  await mailroom.ready()
  const api = async (method: string, path: string, token: string, body?: unknown) => {
    const response = await mailroom.fetch(new Request(`http://mailroom.test${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }))
    return { status: response.status, body: await response.json(), requestId: response.headers.get("x-request-id")! }
  }
  const account = await api("POST", "/admin/accounts", adminToken, {})
  return { mailroom, api, key: account.body.apiKey as string, accountId: account.body.id as string }
}

const send = (to: string) => ({ from: { email: "news@example.com" }, to: [{ email: to }], content: { subject: "Hi", text: "Hi" } })

const jsonLines = () => output.map((line) => JSON.parse(line) as { message: string; logLevel: string; annotations: Record<string, unknown> })

const waitFor = async <A>(find: () => A | undefined): Promise<A> => {
  for (let waited = 0; waited < 15_000; waited += 50) {
    const found = find()
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`not logged; output:\n${output.join("\n")}`)
}

describe("LOG_FORMAT=json", () => {
  it("prints a line per request, per delivery outcome and per failed job attempt, with nothing secret in them", async () => {
    const { api, key, accountId } = await start({ logFormat: "json" })
    const sent = await api("POST", "/v1/emails/send", key, send("ada.lovelace@example.com"))
    expect(sent.status).toBe(200)
    await api("GET", "/v1/subscriptions/ada.lovelace%40example.com", key)
    const failing = await api("POST", "/v1/emails/send", key, send("grace.hopper@unreachable.example"))

    const request = await waitFor(() => jsonLines().find((line) => line.annotations.requestId === sent.requestId))
    expect(request.message).toBe("request")
    expect(request.logLevel).toBe("INFO")
    expect(request.annotations).toEqual({
      method: "POST", route: "/v1/emails/send", status: 200, durationMs: expect.any(Number), requestId: sent.requestId,
      accountId,
    })
    const delivered = await waitFor(() => jsonLines().find((line) => line.message === "delivery" && line.annotations.messageId === sent.body.data.id))
    expect(delivered.annotations).toEqual({
      messageId: sent.body.data.id, recipientDomain: "example.com", outcome: "delivered",
      reply: "250 2.0.0 Ok: queued for <***@example.com>",
    })
    const notSent = await waitFor(() => jsonLines().find((line) => line.message === "delivery" && line.annotations.messageId === failing.body.data.id))
    expect(notSent.annotations).toMatchObject({ recipientDomain: "unreachable.example", outcome: "not-sent" })
    const failedAttempt = await waitFor(() => jsonLines().find((line) => line.message.endsWith("attempt failed")))
    expect(failedAttempt.logLevel).toBe("WARN")
    expect(failedAttempt.annotations).toMatchObject({ job: expect.any(String), attempt: 1, willRetry: true, cause: expect.any(String) })

    const everything = output.join("\n")
    for (const secret of [key, adminToken, "ada.lovelace", "grace.hopper", "hunter2"]) expect(everything).not.toContain(secret)
    expect(everything).toContain("smtp://***@relay.example.net")
  })
})

describe("LOG_FORMAT=text", () => {
  it("prints one key=value line per entry", async () => {
    const { api, key } = await start({ logFormat: "text" })
    const answer = await api("GET", "/v1/contacts", key)
    const line = await waitFor(() => output.find((entry) => entry.includes(answer.requestId)))
    expect(line).not.toContain("\n")
    expect(line).toMatch(/level=INFO/)
    expect(line).toMatch(/message=request/)
    expect(line).toContain("route=/v1/contacts")
    expect(line).toContain("status=200")
    expect(line).not.toContain(key)
  })
})

describe("LOG_LEVEL", () => {
  it("leaves out what is below it", async () => {
    const { api, key } = await start({ logFormat: "json", logLevel: "warn" })
    await api("GET", "/v1/contacts", key)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(jsonLines().filter((line) => line.message === "request")).toEqual([])
  })

  it.each([
    [{ logFormat: "xml" }, 'logFormat must be one of text, json, not "xml"'],
    [{ logLevel: "loud" }, 'logLevel must be one of debug, info, warn, error, not "loud"'],
  ])("refuses %o with one line naming the choices", (config, message) => {
    expect(() => createMailroom({ database: "memory:", ...(config as object) })).toThrow(LogConfigError)
    expect(() => createMailroom({ database: "memory:", ...(config as object) })).toThrow(message)
  })
})
