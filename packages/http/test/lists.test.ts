import { describe, expect, it } from "vitest"
import { type Answer, call, makeTestApp, newAccount, scopedKey } from "./support.js"

const app = makeTestApp()

const expectError = (answer: Answer, status: number, code: string, field?: string) => {
  expect(answer.status, answer.text).toBe(status)
  expect(answer.json.success).toBe(false)
  expect(answer.json.error.code).toBe(code)
  expect(answer.json.error.message).toEqual(expect.any(String))
  if (field !== undefined) expect(answer.json.error.context?.field).toBe(field)
}

const createList = async (key: string, body: Record<string, unknown> = { name: "News" }) => {
  const answer = await call(app, "POST", "/v1/contacts/lists", { key, body })
  expect(answer.status, answer.text).toBe(201)
  return answer.json.data
}

const createTopic = async (key: string, name: string) => {
  const answer = await call(app, "POST", "/v1/suppression-groups", { key, body: { name, publicLabel: `${name} mail` } })
  expect(answer.status).toBe(201)
  return answer.json.data.id as string
}

const createContact = async (key: string, body: Record<string, unknown>) => {
  const answer = await call(app, "POST", "/v1/contacts", { key, body })
  expect(answer.status, answer.text).toBe(201)
  return answer.json.data
}

/** Everything a refused request must leave as it was: the lists (archived too), their members and the contacts.
 *  lastSyncedAt is left out: reading the members of a DYNAMIC list, as this does, stamps it. */
const state = async (key: string) => {
  const lists = []
  for (const archived of [false, true]) {
    const page = await call(app, "GET", `/v1/contacts/lists?type=ALL&limit=100&isArchived=${archived}`, { key })
    for (const { lastSyncedAt: _synced, ...list } of page.json.data) {
      const members = await call(app, "GET", `/v1/contacts/lists/${list.id}/members?limit=100`, { key })
      lists.push({ list, members: members.json })
    }
  }
  const contacts = await call(app, "GET", "/v1/contacts?limit=1000", { key })
  return { lists, contacts: contacts.json.data }
}

