/** Create, read, update and delete contacts, with every validation rule of POST and PATCH /contacts. Spec: audience
 *  "Contact" (fields), "Contacts" (POST body table, PATCH), "Errors". */
import { describe, expect, it } from "vitest"
import { type Client, expectError } from "./client.js"

/** The fields of the spec's Contact table, plus userId and confirmationFormId. */
export const contactFields = [
  "id", "email", "firstName", "lastName", "phone", "metadata", "source", "status", "subscribedAt", "unsubscribedAt",
  "confirmedAt", "consentSource", "consentAt", "consentIp", "consentUserAgent", "consentText", "tags", "customFields",
  "userId", "confirmationFormId", "createdAt", "updatedAt",
].sort()

const isoDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** Bodies POST /contacts refuses, with the field each must name. */
const invalidCreates: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
  ["no email", { firstName: "Ada" }, "email"],
  ["an email without a domain", { email: "ada@" }, "email"],
  ["an email with a space", { email: "ada lovelace@example.com" }, "email"],
  ["an email that is not a string", { email: 42 }, "email"],
  ["an email over 254 characters", { email: `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}.com` }, "email"],
  ["a firstName over 100 characters", { email: "a@example.com", firstName: "x".repeat(101) }, "firstName"],
  ["a lastName over 100 characters", { email: "a@example.com", lastName: "x".repeat(101) }, "lastName"],
  ["a phone that is not E.164", { email: "a@example.com", phone: "555-0100" }, "phone"],
  ["metadata over 4 KB", { email: "a@example.com", metadata: { blob: "x".repeat(4100) } }, "metadata"],
  ["metadata that is not an object", { email: "a@example.com", metadata: "vip" }, "metadata"],
  ["an unknown source", { email: "a@example.com", source: "WEBSITE" }, "source"],
  ["an unknown status", { email: "a@example.com", status: "SUBSCRIBED" }, "status"],
  ["51 tags", { email: "a@example.com", tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, "tags"],
  ["a tag with a space", { email: "a@example.com", tags: ["ok", "not ok"] }, "tags.1"],
  ["a tag over 50 characters", { email: "a@example.com", tags: ["x".repeat(51)] }, "tags.0"],
  ["a custom field that is not a string", { email: "a@example.com", customFields: { plan: 3 } }, "customFields.plan"],
  ["an unknown field", { email: "a@example.com", nickname: "Ada" }, "nickname"],
  ["tags given as a string", { email: "a@example.com", tags: "vip" }, "tags"],
]

