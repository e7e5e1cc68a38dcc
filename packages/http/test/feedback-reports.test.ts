import { classifyDsnRecipient, isComplaint, parseRecipientMessageId } from "@mailroom/core"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { parseDeliveryStatusNotification, parseFeedbackReport, parseFieldBlocks } from "../src/feedback-reports.js"

const sample = (name: string) => readFileSync(new URL(`./fixtures/reports/${name}`, import.meta.url))
const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect))

describe("delivery status notifications", () => {
  it("reads a Postfix bounce: recipient, action, status, diagnostic and the original's Message-ID", async () => {
    const result = await run(parseDeliveryStatusNotification(sample("dsn-postfix-user-unknown.eml")))
    expect(result._tag).toBe("Right")
    if (result._tag !== "Right") return
    const report = result.right
    expect(report.reportingMta).toBe("mx.example.org")
    expect(report.originalMessageIds).toEqual(["<msg_01abc-0@example.com>"])
    expect(report.recipients).toEqual([{
      recipient: "ada@example.org",
      action: "failed",
      status: "5.1.1",
      diagnosticCode: "smtp; 550 5.1.1 <ada@example.org>: Recipient address rejected: User unknown in virtual mailbox table",
      remoteMta: "mx.example.org",
    }])
    expect(classifyDsnRecipient(report.recipients[0]!)).toMatchObject({ status: "bounced", bounceType: "hard", bounceCode: "5.1.1" })
    expect(parseRecipientMessageId(report.originalMessageIds[0]!)).toEqual({ messageId: "msg_01abc", index: 0 })
  })

  it("reads every recipient block of an Exchange report that returns the whole message", async () => {
    const result = await run(parseDeliveryStatusNotification(sample("dsn-exchange-two-recipients.eml")))
    if (result._tag !== "Right") throw new Error(String(result.left))
    expect(result.right.recipients.map((r) => [r.recipient, r.status])).toEqual([
      ["bob@contoso.example", "5.1.10"], ["carol@contoso.example", "5.2.2"],
    ])
    expect(result.right.recipients[0]!.diagnosticCode).toBe("smtp;550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup")
    expect(result.right.originalMessageIds).toContain("<msg_01j9zq3x7k2m4n5p6r7s8t9v0w-1@example.com>")
    expect(result.right.originalMessageIds).not.toContain("<a1b2c3d4-0000-4000-8000-1234567890ab@contoso.example>")
  })

  it("reads a delay warning as a deferral, with the original envelope id", async () => {
    const result = await run(parseDeliveryStatusNotification(sample("dsn-delayed.eml")))
    if (result._tag !== "Right") throw new Error(String(result.left))
    expect(result.right.originalEnvelopeId).toBe("msg_01delayed0000000000000000")
    expect(result.right.recipients[0]).toMatchObject({ recipient: "dave@slow.example", action: "delayed", status: "4.4.1" })
    expect(classifyDsnRecipient(result.right.recipients[0]!)?.status).toBe("deferred")
  })

  it("refuses a message that is no DSN, naming the message", async () => {
    const result = await run(parseDeliveryStatusNotification("From: a@example.com\r\nSubject: hi\r\n\r\nhello\r\n"))
    expect(result._tag).toBe("Left")
    if (result._tag === "Left") expect(result.left).toMatchObject({ code: "VALIDATION_ERROR", field: "message" })
    const arf = await run(parseDeliveryStatusNotification(sample("arf-abuse.eml")))
    expect(arf._tag).toBe("Left")
  })
})

describe("feedback-loop reports", () => {
  it("reads an ARF abuse report with the original recipient", async () => {
    const result = await run(parseFeedbackReport(sample("arf-abuse.eml")))
    if (result._tag !== "Right") throw new Error(String(result.left))
    expect(result.right).toEqual({
      feedbackType: "abuse",
      userAgent: "ExampleFBL/1.0",
      reportingMta: "mail.feedback.example.net",
      sourceIp: "192.0.2.25",
      arrivalDate: "Mon, 23 Nov 2026 11:58:40 +0000",
      originalMailFrom: "bounces@mail.example.com",
      originalRcptTo: ["ada@example.org"],
      originalMessageIds: ["<msg_01xyz-0@example.com>"],
    })
    expect(isComplaint(result.right.feedbackType)).toBe(true)
  })

  it("reads a redacted report: no recipient, but the Message-ID of the original names it", async () => {
    const result = await run(parseFeedbackReport(sample("arf-redacted.eml")))
    if (result._tag !== "Right") throw new Error(String(result.left))
    expect(result.right.originalRcptTo).toEqual([])
    expect(result.right.originalMessageIds).toEqual(["<msg_01k0deals00000000000000000-4@example.com>"])
    expect(parseRecipientMessageId(result.right.originalMessageIds[0]!)).toEqual({ messageId: "msg_01k0deals00000000000000000", index: 4 })
  })

  it("refuses a DSN and a plain message", async () => {
    expect((await run(parseFeedbackReport(sample("dsn-delayed.eml"))))._tag).toBe("Left")
    expect((await run(parseFeedbackReport("Subject: x\r\n\r\nbody")))._tag).toBe("Left")
  })
})

describe("field blocks", () => {
  it("folds continuation lines, separates blocks on blank lines and keeps repeated fields", () => {
    const blocks = parseFieldBlocks("A: 1\r\nB: two\r\n  lines\r\n\r\nC: x\r\nC: y\r\nnot a field\r\n")
    expect(blocks.map((b) => Object.fromEntries(b))).toEqual([{ a: ["1"], b: ["two lines"] }, { c: ["x", "y"] }])
  })
})
