/** Text that no backend can store as sent: a NUL character (U+0000), in any string field of a body, a query parameter
 *  or a path id. Every backend answers it alike, 400 VALIDATION_ERROR naming the field or path parameter, and nothing
 *  changes (Postgres text cannot hold a NUL, so the refusal is decided while decoding, before any backend sees it). */
import { describe, expect, it } from "vitest"
import { type Client, expectError, freshEmail } from "./client.js"

const nul = "\u0000"

export const textInputTests = (client: () => Client) => {
  describe("NUL characters", () => {
    /** An account holding one contact, one list and one topic, and what reading them answers. */
    const seeded = async () => {
      const { key } = await client().account({ plan: "pro" })
      const contact = await client().contact(key, { email: freshEmail("nul"), firstName: "Ada" })
      const list = (await client().call("POST", "/v1/contacts/lists", { key, body: { name: "News" } })).json.data
      const topic = (await client().call("POST", "/v1/suppression-groups", { key, body: { name: "Promotions" } })).json.data
      const state = async () => ({
        contacts: (await client().call("GET", "/v1/contacts?limit=100", { key })).json.data,
        lists: (await client().call("GET", "/v1/contacts/lists?type=ALL", { key })).json.data,
        topics: (await client().call("GET", "/v1/suppression-groups", { key })).json.data,
        suppressions: (await client().call("GET", "/v1/suppressions", { key })).json.data,
        webhooks: (await client().call("GET", "/v1/webhooks", { key })).json.webhooks,
      })
      return { key, contact, list, topic, state }
    }

    it("a NUL in a body field answers 400 VALIDATION_ERROR naming the field, and nothing changes", async () => {
      const { key, contact, list, topic, state } = await seeded()
      const before = await state()
      const refusals: ReadonlyArray<readonly [string, string, unknown, string]> = [
        ["PATCH", `/v1/contacts/${contact.id}`, { firstName: `Ada${nul}` }, "firstName"],
        ["PATCH", `/v1/contacts/${contact.id}`, { customFields: { city: `Par${nul}is` } }, "customFields.city"],
        ["PATCH", `/v1/contacts/${contact.id}`, { metadata: { [`no${nul}te`]: 1 } }, "metadata"],
        ["POST", "/v1/contacts", { email: freshEmail("nul"), lastName: nul }, "lastName"],
        ["POST", `/v1/contacts/${contact.id}/tags`, { tags: ["vip", `v${nul}`] }, "tags.1"],
        ["POST", "/v1/contacts/lists", { name: `Weekly${nul}` }, "name"],
        ["PATCH", `/v1/contacts/lists/${list.id}`, { name: `News${nul}` }, "name"],
        ["POST", "/v1/suppression-groups", { name: `Offers${nul}` }, "name"],
        ["PATCH", `/v1/suppression-groups/${topic.id}`, { name: `Promos${nul}`, publicLabel: "Offers" }, "name"],
        ["POST", "/v1/webhooks", { url: "https://hooks.example.com/in", events: ["email.delivered"], description: `orders${nul}` }, "description"],
        ["POST", "/v1/subscriptions", { email: freshEmail("nul"), firstName: `Bo${nul}b` }, "firstName"],
        ["POST", "/v1/subscriptions", { email: freshEmail("nul"), consent: { text: `I agree${nul}` } }, "consent.text"],
        ["POST", "/v1/subscriptions", { email: freshEmail("nul"), listIds: [`${list.id}${nul}`] }, "listIds.0"],
        ["POST", "/v1/subscriptions/unsubscribe", { email: contact.email, reason: `moved${nul}` }, "reason"],
        ["PATCH", `/v1/subscriptions/${contact.email}`, { topics: { [`${topic.id}${nul}`]: false } }, "topics"],
        ["POST", "/v1/suppressions", { email: freshEmail("nul"), reason: "Manual", details: { note: nul } }, "details.note"],
      ]
      for (const [method, path, body, field] of refusals) {
        const answer = await client().call(method, path, { key, body })
        expectError(answer, 400, "VALIDATION_ERROR", field)
        expect(answer.json.error.message, `${method} ${path}`).toMatch(/NUL/)
      }
      expect(await state()).toEqual(before)
    })

    it("a NUL in a query parameter answers 400 VALIDATION_ERROR naming it", async () => {
      const { key } = await seeded()
      expectError(await client().call("GET", "/v1/contacts?search=ad%00a", { key }), 400, "VALIDATION_ERROR", "search")
      expectError(await client().call("GET", "/v1/contacts/lists?search=%00", { key }), 400, "VALIDATION_ERROR", "search")
      expectError(await client().call("GET", "/v1/suppressions?search=%00", { key }), 400, "VALIDATION_ERROR", "search")
    })

    it("a path id holding %00 answers 400 VALIDATION_ERROR naming the path parameter, and nothing changes", async () => {
      const { key, contact, list, topic, state } = await seeded()
      const before = await state()
      const refusals: ReadonlyArray<readonly [string, string, unknown, string]> = [
        ["GET", `/v1/contacts/${contact.id}%00`, undefined, "id"],
        ["GET", "/v1/contacts/%00", undefined, "id"],
        ["DELETE", `/v1/contacts/${contact.id}%00`, undefined, "id"],
        ["PATCH", `/v1/contacts/${contact.id}%00`, { firstName: "Eve" }, "id"],
        ["DELETE", `/v1/contacts/${contact.id}/tags/vip%00`, undefined, "tag"],
        ["GET", `/v1/contacts/lists/${list.id}%00`, undefined, "id"],
        ["DELETE", `/v1/contacts/lists/${list.id}%00`, undefined, "id"],
        ["POST", `/v1/contacts/lists/${list.id}%00/members`, { contactIds: [contact.id] }, "id"],
        ["GET", `/v1/suppression-groups/${topic.id}%00`, undefined, "id"],
        ["DELETE", `/v1/suppression-groups/${topic.id}%00`, undefined, "id"],
        ["GET", "/v1/webhooks/wh_1%00", undefined, "id"],
        ["GET", "/v1/forms/%00", undefined, "id"],
        ["GET", "/v1/emails/%00", undefined, "id"],
        ["GET", `/v1/subscriptions/${encodeURIComponent(contact.email)}%00`, undefined, "email"],
        ["GET", "/v1/suppressions/ada%00%40example.com", undefined, "email"],
        // The hosted pages decode their path the same way, and answer it with the envelope too.
        ["GET", "/f/%00", undefined, "id"],
        ["GET", "/u/token%00", undefined, "token"],
        ["GET", "/c/token%00", undefined, "token"],
      ]
      for (const [method, path, body, field] of refusals) {
        const answer = await client().call(method, path, { key, ...(body === undefined ? {} : { body }) })
        expectError(answer, 400, "VALIDATION_ERROR", field)
      }
      expect(await state()).toEqual(before)
    })
  })
}
