import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type AccountId, classifyDsnRecipient, deferralDelays, emailEvent, gaveUp, isComplaint, parseRecipientMessageId, recipientMessageId, type RecipientOutcome } from "../../src/index.js"
import { classifyOutcome, enhancedCodeIn, resolveRecipient } from "../../src/domain/delivery-outcome.js"

const outcome = (status: RecipientOutcome["status"], code: number | undefined, reply: string, enhancedCode?: string): RecipientOutcome =>
  ({ recipient: "ada@example.org", status, code, reply, enhancedCode })

describe("the relay's answer for one recipient", () => {
  // status the Mailer reported, reply code, reply text, enhanced code → verdict, bounce type
  const table: Array<[RecipientOutcome["status"], number | undefined, string, string | undefined, string, string | undefined]> = [
    ["accepted", 250, "2.0.0 Ok: queued as ABC", "2.0.0", "delivered", undefined],
    ["accepted", 250, "Ok", undefined, "delivered", undefined],
    ["deferred", 421, "4.7.0 Try again later, closing connection", "4.7.0", "deferred", undefined],
    ["deferred", 451, "4.3.0 Temporary lookup failure", undefined, "deferred", undefined],
    ["deferred", 452, "4.2.2 Mailbox full", "4.2.2", "deferred", undefined],
    ["bounced", 550, "5.1.1 User unknown", "5.1.1", "bounced", "hard"],
    ["bounced", 554, "Transaction failed", undefined, "bounced", "hard"],
    ["bounced", 552, "4.2.2 Mailbox full, try later", "4.2.2", "bounced", "soft"],
    // A 5.x.x enhanced code is hard whatever the relay calls it.
    ["deferred", 450, "5.1.1 Mailbox does not exist", "5.1.1", "bounced", "hard"],
    ["deferred", 451, "5.7.1 Rejected by policy", undefined, "bounced", "hard"],
    ["unknown", undefined, "connection closed after DATA", undefined, "held", undefined],
    ["bounced", undefined, "refused", undefined, "bounced", "hard"],
    ["deferred", undefined, "greylisted", undefined, "deferred", undefined],
  ]
  it.each(table)("%s %s %s (%s) gives %s %s", (status, code, reply, enhanced, verdict, bounceType) => {
    const result = classifyOutcome(outcome(status, code, reply, enhanced))
    expect(result.status).toBe(verdict)
    if (result.status === "bounced") {
      expect(result.bounceType).toBe(bounceType)
      expect(result.bounceReason).toBe(reply)
      expect(result.bounceCode).toBe(enhanced ?? enhancedCodeIn(reply) ?? String(code ?? 550))
    }
  })

  it("keeps the reply code in the smtpResponse", () => {
    expect(classifyOutcome(outcome("bounced", 550, "5.1.1 User unknown")).smtpResponse).toBe("550 5.1.1 User unknown")
    expect(classifyOutcome(outcome("accepted", 250, "250 2.0.0 Ok")).smtpResponse).toBe("250 2.0.0 Ok")
  })

  it("any 5.x.x enhanced code bounces hard, whatever the reply code and status", () => {
    fc.assert(fc.property(
      fc.constantFrom<RecipientOutcome["status"]>("accepted", "deferred", "bounced"),
      fc.integer({ min: 200, max: 599 }), fc.nat(9), fc.nat(999),
      (status, code, subject, detail) => {
        const result = classifyOutcome(outcome(status, code, "text", `5.${subject}.${detail}`))
        return result.status === "bounced" && result.bounceType === "hard"
      },
    ))
  })

  it("the reply code decides when there is no enhanced code", () => {
    fc.assert(fc.property(fc.integer({ min: 200, max: 599 }), (code) => {
      const result = classifyOutcome(outcome("bounced", code, "text"))
      const expected = code < 300 ? "delivered" : code < 400 ? "bounced" : code < 500 ? "deferred" : "bounced"
      // 3xx replies never end a transaction; the Mailer's own word (bounced) decides them.
      return result.status === expected
    }))
  })

  it("finds the enhanced code at the start of a reply", () => {
    expect(enhancedCodeIn("550 5.1.1 <a@b.c> unknown")).toBe("5.1.1")
    expect(enhancedCodeIn("550-5.7.26 DMARC")).toBe("5.7.26")
    expect(enhancedCodeIn("4.4.1 no answer")).toBe("4.4.1")
    expect(enhancedCodeIn("550 user unknown 5.1.1")).toBeUndefined()
  })

  it("bounces softly once every retry is used", () => {
    expect(gaveUp(12, "451 4.3.0 try later")).toMatchObject({ status: "bounced", bounceType: "soft", bounceCode: "4.3.0" })
  })
})

