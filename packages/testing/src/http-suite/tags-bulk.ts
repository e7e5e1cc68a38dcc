/** Tags (add, remove, the account's tag list, the 50-tag limit) and bulk create / delete. Spec: audience "Contacts"
 *  (tag routes, POST and DELETE /contacts/bulk), "Limits". */
import { describe, expect, it } from "vitest"
import { type Client, expectError } from "./client.js"

const tagNames = (contact: any): Array<string> => contact.tags.map((t: any) => t.tag).sort()
const fiftyTags = Array.from({ length: 50 }, (_, i) => `tag-${i}`)

export const tagAndBulkTests = (client: () => Client) => {
  describe("tags", () => {
    it("adds tags, keeping existing ones and folding duplicates and case", async () => {
      const { key } = await client().account()
      const contact = await client().contact(key, { email: "t@example.com", tags: ["vip"] })
      const answer = await client().call("POST", `/v1/contacts/${contact.id}/tags`, { key, body: { tags: ["VIP", "beta", "beta", "new_one"] } })
      expect(answer.status, answer.text).toBe(200)
      expect(answer.json.success).toBe(true)
      expect(tagNames(answer.json.data)).toEqual(["beta", "new_one", "vip"])
      expect(answer.json.data.tags.find((t: any) => t.tag === "vip").id).toBe(contact.tags[0].id)
    })

    it("removes one tag", async () => {
      const { key } = await client().account()
      const contact = await client().contact(key, { email: "t@example.com", tags: ["vip", "beta"] })
      const answer = await client().call("DELETE", `/v1/contacts/${contact.id}/tags/vip`, { key })
      expect(answer.status).toBe(200)
      expect(tagNames(answer.json.data)).toEqual(["beta"])
      expect(tagNames(await client().read(key, contact.id))).toEqual(["beta"])
    })

    it("lists the account's tags with their counts", async () => {
      const { key } = await client().account()
      await client().contact(key, { email: "a@example.com", tags: ["vip", "beta"] })
      await client().contact(key, { email: "b@example.com", tags: ["vip"] })
      const other = await client().account()
      await client().contact(other.key, { email: "c@example.com", tags: ["vip", "foreign"] })
      const answer = await client().call("GET", "/v1/contacts/tags", { key })
      expect(answer.status).toBe(200)
      expect({ success: answer.json.success, data: [...answer.json.data].sort((a: any, b: any) => a.name.localeCompare(b.name)) }).toEqual({
        success: true,
        data: [
          { name: "beta", count: 1, color: null, definitionId: null },
          { name: "vip", count: 2, color: null, definitionId: null },
        ],
      })
    })

    it("answers 400 TAG_LIMIT_EXCEEDED when a contact would hold more than 50 tags, changing nothing", async () => {
      const { key } = await client().account()
      const contact = await client().contact(key, { email: "full@example.com", tags: fiftyTags })
      expect(contact.tags).toHaveLength(50)
      expectError(await client().call("POST", `/v1/contacts/${contact.id}/tags`, { key, body: { tags: ["one-more"] } }), 400, "TAG_LIMIT_EXCEEDED")
      expect(tagNames(await client().read(key, contact.id))).toEqual([...fiftyTags].sort())
      const again = await client().call("POST", `/v1/contacts/${contact.id}/tags`, { key, body: { tags: ["tag-0", "tag-49"] } })
      expect(again.status, again.text).toBe(200)
    })

    it.each([
      ["no tags", { tags: [] }, "tags"],
      ["51 tags", { tags: Array.from({ length: 51 }, (_, i) => `n${i}`) }, "tags"],
      ["a tag with a slash", { tags: ["a/b"] }, "tags.0"],
      ["an unknown field", { tags: ["ok"], colour: "red" }, "colour"],
    ])("refuses %s with VALIDATION_ERROR, changing nothing", async (_, body, field) => {
      const { key } = await client().account()
      const contact = await client().contact(key, { email: "t@example.com", tags: ["keep"] })
      expectError(await client().call("POST", `/v1/contacts/${contact.id}/tags`, { key, body }), 400, "VALIDATION_ERROR", field)
      expect(await client().read(key, contact.id)).toEqual(contact)
    })

    it("answers 404 for a tag the contact does not hold and for an unknown contact", async () => {
      const { key } = await client().account()
      const contact = await client().contact(key, { email: "t@example.com", tags: ["keep"] })
      expectError(await client().call("DELETE", `/v1/contacts/${contact.id}/tags/absent`, { key }), 404, "RESOURCE_NOT_FOUND")
      expectError(await client().call("POST", "/v1/contacts/ct_unknown/tags", { key, body: { tags: ["x"] } }), 404, "RESOURCE_NOT_FOUND")
      expectError(await client().call("DELETE", "/v1/contacts/ct_unknown/tags/keep", { key }), 404, "RESOURCE_NOT_FOUND")
      expect(await client().read(key, contact.id)).toEqual(contact)
    })
  })

  describe("POST /contacts/bulk", () => {
    it("creates new addresses and skips existing ones by default, without updating them", async () => {
      const { key } = await client().account()
      const existing = await client().contact(key, { email: "old@example.com", firstName: "Old" })
      const answer = await client().call("POST", "/v1/contacts/bulk", {
        key,
        body: { contacts: [{ email: "new1@example.com" }, { email: "OLD@example.com", firstName: "New" }, { email: "new2@example.com", status: "PENDING" }] },
      })
      expect({ status: answer.status, body: answer.json }).toEqual({ status: 200, body: { success: true, data: { created: 2, skipped: 1, errors: [] } } })
      expect(await client().read(key, existing.id)).toEqual(existing)
      expect(await client().count(key)).toBe(3)
      expect(await client().count(key, "status=PENDING")).toBe(1)
    })

    it("reports duplicates in errors with skipDuplicates false", async () => {
      const { key } = await client().account()
      await client().contact(key, { email: "old@example.com" })
      const answer = await client().call("POST", "/v1/contacts/bulk", {
        key,
        body: { skipDuplicates: false, contacts: [{ email: "old@example.com" }, { email: "fresh@example.com" }] },
      })
      expect(answer.json.data).toEqual({ created: 1, skipped: 0, errors: [{ email: "old@example.com", error: expect.any(String) }] })
    })

    it.each([
      ["no contacts", { contacts: [] }, "contacts"],
      ["1,001 contacts", { contacts: Array.from({ length: 1001 }, (_, i) => ({ email: `c${i}@example.com` })) }, "contacts"],
      ["an invalid item", { contacts: [{ email: "ok@example.com" }, { email: "broken" }] }, "contacts.1.email"],
      ["an unknown field in an item", { contacts: [{ email: "ok@example.com", nickname: "x" }] }, "contacts.0.nickname"],
      ["a skipDuplicates that is not a boolean", { contacts: [{ email: "ok@example.com" }], skipDuplicates: "yes" }, "skipDuplicates"],
    ])("refuses %s with VALIDATION_ERROR, creating nothing", async (_, body, field) => {
      const { key } = await client().account({ plan: "pro" })
      expectError(await client().call("POST", "/v1/contacts/bulk", { key, body }), 400, "VALIDATION_ERROR", field)
      expect(await client().count(key)).toBe(0)
    })

    it("accepts 1,000 contacts", async () => {
      const { key } = await client().account({ plan: "pro" })
      const contacts = Array.from({ length: 1000 }, (_, i) => ({ email: `c${i}@example.com` }))
      const answer = await client().call("POST", "/v1/contacts/bulk", { key, body: { contacts } })
      expect(answer.json.data).toEqual({ created: 1000, skipped: 0, errors: [] })
    })
  })

  describe("DELETE /contacts/bulk", () => {
    it("deletes the account's contacts and ignores unknown and foreign ids", async () => {
      const { key } = await client().account()
      const other = await client().account()
      const mine = [await client().contact(key, { email: "a@example.com" }), await client().contact(key, { email: "b@example.com" })]
      const kept = await client().contact(key, { email: "c@example.com" })
      const foreign = await client().contact(other.key, { email: "a@example.com" })
      const answer = await client().call("DELETE", "/v1/contacts/bulk", { key, body: { contactIds: [...mine.map((c) => c.id), foreign.id, "ct_unknown"] } })
      expect({ status: answer.status, body: answer.json }).toEqual({ status: 200, body: { success: true, data: { deleted: 2, requested: 4 } } })
      expect(await client().read(other.key, foreign.id)).toEqual(foreign)
      expect(await client().read(key, kept.id)).toEqual(kept)
      expect(await client().count(key)).toBe(1)
    })

    it.each([
      ["no ids", { contactIds: [] }, "contactIds"],
      ["1,001 ids", { contactIds: Array.from({ length: 1001 }, (_, i) => `ct_${i}`) }, "contactIds"],
      ["ids that are not strings", { contactIds: [42] }, "contactIds.0"],
      ["an unknown field", { contactIds: ["ct_1"], ids: ["ct_1"] }, "ids"],
    ])("refuses %s with VALIDATION_ERROR, deleting nothing", async (_, body, field) => {
      const { key } = await client().account()
      await client().contact(key, { email: "a@example.com" })
      expectError(await client().call("DELETE", "/v1/contacts/bulk", { key, body }), 400, "VALIDATION_ERROR", field)
      expect(await client().count(key)).toBe(1)
    })
  })
}
