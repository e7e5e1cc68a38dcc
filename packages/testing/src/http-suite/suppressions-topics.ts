/** Suppressions and topics over HTTP: every route, limit, status and error of the spec. Spec: audience
 *  "Suppressions", "Topics (suppression groups)", "Authentication" (scopes), "Limits". */
import { describe, expect, it } from "vitest"
import { type Client, expectError, freshEmail } from "./client.js"

export const suppressionTopicTests = (client: () => Client) => {
  describe("suppressions", () => {
    it("adds (201), updates an existing address's reason and details, reads, lists and deletes", async () => {
      const { key } = await client().account()
      const email = freshEmail("sup")
      const added = await client().call("POST", "/v1/suppressions", { key, body: { email: ` ${email.toUpperCase()} `, reason: "Manual" } })
      expect(added.status).toBe(201)
      expect(added.json).toEqual({
        success: true,
        data: { id: expect.stringMatching(/^sup_/), email, reason: "Manual", details: null, createdAt: expect.any(String) },
      })
      const again = await client().call("POST", "/v1/suppressions", { key, body: { email, reason: "Bounce", details: { bounceCode: "550" } } })
      expect(again.status).toBe(201)
      expect(again.json.data).toMatchObject({ id: added.json.data.id, reason: "Bounce", details: { bounceCode: "550" } })
      const read = await client().call("GET", `/v1/suppressions/${encodeURIComponent(email)}`, { key })
      expect(read.json.data).toMatchObject({ email, reason: "Bounce" })
      const listed = await client().call("GET", "/v1/suppressions", { key })
      expect(listed.json.meta).toEqual({ page: 1, limit: 25, total_count: 1, has_more: false })
      const removed = await client().call("DELETE", `/v1/suppressions/${encodeURIComponent(email)}`, { key })
      expect(removed.json).toEqual({ success: true, data: { email, removed: true } })
      expect((await client().call("DELETE", `/v1/suppressions/${encodeURIComponent(email)}`, { key })).json.data.removed).toBe(false)
      expectError(await client().call("GET", `/v1/suppressions/${encodeURIComponent(email)}`, { key }), 404, "RESOURCE_NOT_FOUND")
    })

    it("an address with a suppression is never created by add-members' createMissing: it is blocked with the Subscriptions code", async () => {
      const { key } = await client().account({ plan: "pro" })
      const list = (await client().call("POST", "/v1/contacts/lists", { key, body: { name: "News" } })).json.data
      const suppressed = { Bounce: freshEmail("bounce"), Complaint: freshEmail("complaint"), Unsubscribe: freshEmail("unsub"), Manual: freshEmail("manual") }
      for (const [reason, email] of Object.entries(suppressed)) {
        expect((await client().call("POST", "/v1/suppressions", { key, body: { email, reason } })).status).toBe(201)
      }
      const fresh = freshEmail("fresh")
      const added = await client().call("POST", `/v1/contacts/lists/${list.id}/members`, {
        key, body: { emails: [...Object.values(suppressed), fresh], createMissing: true },
      })
      expect(added.status).toBe(200)
      expect(added.json.data).toEqual({
        added: 1,
        alreadyMembers: 0,
        notFound: [],
        blocked: [
          { email: suppressed.Bounce, reason: "RECIPIENT_SUPPRESSED" },
          { email: suppressed.Complaint, reason: "RECIPIENT_SUPPRESSED" },
          { email: suppressed.Unsubscribe, reason: "RECIPIENT_UNSUBSCRIBED" },
          { email: suppressed.Manual, reason: "RECIPIENT_UNSUBSCRIBED" },
        ],
      })
      for (const email of Object.values(suppressed)) {
        expect(await client().count(key, `search=${encodeURIComponent(email)}`), email).toBe(0)
      }
      expect(await client().count(key, `search=${encodeURIComponent(fresh)}`)).toBe(1)
    })

    it("filters by reason and search, pages up to 100, and refuses bad parameters", async () => {
      const { key } = await client().account()
      for (const [i, reason] of ["Bounce", "Manual", "Bounce"].entries()) {
        await client().call("POST", "/v1/suppressions", { key, body: { email: `find-${i}-${freshEmail()}`, reason } })
      }
      const bounces = await client().call("GET", "/v1/suppressions?reason=Bounce&limit=1", { key })
      expect(bounces.json.meta).toEqual({ page: 1, limit: 1, total_count: 2, has_more: true })
      expect((await client().call("GET", "/v1/suppressions?search=FIND-1", { key })).json.meta.total_count).toBe(1)
      expect((await client().call("GET", "/v1/suppressions?limit=100", { key })).status).toBe(200)
      expectError(await client().call("GET", "/v1/suppressions?limit=101", { key }), 400, "VALIDATION_ERROR", "limit")
      expectError(await client().call("GET", "/v1/suppressions?reason=Spam", { key }), 400, "VALIDATION_ERROR", "reason")
    })

    it("refuses unknown fields, a missing reason, a bad address, and another account's suppression is not found", async () => {
      const owner = await client().account()
      const other = await client().account()
      const email = freshEmail("mine")
      expectError(await client().call("POST", "/v1/suppressions", { key: owner.key, body: { email, reason: "Manual", extra: 1 } }), 400, "VALIDATION_ERROR", "extra")
      expectError(await client().call("POST", "/v1/suppressions", { key: owner.key, body: { email } }), 400, "VALIDATION_ERROR", "reason")
      expectError(await client().call("POST", "/v1/suppressions", { key: owner.key, body: { email: "nope", reason: "Manual" } }), 400, "VALIDATION_ERROR", "email")
      await client().call("POST", "/v1/suppressions", { key: owner.key, body: { email, reason: "Manual" } })
      expectError(await client().call("GET", `/v1/suppressions/${encodeURIComponent(email)}`, { key: other.key }), 404, "RESOURCE_NOT_FOUND")
      // Double-encoded: %2540 decodes once to %40, which is no address.
      const double = encodeURIComponent(encodeURIComponent(email))
      expectError(await client().call("GET", `/v1/suppressions/${double}`, { key: owner.key }), 400, "VALIDATION_ERROR", "email")
      expectError(await client().call("DELETE", `/v1/suppressions/${double}`, { key: owner.key }), 400, "VALIDATION_ERROR", "email")
      expect((await client().call("GET", `/v1/suppressions/${encodeURIComponent(email)}`, { key: owner.key })).status).toBe(200)
    })

    it("bulk adds and removes up to 10,000 addresses, counting added, updated and removed", async () => {
      const { key } = await client().account()
      const emails = Array.from({ length: 10_000 }, (_, i) => `bulk-${i}-${freshEmail()}`)
      await client().call("POST", "/v1/suppressions", { key, body: { email: emails[0], reason: "Bounce" } })
      await client().call("POST", "/v1/suppressions", { key, body: { email: emails[1], reason: "Manual" } })
      const added = await client().call("POST", "/v1/suppressions/bulk", { key, body: { action: "add", emails, reason: "Manual" } })
      expect(added.json).toEqual({ success: true, data: { action: "add", requested: 10_000, added: 9_998, updated: 1 } })
      expect((await client().call("GET", "/v1/suppressions?limit=1", { key })).json.meta.total_count).toBe(10_000)
      const removed = await client().call("POST", "/v1/suppressions/bulk", { key, body: { action: "remove", emails: emails.slice(0, 500) } })
      expect(removed.json).toEqual({ success: true, data: { action: "remove", requested: 500, removed: 500 } })
      const tooMany = [...emails, freshEmail()]
      expectError(await client().call("POST", "/v1/suppressions/bulk", { key, body: { action: "add", emails: tooMany, reason: "Manual" } }), 400, "VALIDATION_ERROR", "emails")
      expectError(await client().call("POST", "/v1/suppressions/bulk", { key, body: { action: "add", emails: [], reason: "Manual" } }), 400, "VALIDATION_ERROR", "emails")
      expectError(await client().call("POST", "/v1/suppressions/bulk", { key, body: { action: "add", emails: [freshEmail()] } }), 400, "VALIDATION_ERROR")
      expect((await client().call("GET", "/v1/suppressions?limit=1", { key })).json.meta.total_count).toBe(9_500)
    })

    it("needs suppressions:read to read and suppressions:write to change", async () => {
      const account = await client().account()
      const reader = await client().key(account.id, ["suppressions:read"])
      const contactsOnly = await client().key(account.id, ["contacts:read", "contacts:write"])
      expect((await client().call("GET", "/v1/suppressions", { key: reader.key })).status).toBe(200)
      expectError(await client().call("POST", "/v1/suppressions", { key: reader.key, body: { email: freshEmail(), reason: "Manual" } }), 403, "SCOPE_INSUFFICIENT")
      expectError(await client().call("GET", "/v1/suppressions", { key: contactsOnly.key }), 403, "SCOPE_INSUFFICIENT")
      expectError(await client().call("POST", "/v1/suppression-groups", { key: reader.key, body: { name: "x" } }), 403, "SCOPE_INSUFFICIENT")
      expect((await client().call("GET", "/v1/suppression-groups", { key: reader.key })).status).toBe(200)
      expect((await client().call("GET", "/v1/suppressions")).status).toBe(401)
    })
  })

  describe("topics (suppression groups)", () => {
    const create = async (key: string, body: Record<string, unknown>) => {
      const answer = await client().call("POST", "/v1/suppression-groups", { key, body })
      expect(answer.status, answer.text).toBe(201)
      return answer.json.data
    }

    it("creates, reads, updates and lists topics; published=true answers only published ones in display order", async () => {
      const { key } = await client().account()
      const weekly = await create(key, { name: "Weekly", description: "internal" })
      expect(weekly).toEqual({
        id: expect.stringMatching(/^grp_/), name: "Weekly", description: "internal", isDefault: false, publicLabel: null,
        publicDescription: null, isPublishedOnUnsub: false, sortOrder: 0, createdAt: expect.any(String),
        updatedAt: expect.any(String), _count: { members: 0 },
      })
      const promos = await create(key, { name: "Promos", isDefault: true })
      const alerts = await create(key, { name: "Alerts" })
      const patched = await client().call("PATCH", `/v1/suppression-groups/${weekly.id}`, {
        key, body: { publicLabel: "Weekly news", publicDescription: "Once a week", isPublishedOnUnsub: true, sortOrder: 2 },
      })
      expect(patched.json.data).toMatchObject({ name: "Weekly", publicLabel: "Weekly news", isPublishedOnUnsub: true, sortOrder: 2 })
      await client().call("PATCH", `/v1/suppression-groups/${alerts.id}`, { key, body: { isPublishedOnUnsub: true, sortOrder: 2 } })
      await client().call("PATCH", `/v1/suppression-groups/${promos.id}`, { key, body: { isPublishedOnUnsub: true, sortOrder: 1 } })
      const all = await client().call("GET", "/v1/suppression-groups", { key })
      // Oldest first; topics made in the same millisecond may come in either order.
      expect(all.json.data.map((t: any) => t.name).sort()).toEqual(["Alerts", "Promos", "Weekly"])
      expect(all.json.meta).toEqual({ page: 1, limit: 25, total_count: 3, has_more: false })
      const published = await client().call("GET", "/v1/suppression-groups?published=true", { key })
      expect(published.json.data.map((t: any) => t.name)).toEqual(["Promos", "Alerts", "Weekly"])
      // Making another topic the default clears the first.
      await client().call("PATCH", `/v1/suppression-groups/${alerts.id}`, { key, body: { isDefault: true } })
      expect((await client().call("GET", `/v1/suppression-groups/${promos.id}`, { key })).json.data.isDefault).toBe(false)
    })

    it("refuses names over 100, duplicate names, a sortOrder out of 0-10000 and unknown fields", async () => {
      const { key } = await client().account()
      await create(key, { name: "News" })
      expectError(await client().call("POST", "/v1/suppression-groups", { key, body: { name: "News" } }), 409, "DUPLICATE_TOPIC")
      expectError(await client().call("POST", "/v1/suppression-groups", { key, body: { name: "n".repeat(101) } }), 400, "VALIDATION_ERROR", "name")
      expectError(await client().call("POST", "/v1/suppression-groups", { key, body: { name: "" } }), 400, "VALIDATION_ERROR", "name")
      expectError(await client().call("POST", "/v1/suppression-groups", { key, body: { name: "a", description: "d".repeat(501) } }), 400, "VALIDATION_ERROR", "description")
      expectError(await client().call("POST", "/v1/suppression-groups", { key, body: { name: "a", color: "red" } }), 400, "VALIDATION_ERROR", "color")
      const topic = await create(key, { name: "Other" })
      expectError(await client().call("PATCH", `/v1/suppression-groups/${topic.id}`, { key, body: { sortOrder: 10_001 } }), 400, "VALIDATION_ERROR", "sortOrder")
      expectError(await client().call("PATCH", `/v1/suppression-groups/${topic.id}`, { key, body: { publicLabel: "l".repeat(121) } }), 400, "VALIDATION_ERROR", "publicLabel")
      expect((await client().call("PATCH", `/v1/suppression-groups/${topic.id}`, { key, body: { sortOrder: 10_000 } })).status).toBe(200)
    })

    it("opts addresses out through members and the older suppressions paths, idempotently; delete removes the opt-outs", async () => {
      const { key } = await client().account()
      const topic = await create(key, { name: "Deals" })
      const email = freshEmail("out")
      const first = await client().call("POST", `/v1/suppression-groups/${topic.id}/members`, { key, body: { email } })
      expect(first.status).toBe(201)
      expect((await client().call("POST", `/v1/suppression-groups/${topic.id}/members`, { key, body: { email } })).status).toBe(201)
      await client().call("POST", `/v1/suppression-groups/${topic.id}/suppressions`, { key, body: { email: freshEmail("legacy") } })
      const members = await client().call("GET", `/v1/suppression-groups/${topic.id}/members`, { key })
      expect(members.json.meta).toEqual({ page: 1, limit: 50, total_count: 2, has_more: false })
      expect(members.json.data[1]).toEqual({ email, createdAt: expect.any(String) })
      expect((await client().call("GET", `/v1/suppression-groups/${topic.id}/suppressions`, { key })).json.meta.total_count).toBe(2)
      expect((await client().call("GET", `/v1/suppression-groups/${topic.id}`, { key })).json.data._count.members).toBe(2)
      const bulk = await client().call("POST", `/v1/suppression-groups/${topic.id}/suppressions/bulk`, {
        key, body: { action: "add", emails: [email, freshEmail("b1"), freshEmail("b2")] },
      })
      expect(bulk.json.data).toEqual({ action: "add", requested: 3, added: 2 })
      const removed = await client().call("DELETE", `/v1/suppression-groups/${topic.id}/members/${encodeURIComponent(email)}`, { key })
      expect(removed.json).toEqual({ success: true, data: { email, removed: true } })
      expect((await client().call("DELETE", `/v1/suppression-groups/${topic.id}/suppressions/${encodeURIComponent(email)}`, { key })).json.data.removed).toBe(false)
      const deleted = await client().call("DELETE", `/v1/suppression-groups/${topic.id}`, { key })
      expect(deleted.json).toEqual({ success: true, data: { id: topic.id, deleted: true } })
      expectError(await client().call("GET", `/v1/suppression-groups/${topic.id}/members`, { key }), 404, "RESOURCE_NOT_FOUND")
    })

    it("a topic of another account is not found on every route and nothing changes", async () => {
      const owner = await client().account()
      const other = await client().account()
      const topic = await create(owner.key, { name: "Private" })
      const base = `/v1/suppression-groups/${topic.id}`
      for (const [method, path, body] of [
        ["GET", base, undefined], ["PATCH", base, { name: "x" }], ["DELETE", base, undefined],
        ["GET", `${base}/members`, undefined], ["POST", `${base}/members`, { email: freshEmail() }],
        ["DELETE", `${base}/members/${encodeURIComponent(freshEmail())}`, undefined],
      ] as const) {
        expectError(await client().call(method, path, { key: other.key, ...(body === undefined ? {} : { body }) }), 404, "RESOURCE_NOT_FOUND")
      }
      expect((await client().call("GET", base, { key: owner.key })).json.data).toMatchObject({ name: "Private", _count: { members: 0 } })
    })

    it("lists tagged with a topic must name one of the account's topics, and show it on the single read", async () => {
      const owner = await client().account()
      const other = await client().account()
      const topic = await create(owner.key, { name: "Tagged", publicLabel: "Tagged mail" })
      const foreign = await create(other.key, { name: "Foreign" })
      const list = await client().call("POST", "/v1/contacts/lists", { key: owner.key, body: { name: "L", suppressionGroupId: topic.id } })
      expect(list.status).toBe(201)
      expect(list.json.data.suppressionGroup).toEqual({ id: topic.id, name: "Tagged", publicLabel: "Tagged mail" })
      expectError(await client().call("POST", "/v1/contacts/lists", { key: owner.key, body: { name: "L", suppressionGroupId: foreign.id } }), 404, "TOPIC_NOT_FOUND")
      expectError(await client().call("PATCH", `/v1/contacts/lists/${list.json.data.id}`, { key: owner.key, body: { suppressionGroupId: "grp_unknown" } }), 404, "TOPIC_NOT_FOUND")
      expect((await client().call("GET", `/v1/contacts/lists/${list.json.data.id}`, { key: owner.key })).json.data.suppressionGroupId).toBe(topic.id)
    })
  })
}