describe("delivery status notification blocks", () => {
  it.each([
    [{ action: "failed", status: "5.1.1", diagnosticCode: "smtp; 550 5.1.1 User unknown" }, "bounced", "hard", "5.1.1", "550 5.1.1 User unknown"],
    [{ action: "Failed", status: "5.7.1 (policy)" }, "bounced", "hard", "5.7.1", "delivery failed with status 5.7.1 (policy)"],
    [{ action: "failed", status: "4.4.7", diagnosticCode: "X-Postfix; delivery time expired" }, "bounced", "soft", "4.4.7", "X-Postfix; delivery time expired"],
    [{ action: "delayed", status: "4.4.1", diagnosticCode: "smtp; 421 no route" }, "deferred", undefined, undefined, undefined],
  ] as const)("%j gives %s %s", (fields, status, bounceType, code, reason) => {
    const verdict = classifyDsnRecipient(fields)
    expect(verdict?.status).toBe(status)
    if (verdict?.status === "bounced") expect(verdict).toMatchObject({ bounceType, bounceCode: code, bounceReason: reason })
  })

  it.each(["delivered", "relayed", "expanded"])("%s changes nothing", (action) => {
    expect(classifyDsnRecipient({ action, status: "2.0.0" })).toBeUndefined()
  })
})

describe("feedback reports", () => {
  it.each([["abuse", true], ["Fraud", true], ["virus", true], ["other", true], ["not-spam", false], ["auth-failure", false]] as const)(
    "feedback type %s is a complaint: %s", (type, complaint) => expect(isComplaint(type)).toBe(complaint))
})

describe("Message-IDs of Mailroom's form", () => {
  it("name the message and the recipient's position, and nothing else parses", () => {
    fc.assert(fc.property(fc.stringMatching(/^msg_[0-9a-z]{10,26}$/), fc.nat(99), (id, index) =>
      JSON.stringify(parseRecipientMessageId(recipientMessageId(id, index, "mail.example.com"))) === JSON.stringify({ messageId: id, index })))
    expect(parseRecipientMessageId("<20261123.ABC@mx.example.org>")).toBeUndefined()
  })
})

describe("a recipient's status after a verdict", () => {
  const deferred = classifyOutcome(outcome("deferred", 451, "4.3.0 try later"))
  it("a deferral retries while attempts are left, then bounces softly without a suppression", () => {
    for (let attempt = 1; attempt <= deferralDelays.length; attempt++) {
      expect(resolveRecipient(deferred, attempt)).toMatchObject({ status: "deferred", event: "email.deferred", retry: true, suppression: null })
    }
    const last = resolveRecipient(deferred, deferralDelays.length + 1)
    expect(last).toMatchObject({ status: "bounced", event: "email.bounced", retry: false, suppression: null })
    expect(last.verdict).toMatchObject({ status: "bounced", bounceType: "soft", bounceCode: "4.3.0" })
  })

  it("a hard bounce suppresses with its code and reason, a soft one does not, and a held recipient emits nothing", () => {
    expect(resolveRecipient(classifyOutcome(outcome("bounced", 550, "5.1.1 User unknown")), 1))
      .toMatchObject({ status: "bounced", event: "email.bounced", suppression: { bounceCode: "5.1.1", bounceReason: "5.1.1 User unknown" } })
    expect(resolveRecipient(classifyOutcome(outcome("bounced", 552, "4.2.2 Mailbox full")), 1).suppression).toBeNull()
    expect(resolveRecipient(classifyOutcome(outcome("unknown", undefined, "connection lost")), 1))
      .toMatchObject({ status: "held", event: null, retry: false })
    expect(resolveRecipient(classifyOutcome(outcome("accepted", 250, "Ok")), 3))
      .toMatchObject({ status: "delivered", event: "email.delivered", retry: false })
  })
})

describe("email events", () => {
  it("carry the envelope fields that apply and the send's metadata", () => {
    const event = emailEvent({
      id: "evt_1", accountId: "acc_1" as AccountId, type: "email.bounced", messageId: "msg_1", recipient: "ada@example.org",
      sender: "news@example.com", subject: "Hello", occurredAt: new Date(0), smtpResponse: "550 5.1.1 unknown",
      bounceType: "hard", bounceReason: "5.1.1 unknown", metadata: { orderId: 7 },
    })
    expect(event).toEqual({
      id: "evt_1", accountId: "acc_1", type: "email.bounced", recipient: "ada@example.org", occurredAt: new Date(0),
      details: {
        messageId: "msg_1", sender: "news@example.com", subject: "Hello", status: "bounced",
        smtpResponse: "550 5.1.1 unknown", bounceType: "hard", bounceReason: "5.1.1 unknown", metadata: { orderId: 7 },
      },
    })
    const queued = emailEvent({
      id: "evt_2", accountId: "acc_1" as AccountId, type: "email.queued", messageId: "msg_1", recipient: "ada@example.org",
      sender: "news@example.com", subject: "Hello", occurredAt: new Date(0), metadata: null,
    })
    expect(Object.keys(queued.details).sort()).toEqual(["messageId", "sender", "status", "subject"])
    expect(queued.details["status"]).toBe("queued")
  })
})
