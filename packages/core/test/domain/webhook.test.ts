import { createHmac } from "node:crypto"
import { Duration, Either, Option } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  addressProblem, afterAttempt, checkAddresses, checkEventTypes, defaultFailureSettings, displaySecret, eventTypes,
  healthBadge, isSuccessStatus, makeSecret, maxAttempts, parseWebhookUrl, signBody, signedHeaders,
  standardSignature, successRate, webhookEnvelope, webhookRetryPolicy, secretPrefixLength, checkWebhookPlan,
  checkEndpointRoom, type Plan,
} from "../../src/index.js"

const relaxed = { allowPrivate: true }

describe("event types", () => {
  it("accepts every type of the spec's table and drops repeats", () => {
    expect(Either.getOrThrow(checkEventTypes([...eventTypes, "email.delivered"]))).toEqual(eventTypes)
  })

  it.each(["email.sent", "Email.delivered", "contact.*", ""])("refuses %j with WEBHOOK_EVENT_UNKNOWN", (type) => {
    const error = Either.getLeft(checkEventTypes(["email.delivered", type])).pipe(Option.getOrThrow)
    expect(error.code).toBe("WEBHOOK_EVENT_UNKNOWN")
    expect(error.message).toContain(type)
  })

  it("refuses a subscription to webhook.retry, which is received but not subscribed to", () => {
    const error = Either.getLeft(checkEventTypes(["webhook.retry"])).pipe(Option.getOrThrow)
    expect(error.code).toBe("VALIDATION_ERROR")
    expect(error.message).toMatch(/cannot be subscribed/)
  })

  it("refuses an empty subscription", () => {
    expect(Either.getLeft(checkEventTypes([])).pipe(Option.getOrThrow).code).toBe("VALIDATION_ERROR")
  })
})

