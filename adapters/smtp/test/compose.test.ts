/** The message as it leaves Mailroom, and the headers read back from it. */
import type { OutgoingMessage } from "@mailroom/core"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { composeMessage, readHeaders } from "../src/index.js"
import { message } from "./support.js"

const compose = (outgoing: OutgoingMessage, date = new Date("2026-01-02T03:04:05.000Z")) =>
  Effect.runPromise(composeMessage(outgoing, date))

describe("composeMessage and readHeaders", () => {
  it("headers come back keyed by lower-case name, unfolded, exactly as given for custom headers", async () => {
    const unsubscribe = `<https://track.example.com/u/${"t".repeat(180)}>, <mailto:unsubscribe@example.com?subject=${"s".repeat(60)}>`
    const { raw, messageId } = await compose(message({
      headers: { "List-Unsubscribe": unsubscribe, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click", "X-Campaign": "spring" },
      messageId: "<m-1@example.com>",
    }))
    // Long headers are folded on the wire…
    expect(raw.toString().split("\r\n\r\n")[0]).toMatch(/\r\n[ \t]/)
    const headers = readHeaders(raw)
    // …and unfold to the value given.
    expect(headers["list-unsubscribe"]).toBe(unsubscribe)
    expect(headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click")
    expect(headers["x-campaign"]).toBe("spring")
    expect(headers["message-id"]).toBe("<m-1@example.com>")
    expect(messageId).toBe("<m-1@example.com>")
    expect(headers.date).toBe("Fri, 02 Jan 2026 03:04:05 +0000")
    expect(headers.from).toBe("Example News <news@example.com>")
    expect(headers.to).toBe("Ada Lovelace <ada@example.net>")
    expect(headers["mime-version"]).toBe("1.0")
    expect(Object.keys(headers).every((name) => name === name.toLowerCase())).toBe(true)
  })

  it("non-ASCII subjects are sent encoded, as a relay receives them", async () => {
    const headers = readHeaders((await compose(message({ subject: "Grüße 🎉" }))).raw)
    expect(headers.subject).toMatch(/^=\?UTF-8\?[BQ]\?/)
  })

  it("a repeated header keeps every value, in order", () => {
    expect(readHeaders(Buffer.from("Received: from a\r\nSubject: x\r\nReceived: from b\r\n\r\nbody"))).toEqual({
      received: "from a\nfrom b", subject: "x",
    })
  })

  it("a DKIM key that is not a key fails with MailerError", async () => {
    const exit = await Effect.runPromiseExit(composeMessage(
      message({ dkim: { domainName: "example.com", keySelector: "s", privateKey: "not a key" } }), new Date(),
    ))
    expect(exit._tag).toBe("Failure")
    expect(JSON.stringify(exit)).toContain("MailerError")
  })
})
