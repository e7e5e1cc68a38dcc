import { Either, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type ContactStatus, contactStatuses, decideSubscribe, decideTopic, decideUnsubscribeAll, eligibilityChecks,
  ineligibility, type RecipientFacts, splitEligibility, type SubscribeFacts, type SuppressionReason,
  suppressionReasons, unsubscribedEvent, type EmailAddress, UnsubscribeScopeInput, decodeInputEither,
} from "../../src/index.js"

const at = new Date("2024-06-01T00:00:00.000Z")
const request = { doubleOptIn: false, resubscribe: false, consent: undefined, requestIp: "203.0.113.9", consentSource: "api" }
const facts = (overrides: Partial<SubscribeFacts> = {}): SubscribeFacts =>
  ({ contactStatus: null, hasConsent: false, suppression: null, ...overrides })

const codeOf = (result: Either.Either<unknown, { readonly code: string }>) =>
  Either.match(result, { onLeft: (error) => error.code, onRight: () => "OK" })

describe("send-time eligibility: the spec's table", () => {
  const noFacts: RecipientFacts = { contactStatus: null, suppression: null, optedOut: false }
  // [blocking fact, marketing blocked, transactional blocked]
  const table: ReadonlyArray<readonly [string, Partial<RecipientFacts>, boolean, boolean]> = [
    ["Bounce suppression", { suppression: "Bounce" }, true, true],
    ["Complaint suppression", { suppression: "Complaint" }, true, true],
    ["Unsubscribe suppression", { suppression: "Unsubscribe" }, true, false],
    ["Manual suppression", { suppression: "Manual" }, true, false],
    ["contact UNSUBSCRIBED", { contactStatus: "UNSUBSCRIBED" }, true, false],
    ["contact BOUNCED", { contactStatus: "BOUNCED" }, true, true],
    ["contact COMPLAINED", { contactStatus: "COMPLAINED" }, true, true],
    ["contact CLEANED", { contactStatus: "CLEANED" }, true, true],
    ["contact ACTIVE", { contactStatus: "ACTIVE" }, false, false],
    ["contact PENDING", { contactStatus: "PENDING" }, false, false],
    ["no contact, no suppression", {}, false, false],
    ["opted out of the topic", { optedOut: true }, true, false],
  ]
  it.each(table)("%s: marketing blocked %s, transactional blocked %s", (_, fact, marketing, transactional) => {
    const recipient = { ...noFacts, ...fact }
    expect(ineligibility({ kind: "marketing", topicId: "grp_1" }, recipient) !== undefined).toBe(marketing)
    expect(ineligibility({ kind: "transactional", topicId: "grp_1" }, recipient) !== undefined).toBe(transactional)
  })

  it("a topic opt-out blocks only mail sent under a topic", () => {
    const optedOut = { ...noFacts, optedOut: true }
    expect(ineligibility({ kind: "marketing", topicId: null }, optedOut)).toBeUndefined()
    expect(ineligibility({ kind: "marketing", topicId: "grp_1" }, optedOut)).toBe("TOPIC_OPT_OUT")
  })

  it("names the first reason of the table when several apply", () => {
    const recipient: RecipientFacts = { contactStatus: "UNSUBSCRIBED", suppression: "Complaint", optedOut: true }
    expect(ineligibility({ kind: "marketing", topicId: "grp_1" }, recipient)).toBe("COMPLAINT_SUPPRESSION")
    expect(ineligibility({ kind: "marketing", topicId: "grp_1" }, { ...recipient, suppression: null })).toBe("CONTACT_UNSUBSCRIBED")
  })

  it("splits candidates in order, once each, with the reason of every dropped one", () => {
    const a = "a@example.com" as EmailAddress
    const b = "b@example.com" as EmailAddress
    const c = "c@example.com" as EmailAddress
    expect(splitEligibility([a, b, a, c], new Map([[b, "MANUAL_SUPPRESSION" as const]]))).toEqual({
      eligible: [a, c], dropped: [{ email: b, reason: "MANUAL_SUPPRESSION" }],
    })
  })

  const recipientFacts = fc.record({
    contactStatus: fc.constantFrom<ContactStatus | null>(null, ...contactStatuses),
    suppression: fc.constantFrom<SuppressionReason | null>(null, ...suppressionReasons),
    optedOut: fc.boolean(),
  })
  const topicId = fc.constantFrom(null, "grp_1")

  it("transactional mail ignores unsubscribes and topic opt-outs, and nothing else the table names for it", () => {
    const ignoredByTransactional = new Set(["UNSUBSCRIBE_SUPPRESSION", "CONTACT_UNSUBSCRIBED", "TOPIC_OPT_OUT", "MANUAL_SUPPRESSION"])
    fc.assert(fc.property(recipientFacts, topicId, (recipient, topic) => {
      const marketing = ineligibility({ kind: "marketing", topicId: topic }, recipient)
      const transactional = ineligibility({ kind: "transactional", topicId: topic }, recipient)
      // Whatever blocks transactional mail blocks marketing mail too.
      if (transactional !== undefined) expect(marketing).toBeDefined()
      // Transactional mail is blocked exactly when a fact other than the ignored ones holds.
      const blocking = eligibilityChecks.filter((check) =>
        !ignoredByTransactional.has(check.reason)
        && ineligibility({ kind: "marketing", topicId: topic }, { ...recipient }) !== undefined
        && (check.fact.kind === "suppression" ? recipient.suppression === check.fact.reason
          : check.fact.kind === "status" ? recipient.contactStatus === check.fact.status
          : false))
      expect(transactional !== undefined).toBe(blocking.length > 0)
      // Removing unsubscribes and opt-outs never changes the transactional answer.
      const withoutUnsubscribes: RecipientFacts = {
        contactStatus: recipient.contactStatus === "UNSUBSCRIBED" ? "ACTIVE" : recipient.contactStatus,
        suppression: recipient.suppression === "Unsubscribe" ? null : recipient.suppression,
        optedOut: false,
      }
      expect(ineligibility({ kind: "transactional", topicId: topic }, withoutUnsubscribes)).toBe(transactional)
    }))
  })

  it("marketing mail is blocked by every fact of the table", () => {
    fc.assert(fc.property(recipientFacts, (recipient) => {
      const blocked = recipient.suppression !== null || recipient.optedOut
        || ["UNSUBSCRIBED", "BOUNCED", "COMPLAINED", "CLEANED"].includes(recipient.contactStatus ?? "")
      expect(ineligibility({ kind: "marketing", topicId: "grp_1" }, recipient) !== undefined).toBe(blocked)
    }))
  })
})