describe("URL rules", () => {
  it.each([
    ["https://hooks.example.com/in", "hooks.example.com"],
    ["https://hooks.example.com:443/in?x=1", "hooks.example.com"],
    ["https://8.8.8.8/in", "8.8.8.8"],
    ["https://[2606:4700:4700::1111]/in", "2606:4700:4700::1111"],
  ])("accepts %s", (url, hostname) => {
    const target = Either.getOrThrow(parseWebhookUrl(url))
    expect(target.hostname).toBe(hostname)
    expect(target.port).toBe(443)
  })

  it.each([
    ["http://hooks.example.com/in", /https/],
    ["https://hooks.example.com:8443/in", /port 443/],
    ["https://user:pass@hooks.example.com/in", /credentials/],
    ["https://user@hooks.example.com/in", /credentials/],
    ["not a url", /valid URL/],
    ["ftp://hooks.example.com/", /https/],
    ["https://127.0.0.1/in", /loopback/],
    ["https://10.1.2.3/in", /private/],
    ["https://192.168.0.1/in", /private/],
    ["https://172.16.0.1/in", /private/],
    ["https://169.254.169.254/latest", /linkLocal/],
    ["https://0.0.0.0/", /unspecified/],
    ["https://240.0.0.1/", /reserved/],
    ["https://[::1]/", /loopback/],
    ["https://[fd00::1]/", /uniqueLocal/],
    ["https://[fe80::1]/", /linkLocal/],
    ["https://[::ffff:10.0.0.1]/", /IPv4-mapped/],
    ["https://[::ffff:8.8.8.8]/", /IPv4-mapped/],
    ["https://2130706433/", /loopback/],
    [`https://example.com/${"a".repeat(2100)}`, /2048/],
  ])("refuses %s", (url, reason) => {
    expect(Either.getLeft(parseWebhookUrl(url)).pipe(Option.getOrThrow)).toMatch(reason)
  })

  it("relaxed rules accept http, any port and loopback or private literals, and nothing else", () => {
    expect(Either.getOrThrow(parseWebhookUrl("http://127.0.0.1:8080/in", relaxed)).port).toBe(8080)
    expect(Either.isRight(parseWebhookUrl("http://10.0.0.5/in", relaxed))).toBe(true)
    expect(Either.isRight(parseWebhookUrl("https://[::1]:9000/in", relaxed))).toBe(true)
    expect(Either.isRight(parseWebhookUrl("http://[::ffff:127.0.0.1]:9000/", relaxed))).toBe(true)
    expect(Either.getLeft(parseWebhookUrl("http://169.254.169.254/", relaxed)).pipe(Option.getOrThrow)).toMatch(/linkLocal/)
    expect(Either.getLeft(parseWebhookUrl("ftp://127.0.0.1/", relaxed)).pipe(Option.getOrThrow)).toMatch(/https/)
    expect(Either.getLeft(parseWebhookUrl("http://u:p@127.0.0.1/", relaxed)).pipe(Option.getOrThrow)).toMatch(/credentials/)
  })

  it.each([
    [["93.184.216.34"], true],
    [["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"], true],
    [["93.184.216.34", "10.0.0.1"], false],
    [["2606:2800:220:1::1", "::1"], false],
    [["100.64.0.1"], false],
    [["224.0.0.1"], false],
    [["::ffff:192.168.1.1"], false],
    [[], false],
  ])("addresses %j are acceptable: %s", (addresses, ok) => {
    expect(Either.isRight(checkAddresses("hooks.example.com", addresses))).toBe(ok)
  })

  it("a mix of public and private addresses is refused even when relaxed rules would accept each kind alone", () => {
    expect(Either.isRight(checkAddresses("h", ["127.0.0.1", "8.8.8.8"], relaxed))).toBe(true)
    expect(Either.isLeft(checkAddresses("h", ["127.0.0.1", "169.254.1.1"], relaxed))).toBe(true)
  })

  it("property: an address is accepted strictly only when ipaddr.js calls it unicast", () => {
    fc.assert(fc.property(fc.ipV4(), (address) => {
      const [a, b] = address.split(".").map(Number) as [number, number]
      const privateOrLocal = a === 10 || a === 127 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) ||
        (a === 169 && b === 254) || a === 0 || a >= 224 || (a === 100 && b >= 64 && b <= 127)
      if (privateOrLocal) expect(addressProblem(address)).toBeDefined()
      // Relaxed rules never accept an address that the strict rules refuse for being link-local or reserved.
      if (a === 169 && b === 254) expect(addressProblem(address, relaxed)).toBeDefined()
    }))
  })

  it("property: strict acceptance implies relaxed acceptance", () => {
    fc.assert(fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (address) => {
      if (addressProblem(address) === undefined) expect(addressProblem(address, relaxed)).toBeUndefined()
    }))
  })
})

describe("retry schedule", () => {
  it.each([
    [1, "30 seconds"], [2, "2 minutes"], [3, "15 minutes"], [4, "1 hour"], [5, "4 hours"],
  ] as const)("after failed attempt %i the delivery waits %s", (attempt, wait) => {
    expect(Duration.toMillis(Duration.decode(webhookRetryPolicy.delays[attempt - 1]!))).toBe(Duration.toMillis(Duration.decode(wait)))
  })

  it("gives up after the sixth attempt: five retries", () => {
    expect(webhookRetryPolicy.delays).toHaveLength(5)
    expect(maxAttempts).toBe(6)
  })

  it.each([[200, true], [204, true], [299, true], [199, false], [301, false], [404, false], [500, false]])(
    "status %i is a success: %s", (status, ok) => expect(isSuccessStatus(status)).toBe(ok))
})