export const contactTests = (client: () => Client) => {
  describe("POST /contacts", () => {
    it("creates an ACTIVE, API-sourced contact with exactly the spec's fields", async () => {
      const { key } = await client().account()
      const answer = await client().call("POST", "/v1/contacts", {
        key,
        body: {
          email: "  Ada.Lovelace@Example.COM ",
          firstName: "Ada",
          lastName: "Lovelace",
          phone: "+14155550123",
          metadata: { team: "engines", seats: 2 },
          tags: ["vip", "Beta"],
          customFields: { plan: "gold" },
        },
      })
      expect(answer.status).toBe(201)
      expect(answer.contentType).toMatch(/^application\/json/)
      expect(answer.json.success).toBe(true)
      const contact = answer.json.data
      expect(Object.keys(contact).sort()).toEqual(contactFields)
      expect(contact).toMatchObject({
        email: "ada.lovelace@example.com", firstName: "Ada", lastName: "Lovelace", phone: "+14155550123",
        metadata: { team: "engines", seats: 2 }, source: "API", status: "ACTIVE", unsubscribedAt: null, confirmedAt: null,
        consentSource: null, consentAt: null, consentIp: null, consentUserAgent: null, consentText: null, userId: null,
        confirmationFormId: null,
      })
      for (const field of ["subscribedAt", "createdAt", "updatedAt"]) expect(contact[field]).toMatch(isoDate)
      expect([...contact.tags].map((t: any) => t.tag).sort()).toEqual(["beta", "vip"])
      for (const tag of contact.tags) expect(tag).toEqual({ id: expect.any(String), contactId: contact.id, tag: tag.tag })
      expect(contact.customFields).toEqual([{ id: expect.any(String), contactId: contact.id, key: "plan", value: "gold" }])
      expect(await client().read(key, contact.id)).toEqual(contact)
    })

    it.each(["PENDING", "ACTIVE", "UNSUBSCRIBED", "BOUNCED", "COMPLAINED", "CLEANED"])("accepts status %s", async (status) => {
      const { key } = await client().account()
      expect((await client().contact(key, { email: "s@example.com", status })).status).toBe(status)
    })

    it.each(["MANUAL", "CSV_IMPORT", "API", "FORM", "SYNC"])("accepts source %s", async (source) => {
      const { key } = await client().account()
      expect((await client().contact(key, { email: "s@example.com", source })).source).toBe(source)
    })

    it.each(invalidCreates)("refuses %s with VALIDATION_ERROR naming the field, creating nothing", async (_, body, field) => {
      const { key } = await client().account()
      expectError(await client().call("POST", "/v1/contacts", { key, body }), 400, "VALIDATION_ERROR", field)
      expect(await client().count(key)).toBe(0)
    })

    it.each([
      ["malformed JSON", "{\"email\": \"a@example.com\","],
      ["a JSON array", "[{\"email\": \"a@example.com\"}]"],
      ["a JSON string", "\"a@example.com\""],
      ["an empty body", ""],
    ])("refuses %s with VALIDATION_ERROR, creating nothing", async (_, raw) => {
      const { key } = await client().account()
      const answer = await client().call("POST", "/v1/contacts", { key, raw, headers: { "content-type": "application/json" } })
      expectError(answer, 400, "VALIDATION_ERROR")
      expect(await client().count(key)).toBe(0)
    })

    it("answers 409 DUPLICATE_CONTACT for an address the account holds, whatever its case", async () => {
      const { key } = await client().account()
      const first = await client().contact(key, { email: "grace@example.com", firstName: "Grace" })
      expectError(await client().call("POST", "/v1/contacts", { key, body: { email: " GRACE@example.com", firstName: "Other" } }), 409, "DUPLICATE_CONTACT")
      expect(await client().count(key)).toBe(1)
      expect(await client().read(key, first.id)).toEqual(first)
    })

    it("lets two accounts hold the same address", async () => {
      const a = await client().account()
      const b = await client().account()
      await client().contact(a.key, { email: "shared@example.com" })
      expect((await client().contact(b.key, { email: "shared@example.com" })).email).toBe("shared@example.com")
    })
  })

  describe("GET and DELETE /contacts/{id}", () => {
    it("answers 404 RESOURCE_NOT_FOUND for an unknown id", async () => {
      const { key } = await client().account()
      expectError(await client().call("GET", "/v1/contacts/ct_does_not_exist", { key }), 404, "RESOURCE_NOT_FOUND")
    })

    it("deletes a contact with its tags, answering data.message; a second delete is 404", async () => {
      const { key } = await client().account()
      const contact = await client().contact(key, { email: "gone@example.com", tags: ["old"] })
      const answer = await client().call("DELETE", `/v1/contacts/${contact.id}`, { key })
      expect(answer.status).toBe(200)
      expect(answer.json).toEqual({ success: true, data: { message: expect.any(String) } })
      expectError(await client().call("GET", `/v1/contacts/${contact.id}`, { key }), 404, "RESOURCE_NOT_FOUND")
      expectError(await client().call("DELETE", `/v1/contacts/${contact.id}`, { key }), 404, "RESOURCE_NOT_FOUND")
      expect((await client().call("GET", "/v1/contacts/tags", { key })).json.data).toEqual([])
      expect(await client().count(key)).toBe(0)
    })
  })

  describe("PATCH /contacts/{id}", () => {
    it("changes only the fields sent", async () => {
      const { key } = await client().account()
      const contact = await client().contact(key, { email: "ada@example.com", firstName: "Ada", lastName: "Byron", phone: "+442071234567" })
      const answer = await client().call("PATCH", `/v1/contacts/${contact.id}`, { key, body: { lastName: "Lovelace", phone: null } })
      expect(answer.status).toBe(200)
      expect(answer.json.data).toEqual({ ...contact, lastName: "Lovelace", phone: null, updatedAt: expect.any(String) })
      expect(await client().read(key, contact.id)).toEqual(answer.json.data)
    })

    it("changes the address, lower-cased", async () => {
      const { key } = await client().account()
      const contact = await client().contact(key, { email: "old@example.com" })
      const answer = await client().call("PATCH", `/v1/contacts/${contact.id}`, { key, body: { email: "New@Example.com" } })
      expect(answer.json.data.email).toBe("new@example.com")
    })

    it("answers 409 DUPLICATE_CONTACT when the new address belongs to another contact, changing nothing", async () => {
      const { key } = await client().account()
      await client().contact(key, { email: "taken@example.com" })
      const contact = await client().contact(key, { email: "mine@example.com", firstName: "Mine" })
      const answer = await client().call("PATCH", `/v1/contacts/${contact.id}`, { key, body: { email: "taken@example.com", firstName: "Changed" } })
      expectError(answer, 409, "DUPLICATE_CONTACT")
      expect(await client().read(key, contact.id)).toEqual(contact)
    })

    it.each([
      ["tags (which go through the tag routes)", { tags: ["vip"] }, "tags"],
      ["an unknown field", { nickname: "Ada" }, "nickname"],
      ["a firstName over 100 characters", { firstName: "x".repeat(101) }, "firstName"],
      ["an invalid email", { email: "not-an-address" }, "email"],
      ["a phone that is not E.164", { phone: "0044 20 7123" }, "phone"],
      ["an unknown status", { status: "DELETED" }, "status"],
      ["an unknown source", { source: "EMAIL" }, "source"],
    ])("refuses %s with VALIDATION_ERROR, changing nothing", async (_, body, field) => {
      const { key } = await client().account()
      const contact = await client().contact(key, { email: "ada@example.com", firstName: "Ada" })
      expectError(await client().call("PATCH", `/v1/contacts/${contact.id}`, { key, body: { firstName: "Changed", ...body } }), 400, "VALIDATION_ERROR", field)
      expect(await client().read(key, contact.id)).toEqual(contact)
    })

    it("refuses malformed JSON with VALIDATION_ERROR, changing nothing", async () => {
      const { key } = await client().account()
      const contact = await client().contact(key, { email: "ada@example.com" })
      const answer = await client().call("PATCH", `/v1/contacts/${contact.id}`, { key, raw: "{firstName: Ada}", headers: { "content-type": "application/json" } })
      expectError(answer, 400, "VALIDATION_ERROR")
      expect(await client().read(key, contact.id)).toEqual(contact)
    })

    it("answers 404 RESOURCE_NOT_FOUND for an unknown id", async () => {
      const { key } = await client().account()
      expectError(await client().call("PATCH", "/v1/contacts/ct_unknown", { key, body: { firstName: "X" } }), 404, "RESOURCE_NOT_FOUND")
    })
  })
}