describe("/v1/contacts/lists", () => {
  it("creates a list (201 { data }) with the spec's fields and defaults", async () => {
    const { key } = await newAccount(app)
    const answer = await call(app, "POST", "/v1/contacts/lists", { key, body: { name: "  News  ", description: "Monthly" } })
    expect(answer.status).toBe(201)
    expect(Object.keys(answer.json)).toEqual(["data"])
    expect(answer.json.data).toEqual({
      id: expect.stringMatching(/^lst_/),
      name: "News",
      description: "Monthly",
      type: "STATIC",
      segmentRules: null,
      suppressionGroupId: null,
      trackingEnabled: true,
      contactCount: 0,
      isArchived: false,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: expect.any(String),
      lastSyncedAt: null,
      suppressionGroup: null,
      _count: { members: 0 },
    })
  })

  it("reads one list with suppressionGroup and _count.members; lists of other accounts are LIST_NOT_FOUND", async () => {
    const owner = await newAccount(app)
    const other = await newAccount(app)
    const topicId = await createTopic(owner.key, "Tagged")
    const list = await createList(owner.key, { name: "Tagged", suppressionGroupId: topicId, trackingEnabled: false })
    const read = await call(app, "GET", `/v1/contacts/lists/${list.id}`, { key: owner.key })
    expect(read.status).toBe(200)
    expect(read.json.data).toMatchObject({
      id: list.id, suppressionGroupId: topicId, trackingEnabled: false,
      suppressionGroup: { id: topicId, name: "Tagged", publicLabel: "Tagged mail" }, _count: { members: 0 },
    })
    expectError(await call(app, "GET", `/v1/contacts/lists/${list.id}`, { key: other.key }), 404, "LIST_NOT_FOUND")
    expectError(await call(app, "GET", "/v1/contacts/lists/lst_nope", { key: owner.key }), 404, "LIST_NOT_FOUND")
  })

  it("pages with { data, pagination } and filters by type, isArchived and search", async () => {
    const { key } = await newAccount(app)
    for (const name of ["Alpha", "Beta", "Gamma"]) await createList(key, { name })
    await createList(key, { name: "Dyn", type: "DYNAMIC", segmentRules: { all: [{ field: "status", operator: "in", value: ["ACTIVE"] }] } })
    const archived = await createList(key, { name: "Old alpha" })
    await call(app, "DELETE", `/v1/contacts/lists/${archived.id}`, { key })

    const first = await call(app, "GET", "/v1/contacts/lists?limit=2", { key })
    expect(first.status).toBe(200)
    expect(Object.keys(first.json).sort()).toEqual(["data", "pagination"])
    expect(first.json.pagination).toEqual({ page: 1, limit: 2, total: 4, totalPages: 2 })
    expect(first.json.data.map((l: any) => l.name)).toEqual(["Dyn", "Gamma"])
    expect(first.json.data[0]).not.toHaveProperty("_count")
    const second = await call(app, "GET", "/v1/contacts/lists?limit=2&page=2", { key })
    expect(second.json.data.map((l: any) => l.name)).toEqual(["Beta", "Alpha"])
    const defaults = await call(app, "GET", "/v1/contacts/lists", { key })
    expect(defaults.json.pagination).toEqual({ page: 1, limit: 20, total: 4, totalPages: 1 })

    const names = async (query: string) =>
      (await call(app, "GET", `/v1/contacts/lists?${query}`, { key })).json.data.map((l: any) => l.name)
    expect(await names("type=DYNAMIC")).toEqual(["Dyn"])
    expect(await names("type=STATIC")).toEqual(["Gamma", "Beta", "Alpha"])
    expect(await names("isArchived=true")).toEqual(["Old alpha"])
    expect(await names("search=ALPHA")).toEqual(["Alpha"])
    expect(await names("search=alpha&isArchived=true")).toEqual(["Old alpha"])
  })

  it.each([
    ["limit=0", "limit"], ["limit=101", "limit"], ["limit=ten", "limit"], ["page=0", "page"],
    ["type=SMART", "type"], ["isArchived=maybe", "isArchived"], [`search=${"s".repeat(256)}`, "search"],
  ])("refuses GET /contacts/lists?%s with VALIDATION_ERROR naming %s", async (query, field) => {
    const { key } = await newAccount(app)
    expectError(await call(app, "GET", `/v1/contacts/lists?${query}`, { key }), 400, "VALIDATION_ERROR", field)
  })

  it.each([
    [{}, "name"],
    [{ name: "" }, "name"],
    [{ name: "x".repeat(256) }, "name"],
    [{ name: "a", description: "d".repeat(1001) }, "description"],
    [{ name: "a", type: "SMART" }, "type"],
    [{ name: "a", trackingEnabled: "no" }, "trackingEnabled"],
    [{ name: "a", suppressionGroupId: 7 }, "suppressionGroupId"],
    [{ name: "a", members: [] }, "members"],
    [{ name: "a", type: "DYNAMIC" }, "segmentRules"],
    [{ name: "a", segmentRules: { all: [{ field: "status", operator: "in", value: ["ACTIVE"] }] } }, "segmentRules"],
    [{ name: "a", type: "DYNAMIC", segmentRules: { all: [{ field: "email", operator: "between", value: "x" }] } }, "segmentRules.all.0.operator"],
    [{ name: "a", type: "DYNAMIC", segmentRules: { any: [{ all: [{ any: [{ all: [{ field: "email", operator: "isSet" }] }] }] }] } }, "segmentRules.any.0.all.0.any.0"],
  ])("refuses POST body %j with VALIDATION_ERROR naming %s, creating nothing", async (body, field) => {
    const { key } = await newAccount(app)
    const before = await state(key)
    expectError(await call(app, "POST", "/v1/contacts/lists", { key, body }), 400, "VALIDATION_ERROR", field)
    expect(await state(key)).toEqual(before)
  })

  it("refuses malformed JSON and an empty body", async () => {
    const { key } = await newAccount(app)
    expectError(await call(app, "POST", "/v1/contacts/lists", { key, raw: "{name:", headers: { "content-type": "application/json" } }), 400, "VALIDATION_ERROR")
    expectError(await call(app, "POST", "/v1/contacts/lists", { key }), 400, "VALIDATION_ERROR")
  })

  it("PATCH updates only the fields sent; refuses the type, bad values and a foreign list without changing anything", async () => {
    const owner = await newAccount(app)
    const other = await newAccount(app)
    const list = await createList(owner.key, { name: "News", description: "d", suppressionGroupId: await createTopic(owner.key, "News") })
    const patched = await call(app, "PATCH", `/v1/contacts/lists/${list.id}`, {
      key: owner.key, body: { name: "Renamed", suppressionGroupId: null, trackingEnabled: false },
    })
    expect(patched.status).toBe(200)
    expect(patched.json.data).toMatchObject({ name: "Renamed", description: "d", suppressionGroupId: null, trackingEnabled: false })
    const before = await state(owner.key)
    expectError(await call(app, "PATCH", `/v1/contacts/lists/${list.id}`, { key: owner.key, body: { type: "DYNAMIC" } }), 400, "VALIDATION_ERROR", "type")
    expectError(await call(app, "PATCH", `/v1/contacts/lists/${list.id}`, { key: owner.key, body: { name: "" } }), 400, "VALIDATION_ERROR", "name")
    expectError(await call(app, "PATCH", `/v1/contacts/lists/${list.id}`, {
      key: owner.key, body: { segmentRules: { all: [{ field: "tag", operator: "has", value: "vip" }] } },
    }), 400, "VALIDATION_ERROR", "segmentRules")
    expectError(await call(app, "PATCH", `/v1/contacts/lists/${list.id}`, { key: other.key, body: { name: "Mine" } }), 404, "LIST_NOT_FOUND")
    expect(await state(owner.key)).toEqual(before)
    const unarchived = await call(app, "PATCH", `/v1/contacts/lists/${list.id}`, { key: owner.key, body: { isArchived: true } })
    expect(unarchived.json.data.isArchived).toBe(true)
  })

  it("DELETE archives the list, keeps its members and answers { success: true }", async () => {
    const owner = await newAccount(app)
    const other = await newAccount(app)
    const contact = await createContact(owner.key, { email: "ada@example.com" })
    const list = await createList(owner.key)
    await call(app, "POST", `/v1/contacts/lists/${list.id}/members`, { key: owner.key, body: { contactIds: [contact.id] } })
    expectError(await call(app, "DELETE", `/v1/contacts/lists/${list.id}`, { key: other.key }), 404, "LIST_NOT_FOUND")
    const answer = await call(app, "DELETE", `/v1/contacts/lists/${list.id}`, { key: owner.key })
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({ success: true })
    const read = await call(app, "GET", `/v1/contacts/lists/${list.id}`, { key: owner.key })
    expect(read.json.data).toMatchObject({ isArchived: true, contactCount: 1, _count: { members: 1 } })
    expect((await call(app, "GET", "/v1/contacts/lists", { key: owner.key })).json.data).toEqual([])
    expectError(await call(app, "DELETE", "/v1/contacts/lists/lst_nope", { key: owner.key }), 404, "LIST_NOT_FOUND")
  })

  it("needs contacts:read to read and contacts:write to change; a missing key is 401", async () => {
    const { id, key } = await newAccount(app)
    const list = await createList(key)
    const reader = await scopedKey(app, id, ["contacts:read"])
    const writer = await scopedKey(app, id, ["contacts:write"])
    expect((await call(app, "GET", "/v1/contacts/lists", { key: reader })).status).toBe(200)
    expect((await call(app, "GET", `/v1/contacts/lists/${list.id}/members`, { key: reader })).status).toBe(200)
    expectError(await call(app, "GET", "/v1/contacts/lists", { key: writer }), 403, "SCOPE_INSUFFICIENT")
    expectError(await call(app, "GET", `/v1/contacts/lists/${list.id}`, { key: writer }), 403, "SCOPE_INSUFFICIENT")
    for (const [method, path, body] of [
      ["POST", "/v1/contacts/lists", { name: "x" }],
      ["PATCH", `/v1/contacts/lists/${list.id}`, { name: "x" }],
      ["DELETE", `/v1/contacts/lists/${list.id}`, undefined],
      ["POST", `/v1/contacts/lists/${list.id}/members`, { emails: ["a@example.com"] }],
      ["DELETE", `/v1/contacts/lists/${list.id}/members`, { emails: ["a@example.com"] }],
    ] as const) {
      expectError(await call(app, method, path, { key: reader, ...(body === undefined ? {} : { body }) }), 403, "SCOPE_INSUFFICIENT")
    }
    expect((await call(app, "GET", "/v1/contacts/lists")).status).toBe(401)
    expect((await call(app, "GET", `/v1/contacts/lists/${list.id}`, { key })).json.data.name).toBe("News")
  })
})