describe("failure streaks", () => {
  const settings = { ...defaultFailureSettings, failureThreshold: 3, autoDisableAfter: 5 }
  const run = (outcomes: ReadonlyArray<boolean>, s = settings) => {
    let streak = { consecutiveFailures: 0, notified: false }
    return outcomes.map((ok) => {
      const decision = afterAttempt(s, streak, ok)
      streak = decision.streak
      return decision
    })
  }

  it("notifies once per streak when it reaches failureThreshold and disables at autoDisableAfter", () => {
    const decisions = run([false, false, false, false, false, false])
    expect(decisions.map((d) => d.notify)).toEqual([false, false, true, false, false, false])
    expect(decisions.map((d) => d.disable)).toEqual([false, false, false, false, true, true])
  })

  it("a success ends the streak, and the next streak gets its own notice", () => {
    const decisions = run([false, false, false, true, false, false, false])
    expect(decisions.filter((d) => d.notify)).toHaveLength(2)
  })

  it("a success leaves the same streak whatever the streak and the settings were (a group of successes is recorded without reading its endpoints)", () => {
    const settingsArb = fc.record({
      enabled: fc.boolean(), notifyEmails: fc.constant([]), failureThreshold: fc.integer({ min: 1, max: 100 }), autoDisableAfter: fc.integer({ min: 0, max: 100 }),
    })
    const streakArb = fc.record({ consecutiveFailures: fc.nat({ max: 1_000 }), notified: fc.boolean() })
    fc.assert(fc.property(settingsArb, streakArb, settingsArb, streakArb, (s1, streak1, s2, streak2) => {
      expect(afterAttempt(s1, streak1, true)).toEqual(afterAttempt(s2, streak2, true))
    }))
    expect(afterAttempt(settings, { consecutiveFailures: 7, notified: true }, true)).toEqual({ streak: { consecutiveFailures: 0, notified: false }, notify: false, disable: false })
  })

  it("sends no notice when notices are off, and never disables with autoDisableAfter 0", () => {
    const decisions = run(Array(20).fill(false), { ...settings, enabled: false, autoDisableAfter: 0 })
    expect(decisions.some((d) => d.notify || d.disable)).toBe(false)
  })

  it("property: at most one notice between two successes", () => {
    fc.assert(fc.property(fc.array(fc.boolean(), { maxLength: 60 }), fc.integer({ min: 1, max: 10 }), (outcomes, threshold) => {
      const decisions = run(outcomes, { ...settings, failureThreshold: threshold })
      let notices = 0
      outcomes.forEach((ok, i) => {
        if (ok) notices = 0
        if (decisions[i]!.notify) notices++
        expect(notices).toBeLessThanOrEqual(1)
      })
    }))
  })
})

describe("health badge", () => {
  it.each([
    [100, 100, 0, "healthy"], [100, 95, 0, "healthy"], [100, 94, 0, "degraded"], [100, 80, 0, "degraded"],
    [100, 79, 0, "failing"], [0, 0, 0, "healthy"], [100, 99, 10, "failing"], [100, 99, 9, "healthy"],
  ] as const)("%i deliveries, %i successful, streak %i: %s", (total, ok, streak, badge) => {
    expect(healthBadge({ totalDeliveries: total, successfulDeliveries: ok }, streak)).toBe(badge)
  })

  it("success rate is a percentage with two decimals", () => {
    expect(successRate({ totalDeliveries: 3, successfulDeliveries: 2 })).toBe(66.67)
    expect(successRate({ totalDeliveries: 0, successfulDeliveries: 0 })).toBe(100)
  })
})

describe("plans", () => {
  // Spec: webhooks need the Starter plan or above; endpoints per plan Starter 1, Micro 3, Pro 10, Scale unlimited.
  it.each([
    ["free", 0, "PLAN_UPGRADE_REQUIRED"],
    ["starter", 0, undefined],
    ["starter", 1, "API_KEY_LIMIT_REACHED"],
    ["micro", 2, undefined],
    ["micro", 3, "API_KEY_LIMIT_REACHED"],
    ["pro", 9, undefined],
    ["pro", 10, "API_KEY_LIMIT_REACHED"],
    ["scale", 1000, undefined],
    ["enterprise", 1000, undefined],
  ] as const)("a %s account holding %i endpoints adding one: %s", (plan: Plan, count, code) => {
    const checked = checkEndpointRoom(plan, count)
    expect(Either.isLeft(checked) ? checked.left.code : undefined).toBe(code)
  })

  it("names the Starter plan to a Free account, and the plan's limit to a full one", () => {
    const free = checkWebhookPlan("free")
    expect(Either.isLeft(free) && free.left.message).toBe("the free plan does not include webhooks; webhooks need the Starter plan or above")
    const micro = checkEndpointRoom("micro", 3)
    expect(Either.isLeft(micro) && micro.left.message).toMatch(/^the micro plan allows at most 3 webhook endpoints/)
    expect(Either.isRight(checkWebhookPlan("starter"))).toBe(true)
  })
})