describe("subscribe: the spec's decision table", () => {
  // [contact status, suppression, resubscribe, expected code or status]
  const table: ReadonlyArray<readonly [ContactStatus | null, SuppressionReason | null, boolean, string]> = [
    [null, null, false, "ACTIVE"],
    ["ACTIVE", null, false, "ACTIVE"],
    ["PENDING", null, false, "ACTIVE"],
    ["UNSUBSCRIBED", null, false, "RECIPIENT_UNSUBSCRIBED"],
    ["UNSUBSCRIBED", null, true, "ACTIVE"],
    ["UNSUBSCRIBED", "Unsubscribe", true, "ACTIVE"],
    [null, "Unsubscribe", false, "RECIPIENT_UNSUBSCRIBED"],
    [null, "Unsubscribe", true, "ACTIVE"],
    [null, "Manual", false, "RECIPIENT_UNSUBSCRIBED"],
    [null, "Manual", true, "RECIPIENT_SUPPRESSED"],
    [null, "Bounce", true, "RECIPIENT_SUPPRESSED"],
    [null, "Complaint", true, "RECIPIENT_SUPPRESSED"],
    ["BOUNCED", null, true, "RECIPIENT_SUPPRESSED"],
    ["COMPLAINED", null, true, "CONTACT_BLOCKED"],
    ["CLEANED", null, true, "CONTACT_BLOCKED"],
    ["ACTIVE", "Bounce", false, "RECIPIENT_SUPPRESSED"],
  ]
  it.each(table)("contact %s, suppression %s, resubscribe %s: %s", (status, suppression, resubscribe, expected) => {
    const result = decideSubscribe("ada@example.com", facts({ contactStatus: status, suppression }), { ...request, resubscribe }, at)
    expect(Either.match(result, { onLeft: (error) => error.code, onRight: (decision) => decision.status })).toBe(expected)
  })

  it("double opt-in leaves a contact that is not ACTIVE PENDING and is ignored for an ACTIVE one", () => {
    const ask = { ...request, doubleOptIn: true }
    expect(Either.getOrThrow(decideSubscribe("a@x.io", facts(), ask, at))).toMatchObject({ status: "PENDING", requiresConfirmation: true })
    expect(Either.getOrThrow(decideSubscribe("a@x.io", facts({ contactStatus: "PENDING" }), ask, at)).status).toBe("PENDING")
    expect(Either.getOrThrow(decideSubscribe("a@x.io", facts({ contactStatus: "ACTIVE" }), ask, at)))
      .toMatchObject({ status: "ACTIVE", requiresConfirmation: false })
    expect(Either.getOrThrow(decideSubscribe("a@x.io", facts({ contactStatus: "UNSUBSCRIBED" }), { ...ask, resubscribe: true }, at)).status)
      .toBe("PENDING")
  })

  it("records consent at creation, at resubscription, or when there was none, and never overwrites it otherwise", () => {
    const consent = { ip: "198.51.100.1", userAgent: "UA", text: "Yes please" }
    const created = Either.getOrThrow(decideSubscribe("a@x.io", facts(), { ...request, consent }, at))
    expect(created.consent).toEqual({
      consentSource: "api", consentAt: at, consentIp: "198.51.100.1", consentUserAgent: "UA", consentText: "Yes please",
    })
    expect(Either.getOrThrow(decideSubscribe("a@x.io", facts({ contactStatus: "ACTIVE", hasConsent: true }), { ...request, consent }, at)).consent)
      .toBeUndefined()
    expect(Either.getOrThrow(decideSubscribe("a@x.io", facts({ contactStatus: "ACTIVE", hasConsent: false }), { ...request, consent }, at)).consent)
      .toBeDefined()
    const back = Either.getOrThrow(decideSubscribe("a@x.io", facts({ contactStatus: "UNSUBSCRIBED", hasConsent: true }), { ...request, resubscribe: true }, at))
    expect(back.consent).toMatchObject({ consentIp: "203.0.113.9", consentAt: at })
    expect(back.liftSuppression).toBe(false)
  })

  const anyFacts = fc.record({
    contactStatus: fc.constantFrom<ContactStatus | null>(null, ...contactStatuses),
    hasConsent: fc.boolean(),
    suppression: fc.constantFrom<SuppressionReason | null>(null, ...suppressionReasons),
  })
  const anyRequest = fc.record({ doubleOptIn: fc.boolean(), resubscribe: fc.boolean() })

  it("a Bounce, Complaint or Manual suppression is never lifted by a subscribe", () => {
    fc.assert(fc.property(anyFacts, anyRequest, (known, asked) => {
      const result = decideSubscribe("a@x.io", known, { ...request, ...asked }, at)
      if (known.suppression === "Bounce" || known.suppression === "Complaint" || known.suppression === "Manual") {
        expect(Either.isLeft(result)).toBe(true)
      }
      if (Either.isRight(result)) expect(result.right.liftSuppression).toBe(known.suppression === "Unsubscribe")
    }))
  })

  it("an unsubscribed address is never re-added without resubscribe: true", () => {
    fc.assert(fc.property(anyFacts, fc.boolean(), (known, doubleOptIn) => {
      const unsubscribed = known.contactStatus === "UNSUBSCRIBED" || known.suppression === "Unsubscribe"
      const result = decideSubscribe("a@x.io", known, { ...request, doubleOptIn, resubscribe: false }, at)
      if (unsubscribed) expect(codeOf(result)).not.toBe("OK")
    }))
  })

  it("COMPLAINED and CLEANED are terminal for subscribe", () => {
    fc.assert(fc.property(anyFacts, anyRequest, (known, asked) => {
      fc.pre(known.contactStatus === "COMPLAINED" || known.contactStatus === "CLEANED")
      expect(codeOf(decideSubscribe("a@x.io", known, { ...request, ...asked }, at))).toBe("CONTACT_BLOCKED")
    }))
  })
})

