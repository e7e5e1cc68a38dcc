import { type Contact, type ContactId, type AccountId, type EmailAddress } from "@mailroom/core"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { encodeContact } from "../src/index.js"

const at = new Date("2025-03-01T10:20:30.456Z")
const contact: Contact = {
  id: "ct_1" as ContactId,
  accountId: "acc_1" as AccountId,
  email: "ada@example.com" as EmailAddress,
  firstName: "Ada",
  lastName: null,
  phone: null,
  metadata: { seats: 2 },
  source: "FORM",
  status: "PENDING",
  subscribedAt: at,
  unsubscribedAt: null,
  confirmedAt: new Date("2025-03-02T00:00:00.000Z"),
  consentSource: "form",
  consentAt: at,
  consentIp: "203.0.113.9",
  consentUserAgent: "Mozilla/5.0",
  consentText: "Signup form: Newsletter",
  tags: [{ id: "tag_1", contactId: "ct_1" as ContactId, tag: "vip" }],
  customFields: [{ id: "cf_1", contactId: "ct_1" as ContactId, key: "plan", value: "gold" }],
  createdAt: at,
  updatedAt: at,
}

describe("a contact as the API answers it", () => {
  it("has exactly the fields of the spec's Contact table, dates in ISO 8601, and no account id", async () => {
    expect(await Effect.runPromise(encodeContact(contact))).toStrictEqual({
      id: "ct_1",
      email: "ada@example.com",
      firstName: "Ada",
      lastName: null,
      phone: null,
      metadata: { seats: 2 },
      source: "FORM",
      status: "PENDING",
      subscribedAt: "2025-03-01T10:20:30.456Z",
      unsubscribedAt: null,
      confirmedAt: "2025-03-02T00:00:00.000Z",
      consentSource: "form",
      consentAt: "2025-03-01T10:20:30.456Z",
      consentIp: "203.0.113.9",
      consentUserAgent: "Mozilla/5.0",
      consentText: "Signup form: Newsletter",
      tags: [{ id: "tag_1", contactId: "ct_1", tag: "vip" }],
      customFields: [{ id: "cf_1", contactId: "ct_1", key: "plan", value: "gold" }],
      userId: null,
      confirmationFormId: null,
      createdAt: "2025-03-01T10:20:30.456Z",
      updatedAt: "2025-03-01T10:20:30.456Z",
    })
  })
})