describe("signing", () => {
  const secret = makeSecret("00112233445566778899aabbccddeeff0011223344556677")
  const body = JSON.stringify({ eventType: "email.delivered", messageId: "m1" })

  it("makes whsec_ secrets and lists only a prefix", () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
    expect(displaySecret(secret)).toBe(secret.slice(0, 12))
  })

  it("lists a prefix that is literally the start of the secret, with nothing added", () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 24, maxLength: 24 }), (bytes) => {
      const made = makeSecret(Buffer.from(bytes).toString("hex"))
      const shown = displaySecret(made)
      expect(shown).toHaveLength(secretPrefixLength)
      expect(made.startsWith(shown)).toBe(true)
    }))
  })

  it("X-Service-Signature is the hex HMAC-SHA256 of the raw body keyed with the secret", () => {
    expect(signBody(secret, body)).toBe(createHmac("sha256", secret).update(body).digest("hex"))
  })

  it("signs with both secrets during a rotation, and with one otherwise", () => {
    const at = new Date("2026-01-01T00:00:00Z")
    const request = { eventType: "email.delivered" as const, webhookId: "whd_1", attemptId: "wha_1", body, at }
    const one = signedHeaders({ current: secret, previous: undefined }, request)
    expect(one["x-service-signature-previous"]).toBeUndefined()
    expect(one["webhook-signature"]!.split(" ")).toHaveLength(1)
    expect(one["webhook-timestamp"]).toBe(String(at.getTime() / 1000))
    const previous = makeSecret("ff".repeat(24))
    const two = signedHeaders({ current: secret, previous }, request)
    expect(two["x-service-signature-previous"]).toBe(signBody(previous, body))
    expect(two["webhook-signature"]).toBe(
      `${standardSignature(secret, "whd_1", at.getTime() / 1000, body)} ${standardSignature(previous, "whd_1", at.getTime() / 1000, body)}`)
    expect(two["x-service-event"]).toBe("email.delivered")
    expect(two["x-service-delivery"]).toBe("wha_1")
  })

  it("property: a signature changes when one byte of the body changes", () => {
    fc.assert(fc.property(fc.string({ minLength: 1 }), fc.nat(), (text, at) => {
      const i = at % text.length
      const changed = text.slice(0, i) + String.fromCharCode((text.charCodeAt(i) + 1) % 0xffff) + text.slice(i + 1)
      fc.pre(changed !== text)
      expect(signBody(secret, text)).not.toBe(signBody(secret, changed))
    }))
  })
})

describe("request envelope", () => {
  const at = new Date("2026-03-01T10:00:00Z")

  it("lifts the message's fields of an email delivery event and omits what does not apply", () => {
    expect(webhookEnvelope({
      id: "evt_1", type: "email.bounced", recipient: "ada@example.com", occurredAt: at,
      details: { messageId: "msg_9", sender: "me@example.org", subject: "Hi", status: "bounced", bounceType: "hard", code: 550 },
    })).toEqual({
      eventType: "email.bounced", messageId: "msg_9", timestamp: "2026-03-01T10:00:00.000Z", recipient: "ada@example.com",
      sender: "me@example.org", subject: "Hi", status: "bounced", bounceType: "hard", details: { code: 550 },
    })
  })

  it("gives contact, list and engagement events the event's own id as messageId", () => {
    const envelope = webhookEnvelope({
      id: "evt_2", type: "contact.subscribed", recipient: null, occurredAt: at,
      details: { contactId: "ct_1", email: "ada@example.com", status: "ACTIVE", messageId: "x" },
    })
    expect(envelope).toEqual({
      eventType: "contact.subscribed", messageId: "evt_2", timestamp: "2026-03-01T10:00:00.000Z",
      details: { contactId: "ct_1", email: "ada@example.com", status: "ACTIVE", messageId: "x" },
    })
    expect(webhookEnvelope({ id: "evt_3", type: "email.opened", recipient: "a@b.co", occurredAt: at, details: { messageId: "m" } }).messageId)
      .toBe("evt_3")
  })
})