describe("unsubscribe scope as requests send it", () => {
  it.each([
    ["all", "all"], ["list", "list"], ["topic", "topic"], ["ALL", "all"], ["List", "list"], ["TOPIC", "topic"],
    ["category", "topic"], ["Category", "topic"],
  ] as const)("%s reads as %s", (sent, scope) => {
    expect(Schema.decodeUnknownSync(UnsubscribeScopeInput)(sent)).toBe(scope)
  })

  it.each(["everything", "", "topics", "group"])("%s is refused, naming the accepted values", (sent) => {
    const decoded = decodeInputEither(Schema.Struct({ scope: UnsubscribeScopeInput }), { scope: sent })
    expect(Either.isLeft(decoded) && [decoded.left.field, decoded.left.message])
      .toEqual(["scope", "scope: must be all, list or topic (any case; category for topic)"])
  })
})

describe("unsubscribe from all and topics", () => {
  const table: ReadonlyArray<readonly [ContactStatus | null, SuppressionReason | null, string | undefined, boolean, boolean]> = [
    ["ACTIVE", null, "UNSUBSCRIBED", true, true],
    ["PENDING", null, "UNSUBSCRIBED", true, true],
    ["UNSUBSCRIBED", "Unsubscribe", undefined, false, false],
    ["UNSUBSCRIBED", null, undefined, true, true],
    [null, null, undefined, true, true],
    [null, "Unsubscribe", undefined, false, false],
    ["ACTIVE", "Bounce", "UNSUBSCRIBED", false, true],
    ["BOUNCED", "Bounce", undefined, false, false],
    ["COMPLAINED", null, undefined, true, true],
    [null, "Manual", undefined, false, false],
  ]
  it.each(table)("contact %s with suppression %s: status %s, adds suppression %s, changed %s",
    (status, suppression, next, adds, changed) => {
      expect(decideUnsubscribeAll(status, suppression)).toEqual({ status: next, addSuppression: adds, changed })
    })

  it("keeps every existing suppression", () => {
    fc.assert(fc.property(
      fc.constantFrom<ContactStatus | null>(null, ...contactStatuses),
      fc.constantFrom<SuppressionReason | null>(null, ...suppressionReasons),
      (status, suppression) => {
        if (suppression !== null) expect(decideUnsubscribeAll(status, suppression).addSuppression).toBe(false)
      },
    ))
  })

  it.each([
    [true, true, false, true], [true, false, true, false], [false, true, false, false], [false, false, true, true],
  ])("opted out %s, subscribe %s: opted out afterwards %s, changed %s", (optedOut, subscribed, after, changed) => {
    expect(decideTopic(optedOut, subscribed)).toEqual({ optedOut: after, changed })
  })

  it("contact.unsubscribed carries exactly the spec's details", () => {
    const base = { id: "evt_1", accountId: "acc_1" as never, occurredAt: at }
    expect(unsubscribedEvent(base, {
      email: "a@x.io", contactId: null, scope: "topic", listId: "lst_1", topicId: "grp_1", method: "one_click",
    }).details).toEqual({
      contactEmail: "a@x.io", contactId: null, scope: "topic", listId: null, topicId: "grp_1", method: "one_click",
      category: "grp_1",
    })
    expect(unsubscribedEvent(base, {
      email: "a@x.io", contactId: "ct_1", scope: "all", listId: null, topicId: null, method: "api", reason: "too much",
    }).details).toEqual({
      contactEmail: "a@x.io", contactId: "ct_1", scope: "all", listId: null, topicId: null, method: "api",
      reason: "too much", category: null,
    })
  })
})