describe("/v1/contacts/lists/{id}/members", () => {
  it("adds by contactIds and emails, with the full response and the legacy top-level fields", async () => {
    const owner = await newAccount(app)
    const other = await newAccount(app)
    const ada = await createContact(owner.key, { email: "ada@example.com" })
    await createContact(owner.key, { email: "bob@example.com", status: "UNSUBSCRIBED" })
    const foreign = await createContact(other.key, { email: "foreign@example.com" })
    const list = await createList(owner.key)
    const answer = await call(app, "POST", `/v1/contacts/lists/${list.id}/members`, {
      key: owner.key,
      body: { contactIds: [ada.id, foreign.id], emails: ["Bob@Example.com", "nobody@example.com"] },
    })
    expect(answer.status).toBe(200)
    expect(answer.json).toEqual({
      success: true,
      data: { added: 2, alreadyMembers: 0, notFound: [foreign.id, "nobody@example.com"], blocked: [] },
      added: 2,
      skipped: 0,
      message: "2 members added, 2 not found",
    })
    const again = await call(app, "POST", `/v1/contacts/lists/${list.id}/members`, { key: owner.key, body: { contactIds: [ada.id] } })
    expect(again.json).toMatchObject({ data: { added: 0, alreadyMembers: 1 }, added: 0, skipped: 1, message: "0 members added, 1 already a member" })
  })

  it("createMissing creates ACTIVE contacts and reports blocked addresses with Subscriptions codes", async () => {
    const { key } = await newAccount(app, { plan: "free" })
    await createContact(key, { email: "gone@example.com", status: "UNSUBSCRIBED" })
    await createContact(key, { email: "bounced@example.com", status: "BOUNCED" })
    const bulk = await call(app, "POST", "/v1/contacts/bulk", {
      key, body: { contacts: Array.from({ length: 98 }, (_, i) => ({ email: `c${i}@example.com` })) },
    })
    expect(bulk.json.data.created).toBe(98)
    const list = await createList(key)
    const answer = await call(app, "POST", `/v1/contacts/lists/${list.id}/members`, {
      key, body: { emails: ["gone@example.com", "bounced@example.com", "n1@example.com", "n2@example.com", "n3@example.com"], createMissing: true },
    })
    expect(answer.status).toBe(200)
    expect(answer.json.data).toEqual({
      added: 2,
      alreadyMembers: 0,
      notFound: [],
      blocked: [
        { email: "gone@example.com", reason: "RECIPIENT_UNSUBSCRIBED" },
        { email: "bounced@example.com", reason: "RECIPIENT_SUPPRESSED" },
        { email: "n3@example.com", reason: "FREE_TIER_CONTACT_LIMIT" },
      ],
    })
    const created = await call(app, "GET", "/v1/contacts?search=n1%40", { key })
    expect(created.json.data.map((c: any) => [c.email, c.status, c.source])).toEqual([["n1@example.com", "ACTIVE", "API"]])
  })

  it.each([
    [{}, "contactIds"],
    [{ contactIds: [], emails: [] }, "contactIds"],
    [{ contactIds: Array.from({ length: 1001 }, (_, i) => `ct_${i}`) }, "contactIds"],
    [{ emails: Array.from({ length: 1001 }, (_, i) => `a${i}@example.com`) }, "emails"],
    [{ emails: ["not an address"] }, "emails.0"],
    [{ contactIds: [42] }, "contactIds.0"],
    [{ emails: ["a@example.com"], createMissing: "yes" }, "createMissing"],
    [{ emails: ["a@example.com"], listId: "x" }, "listId"],
  ])("refuses add body %# with VALIDATION_ERROR naming %s, changing nothing", async (body, field) => {
    const { key } = await newAccount(app)
    await createContact(key, { email: "a@example.com" })
    await createList(key)
    const listId = (await call(app, "GET", "/v1/contacts/lists", { key })).json.data[0].id
    const before = await state(key)
    expectError(await call(app, "POST", `/v1/contacts/lists/${listId}/members`, { key, body }), 400, "VALIDATION_ERROR", field)
    expect(await state(key)).toEqual(before)
  })

  it("reads members with filter, counts and pagination; suppressionStatuses name each reason", async () => {
    const { key } = await newAccount(app)
    const list = await createList(key)
    const emails = ["a@example.com", "b@example.com", "c@example.com"]
    await createContact(key, { email: emails[0], firstName: "Ann" })
    await createContact(key, { email: emails[1], status: "COMPLAINED" })
    await createContact(key, { email: emails[2], status: "PENDING" })
    await call(app, "POST", `/v1/contacts/lists/${list.id}/members`, { key, body: { emails } })
    const all = await call(app, "GET", `/v1/contacts/lists/${list.id}/members`, { key })
    expect(all.status).toBe(200)
    expect(Object.keys(all.json).sort()).toEqual(["counts", "data", "pagination"])
    expect(all.json.counts).toEqual({ total: 3, active: 2, suppressed: 1 })
    expect(all.json.pagination).toEqual({ page: 1, limit: 50, total: 3, totalPages: 1 })
    const ann = all.json.data.find((m: any) => m.contact.email === "a@example.com")
    expect(ann).toEqual({
      id: expect.stringMatching(/^mem_/),
      contactId: expect.any(String),
      contact: {
        id: ann.contactId, email: "a@example.com", firstName: "Ann", lastName: null, status: "ACTIVE",
        subscribedAt: expect.any(String), createdAt: expect.any(String),
      },
      addedAt: expect.any(String),
      removedAt: null,
      suppressionStatuses: [],
    })
    const suppressed = await call(app, "GET", `/v1/contacts/lists/${list.id}/members?filter=suppressed`, { key })
    expect(suppressed.json.data.map((m: any) => [m.contact.email, m.suppressionStatuses])).toEqual([["b@example.com", ["COMPLAINED"]]])
    expect(suppressed.json.pagination.total).toBe(1)
    const active = await call(app, "GET", `/v1/contacts/lists/${list.id}/members?filter=active&limit=1&page=2`, { key })
    expect(active.json.data).toHaveLength(1)
    expect(active.json.pagination).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2 })
    for (const [query, field] of [["filter=bounced", "filter"], ["limit=101", "limit"], ["page=-1", "page"]]) {
      expectError(await call(app, "GET", `/v1/contacts/lists/${list.id}/members?${query}`, { key }), 400, "VALIDATION_ERROR", field)
    }
  })

  it("DELETE removes by body or by a single contactId or email query; NOT_A_MEMBER changes nothing", async () => {
    const { key } = await newAccount(app)
    const list = await createList(key)
    const ids = []
    for (const email of ["a@example.com", "b@example.com", "c@example.com", "d@example.com"]) {
      ids.push((await createContact(key, { email })).id)
    }
    await call(app, "POST", `/v1/contacts/lists/${list.id}/members`, { key, body: { contactIds: ids.slice(0, 3) } })
    const before = await state(key)
    expectError(await call(app, "DELETE", `/v1/contacts/lists/${list.id}/members`, { key, body: { contactIds: [ids[3]] } }), 404, "NOT_A_MEMBER")
    expectError(await call(app, "DELETE", `/v1/contacts/lists/${list.id}/members?email=nobody@example.com`, { key }), 404, "NOT_A_MEMBER")
    expectError(await call(app, "DELETE", `/v1/contacts/lists/${list.id}/members`, { key, body: {} }), 400, "VALIDATION_ERROR", "contactIds")
    expectError(await call(app, "DELETE", `/v1/contacts/lists/${list.id}/members`, { key }), 400, "VALIDATION_ERROR")
    expectError(await call(app, "DELETE", `/v1/contacts/lists/${list.id}/members?email=not-an-address`, { key }), 400, "VALIDATION_ERROR", "email")
    expectError(await call(app, "DELETE", "/v1/contacts/lists/lst_nope/members", { key, body: { contactIds: [ids[0]] } }), 404, "LIST_NOT_FOUND")
    expect(await state(key)).toEqual(before)

    const byBody = await call(app, "DELETE", `/v1/contacts/lists/${list.id}/members`, { key, body: { contactIds: [ids[0]], emails: ["b@example.com"] } })
    expect(byBody.status).toBe(200)
    expect(byBody.json).toEqual({ success: true, data: { removed: 2 } })
    const byQuery = await call(app, "DELETE", `/v1/contacts/lists/${list.id}/members?contactId=${ids[2]}`, { key })
    expect(byQuery.json).toEqual({ success: true, data: { removed: 1 } })
    const after = await call(app, "GET", `/v1/contacts/lists/${list.id}`, { key })
    // Removal by the owner deletes the membership: nothing is left, not even as history (rule 2).
    expect(after.json.data).toMatchObject({ contactCount: 0, _count: { members: 0 } })
  })

  it("members of a DYNAMIC list are the matching contacts; reading stamps lastSyncedAt; edits are VALIDATION_ERROR", async () => {
    const { key } = await newAccount(app)
    await createContact(key, { email: "vip@example.com", tags: ["vip"] })
    const plain = await createContact(key, { email: "plain@example.com" })
    const list = await createList(key, {
      name: "VIPs", type: "DYNAMIC", segmentRules: { all: [{ field: "tag", operator: "has", value: "VIP" }] },
    })
    expect(list).toMatchObject({
      type: "DYNAMIC", contactCount: 1, lastSyncedAt: null,
      segmentRules: { all: [{ field: "tag", operator: "has", value: "vip" }] },
    })
    const members = await call(app, "GET", `/v1/contacts/lists/${list.id}/members`, { key })
    expect(members.json.data.map((m: any) => m.contact.email)).toEqual(["vip@example.com"])
    expect(members.json.counts).toEqual({ total: 1, active: 1, suppressed: 0 })
    const read = await call(app, "GET", `/v1/contacts/lists/${list.id}`, { key })
    expect(read.json.data.lastSyncedAt).toEqual(expect.any(String))
    const before = await state(key)
    expectError(await call(app, "POST", `/v1/contacts/lists/${list.id}/members`, { key, body: { contactIds: [plain.id] } }), 400, "VALIDATION_ERROR")
    expectError(await call(app, "DELETE", `/v1/contacts/lists/${list.id}/members`, { key, body: { contactIds: [plain.id] } }), 400, "VALIDATION_ERROR")
    expect(await state(key)).toEqual(before)
    const widened = await call(app, "PATCH", `/v1/contacts/lists/${list.id}`, {
      key, body: { segmentRules: { any: [{ field: "email", operator: "endsWith", value: "@example.com" }] } },
    })
    expect(widened.json.data.contactCount).toBe(2)
  })
})
