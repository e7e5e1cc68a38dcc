/** The Subscriptions API over HTTP: every route, status code, error code and limit of the spec, the bad input of the
 *  consent work (double-encoded and IDN addresses, upper case, foreign ids, unknown fields, consent over its limits)
 *  and double opt-in through the dev outbox. Spec: audience "Subscriptions", "Authentication", "Errors", "Limits". */
import { describe, expect, it } from "vitest"
import { adminToken, type Client, expectError, freshEmail } from "./client.js"

const path = (email: string) => `/v1/subscriptions/${encodeURIComponent(email)}`

export const subscriptionTests = (client: () => Client) => {
  describe("subscriptions", () => {
    it("POST answers 201 when it creates the contact and 200 on a repeat, with the spec's response fields", async () => {
      const { key } = await client().account({ plan: "pro" })
      const list = (await client().call("POST", "/v1/contacts/lists", { key, body: { name: "News" } })).json.data.id
      const email = freshEmail("sub")
      const body = { email: `  ${email.toUpperCase()} `, firstName: "Ada", listIds: [list], consent: { text: "Yes" } }
      const first = await client().call("POST", "/v1/subscriptions", { key, body })
      expect(first.status).toBe(201)
      expect(first.json).toEqual({
        success: true,
        data: {
          contactId: expect.stringMatching(/^ct_/), email, status: "ACTIVE", created: true, listIds: [list],
          addedToListIds: [list], topicIds: [], requiresConfirmation: false, confirmationSent: false,
        },
      })
      const again = await client().call("POST", "/v1/subscriptions", { key, body })
      expect(again.status).toBe(200)
      expect(again.json.data).toMatchObject({ contactId: first.json.data.contactId, created: false, addedToListIds: [] })
      const status = await client().call("GET", path(email.toUpperCase()), { key })
      expect(status.status).toBe(200)
      expect(status.json.data).toMatchObject({
        email,
        contact: { id: first.json.data.contactId, status: "ACTIVE", firstName: "Ada", consent: { source: "api", text: "Yes" } },
        suppression: null, unsubscribedFromAll: false, pendingConfirmation: null,
        lists: [{ id: list, name: "News", subscribed: true, addedAt: expect.any(String), removedAt: null }],
        topics: [],
      })
    })

    it("refuses unknown fields, consent over its limits, bad addresses and foreign ids, and changes nothing", async () => {
      const { key } = await client().account({ plan: "pro" })
      const other = await client().account({ plan: "pro" })
      const foreignList = (await client().call("POST", "/v1/contacts/lists", { key: other.key, body: { name: "Theirs" } })).json.data.id
      const foreignTopic = (await client().call("POST", "/v1/suppression-groups", { key: other.key, body: { name: "Theirs" } })).json.data.id
      const email = freshEmail("bad")
      const post = (body: unknown) => client().call("POST", "/v1/subscriptions", { key, body })
      expectError(await post({ email, extra: true }), 400, "VALIDATION_ERROR", "extra")
      expectError(await post({ email, consent: { ip: "9".repeat(65) } }), 400, "VALIDATION_ERROR", "consent.ip")
      expectError(await post({ email, consent: { userAgent: "u".repeat(1025) } }), 400, "VALIDATION_ERROR", "consent.userAgent")
      expectError(await post({ email, consent: { text: "t".repeat(2001) } }), 400, "VALIDATION_ERROR", "consent.text")
      expectError(await post({ email, phone: "1".repeat(41) }), 400, "VALIDATION_ERROR", "phone")
      expectError(await post({ email, listIds: Array.from({ length: 51 }, (_, i) => `l${i}`) }), 400, "VALIDATION_ERROR", "listIds")
      expectError(await post({ email, redirectUrl: "http://example.com/ok" }), 400, "VALIDATION_ERROR", "redirectUrl")
      expectError(await post({ email, doubleOptIn: true, confirmationTemplateId: "tpl_x" }), 404, "TEMPLATE_NOT_FOUND")
      expectError(await post({ email: "jürgen@bücher.example" }), 400, "VALIDATION_ERROR", "email")
      expectError(await post({ email, listIds: [foreignList] }), 404, "LIST_NOT_FOUND")
      expectError(await post({ email, topicIds: [foreignTopic] }), 404, "TOPIC_NOT_FOUND")
      expect((await client().call("GET", path(email), { key })).json.data.contact).toBeNull()
      // Double-encoded: %2540 decodes once to %40, which is no address.
      const double = `/v1/subscriptions/${encodeURIComponent(encodeURIComponent(email))}`
      expectError(await client().call("GET", double, { key }), 400, "VALIDATION_ERROR", "email")
      expectError(await client().call("PATCH", double, { key, body: { unsubscribeAll: true } }), 400, "VALIDATION_ERROR", "email")
      expectError(await client().call("POST", `${double}/resend-confirmation`, { key }), 400, "VALIDATION_ERROR", "email")
    })

    it("unsubscribes by scope, reports changed, works for non-contacts and refuses a missing or foreign id", async () => {
      const { key } = await client().account({ plan: "pro" })
      const other = await client().account({ plan: "pro" })
      const topic = (await client().call("POST", "/v1/suppression-groups", { key, body: { name: "Promotions" } })).json.data.id
      const tagged = (await client().call("POST", "/v1/contacts/lists", { key, body: { name: "Deals", suppressionGroupId: topic } })).json.data.id
      const foreignList = (await client().call("POST", "/v1/contacts/lists", { key: other.key, body: { name: "Theirs" } })).json.data.id
      const email = freshEmail("unsub")
      const { contactId } = (await client().call("POST", "/v1/subscriptions", { key, body: { email, listIds: [tagged] } })).json.data
      const unsubscribe = (body: unknown) => client().call("POST", "/v1/subscriptions/unsubscribe", { key, body })
      expectError(await unsubscribe({ email, scope: "list" }), 400, "VALIDATION_ERROR", "listId")
      expectError(await unsubscribe({ email, scope: "topic" }), 400, "VALIDATION_ERROR", "topicId")
      expectError(await unsubscribe({ email, scope: "list", listId: foreignList }), 404, "LIST_NOT_FOUND")
      expectError(await unsubscribe({ email, reason: "r".repeat(501) }), 400, "VALIDATION_ERROR", "reason")
      const byTopic = await unsubscribe({ email, scope: "topic", topicId: topic })
      expect(byTopic.json).toEqual({ success: true, data: { email, contactId, scope: "topic", changed: true } })
      expect((await unsubscribe({ email, scope: "topic", topicId: topic })).json.data.changed).toBe(false)
      // The legacy scope value `category` means topic here as on POST /unsubscribe.
      expect((await unsubscribe({ email, scope: "category", topicId: topic })).json)
        .toEqual({ success: true, data: { email, contactId, scope: "topic", changed: false } })
      expectError(await unsubscribe({ email, scope: "everything" }), 400, "VALIDATION_ERROR", "scope")
      const status = (await client().call("GET", path(email), { key })).json.data
      expect(status.lists).toEqual([expect.objectContaining({ id: tagged, subscribed: false, removedAt: expect.any(String) })])
      expect(status.topics).toEqual([{ id: topic, name: "Promotions", label: null, description: null, subscribed: false }])
      const stranger = freshEmail("stranger")
      expect((await unsubscribe({ email: stranger })).json.data).toEqual({ email: stranger, contactId: null, scope: "all", changed: true })
      expect((await unsubscribe({ email: stranger })).json.data.changed).toBe(false)
      const strangerStatus = (await client().call("GET", path(stranger), { key })).json.data
      expect(strangerStatus).toMatchObject({ contact: null, unsubscribedFromAll: true, suppression: { reason: "Unsubscribe", since: expect.any(String) } })
      expectError(await client().call("POST", "/v1/subscriptions", { key, body: { email: stranger } }), 409, "RECIPIENT_UNSUBSCRIBED")
    })

    it("PATCH changes topics and lists, needs one of them, refuses unknown fields, and answers the status", async () => {
      const { key } = await client().account({ plan: "pro" })
      const list = (await client().call("POST", "/v1/contacts/lists", { key, body: { name: "Weekly" } })).json.data.id
      const email = freshEmail("patch")
      const patch = (body: unknown, address = email) => client().call("PATCH", path(address), { key, body })
      expectError(await patch({ lists: { [list]: true } }), 404, "CONTACT_NOT_FOUND")
      await client().call("POST", "/v1/subscriptions", { key, body: { email } })
      expectError(await patch({}), 400, "VALIDATION_ERROR")
      expectError(await patch({ lists: { [list]: true }, surprise: 1 }), 400, "VALIDATION_ERROR", "surprise")
      expectError(await patch({ lists: { lst_unknown: true } }), 404, "LIST_NOT_FOUND")
      const joined = await patch({ lists: { [list]: true } })
      expect(joined.status).toBe(200)
      expect(joined.json.data.lists).toEqual([expect.objectContaining({ id: list, subscribed: true })])
      const left = await patch({ lists: { [list]: false } })
      expect(left.json.data.lists).toEqual([expect.objectContaining({ id: list, subscribed: false })])
      const gone = await patch({ unsubscribeAll: true })
      expect(gone.json.data).toMatchObject({ unsubscribedFromAll: true, contact: { status: "UNSUBSCRIBED" } })
      expectError(await patch({ lists: { [list]: true } }), 409, "RECIPIENT_UNSUBSCRIBED")
      const back = await patch({ lists: { [list]: true }, resubscribe: true, consent: { text: "again" } })
      expect(back.json.data).toMatchObject({ unsubscribedFromAll: false, contact: { status: "ACTIVE", consent: { text: "again" } } })
    })

    it("double opt-in: the confirmation mail is in the dev outbox with its link; resend answers the spec's errors", async () => {
      const { key } = await client().account({ plan: "pro" })
      const email = freshEmail("doi")
      const made = await client().call("POST", "/v1/subscriptions", { key, body: { email, firstName: "Grace", doubleOptIn: true } })
      expect(made.status).toBe(201)
      expect(made.json.data).toMatchObject({ status: "PENDING", requiresConfirmation: true, confirmationSent: true })
      const outbox = await client().call("GET", `/admin/outbox?to=${encodeURIComponent(email)}`, { key: adminToken })
      expect(outbox.json.data).toHaveLength(1)
      expect(outbox.json.data[0]).toMatchObject({ to: [email], subject: "Please confirm your subscription" })
      expect(outbox.json.data[0].text).toMatch(/\/c\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/)
      expect(outbox.json.data[0].text).toContain("Hi Grace,")
      const status = (await client().call("GET", path(email), { key })).json.data
      expect(status).toMatchObject({ contact: { status: "PENDING" }, pendingConfirmation: { expiresAt: expect.any(String) } })
      const resent = await client().call("POST", `${path(email)}/resend-confirmation`, { key })
      expect(resent.json).toEqual({ success: true, data: { email, confirmationSent: true, expiresAt: expect.any(String) } })
      expect((await client().call("GET", `/admin/outbox?to=${encodeURIComponent(email)}`, { key: adminToken })).json.data).toHaveLength(2)
      expectError(await client().call("POST", `${path(freshEmail("nobody"))}/resend-confirmation`, { key }), 404, "CONTACT_NOT_FOUND")
      const active = freshEmail("active")
      await client().call("POST", "/v1/subscriptions", { key, body: { email: active } })
      expectError(await client().call("POST", `${path(active)}/resend-confirmation`, { key }), 409, "NO_PENDING_CONFIRMATION")
    })

    it("needs contacts:read to read and contacts:write to change", async () => {
      const account = await client().account({ plan: "pro" })
      const reader = await client().key(account.id, ["contacts:read"])
      const email = freshEmail("scope")
      expect((await client().call("GET", path(email), { key: reader.key })).status).toBe(200)
      expectError(await client().call("POST", "/v1/subscriptions", { key: reader.key, body: { email } }), 403, "SCOPE_INSUFFICIENT")
      expectError(await client().call("POST", "/v1/subscriptions/unsubscribe", { key: reader.key, body: { email } }), 403, "SCOPE_INSUFFICIENT")
      expectError(await client().call("PATCH", path(email), { key: reader.key, body: { unsubscribeAll: true } }), 403, "SCOPE_INSUFFICIENT")
      expect((await client().call("GET", path(email), { key: account.key })).json.data.unsubscribedFromAll).toBe(false)
    })
  })
}
