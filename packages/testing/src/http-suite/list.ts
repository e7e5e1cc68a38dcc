/** GET /contacts: paging, filters, sorting, search, and every parameter's validation. Spec: audience "Contacts",
 *  GET /contacts query parameters; "Limits" (limit default 100, max 1000). */
import { describe, expect, it } from "vitest"
import { type Client, expectError } from "./client.js"

/** Five contacts of a fresh account, created in this order. */
const seed = async (client: Client) => {
  const { key } = await client.account({ plan: "pro" })
  const made = []
  for (const body of [
    { email: "carol@example.com", firstName: "Carol", lastName: "Danvers", tags: ["vip"], source: "FORM" },
    { email: "alan@example.com", firstName: "Alan", lastName: "Turing", status: "UNSUBSCRIBED" },
    { email: "bob@sample.org", firstName: "Bob", lastName: "Carolus", tags: ["vip", "beta"] },
    { email: "dora@example.com", firstName: "Dora", lastName: "Explorer", status: "BOUNCED", source: "SYNC" },
    { email: "eve@sample.org", firstName: "Eve", lastName: "Online", tags: ["beta"] },
  ]) made.push(await client.contact(key, body))
  return { key, made }
}

const emails = (answer: { json: any }) => answer.json.data.map((c: any) => c.email)

export const listTests = (client: () => Client) => {
  describe("GET /contacts", () => {
    it("answers page 1 of 100 by default, with meta", async () => {
      const { key, made } = await seed(client())
      const answer = await client().call("GET", "/v1/contacts", { key })
      expect(answer.status).toBe(200)
      expect(answer.json.success).toBe(true)
      expect(answer.json.meta).toEqual({ page: 1, limit: 100, total_count: 5, has_more: false })
      expect([...emails(answer)].sort()).toEqual(made.map((c) => c.email).sort())
    })

    it("pages with page and limit, and says whether more follow", async () => {
      const { key } = await seed(client())
      const first = await client().call("GET", "/v1/contacts?limit=2&sortBy=email&sortOrder=asc", { key })
      expect(first.json.meta).toEqual({ page: 1, limit: 2, total_count: 5, has_more: true })
      expect(emails(first)).toEqual(["alan@example.com", "bob@sample.org"])
      const last = await client().call("GET", "/v1/contacts?limit=2&page=3&sortBy=email&sortOrder=asc", { key })
      expect(last.json.meta).toEqual({ page: 3, limit: 2, total_count: 5, has_more: false })
      expect(emails(last)).toEqual(["eve@sample.org"])
      const beyond = await client().call("GET", "/v1/contacts?limit=2&page=9", { key })
      expect({ data: beyond.json.data, meta: beyond.json.meta }).toEqual({ data: [], meta: { page: 9, limit: 2, total_count: 5, has_more: false } })
    })

    it("accepts limit 1000", async () => {
      const { key } = await seed(client())
      expect((await client().call("GET", "/v1/contacts?limit=1000", { key })).json.meta.limit).toBe(1000)
    })

    it("sorts by email, createdAt and subscribedAt in both orders (createdAt desc by default)", async () => {
      const { key, made } = await seed(client())
      const byEmail = made.map((c) => c.email).sort()
      expect(emails(await client().call("GET", "/v1/contacts?sortBy=email&sortOrder=asc", { key }))).toEqual(byEmail)
      expect(emails(await client().call("GET", "/v1/contacts?sortBy=email&sortOrder=desc", { key }))).toEqual([...byEmail].reverse())
      for (const sortBy of ["createdAt", "subscribedAt"]) {
        const asc = await client().call("GET", `/v1/contacts?sortBy=${sortBy}&sortOrder=asc`, { key })
        const stamps = asc.json.data.map((c: any) => c[sortBy])
        expect(stamps).toEqual([...stamps].sort())
        const desc = await client().call("GET", `/v1/contacts?sortBy=${sortBy}`, { key })
        expect(emails(desc)).toEqual([...emails(asc)].reverse())
      }
      const byDefault = await client().call("GET", "/v1/contacts", { key })
      expect(emails(byDefault)).toEqual(emails(await client().call("GET", "/v1/contacts?sortBy=createdAt&sortOrder=desc", { key })))
    })

    it.each([
      ["status=UNSUBSCRIBED", ["alan@example.com"]],
      ["status=BOUNCED", ["dora@example.com"]],
      ["status=ACTIVE", ["bob@sample.org", "carol@example.com", "eve@sample.org"]],
      ["status=CLEANED", []],
      ["source=FORM", ["carol@example.com"]],
      ["source=SYNC", ["dora@example.com"]],
      ["source=API", ["alan@example.com", "bob@sample.org", "eve@sample.org"]],
      ["tag=vip", ["bob@sample.org", "carol@example.com"]],
      ["tag=beta&status=ACTIVE", ["bob@sample.org", "eve@sample.org"]],
      ["search=SAMPLE.ORG", ["bob@sample.org", "eve@sample.org"]],
      ["search=carol", ["bob@sample.org", "carol@example.com"]],
      ["search=turing", ["alan@example.com"]],
      ["search=xplor", ["dora@example.com"]],
      ["search=nobody", []],
    ])("filters with %s", async (query, expected) => {
      const { key } = await seed(client())
      const answer = await client().call("GET", `/v1/contacts?${query}&sortBy=email&sortOrder=asc`, { key })
      expect(answer.status, answer.text).toBe(200)
      expect(emails(answer)).toEqual(expected)
      expect(answer.json.meta.total_count).toBe(expected.length)
    })

    it.each([
      ["page=0", "page"], ["page=-1", "page"], ["page=1.5", "page"], ["page=abc", "page"],
      ["limit=0", "limit"], ["limit=1001", "limit"], ["limit=ten", "limit"],
      ["status=SUBSCRIBED", "status"], ["status=active", "status"], ["source=WEB", "source"],
      ["tag=not%20a%20tag", "tag"], ["sortBy=firstName", "sortBy"], ["sortOrder=up", "sortOrder"],
    ])("refuses %s with VALIDATION_ERROR naming the parameter", async (query, field) => {
      const { key } = await client().account()
      expectError(await client().call("GET", `/v1/contacts?${query}`, { key }), 400, "VALIDATION_ERROR", field)
    })

    it.each([
      "' OR '1'='1", "'; DROP TABLE contacts; --", "\" OR \"\"=\"", "%", "_", "\\", "%' --", "1) UNION SELECT * FROM accounts --",
    ])("treats the search %j as literal text: no match, nothing harmed", async (search) => {
      const { key, made } = await seed(client())
      const answer = await client().call("GET", `/v1/contacts?search=${encodeURIComponent(search)}`, { key })
      expect(answer.status, answer.text).toBe(200)
      expect(answer.json.data).toEqual([])
      expect(await client().count(key)).toBe(made.length)
    })

    it("matches % and _ in a search literally", async () => {
      const { key } = await client().account()
      await client().contact(key, { email: "percent%sign@example.com" })
      await client().contact(key, { email: "under_score@example.com" })
      await client().contact(key, { email: "underxscore@example.com" })
      expect(emails(await client().call("GET", "/v1/contacts?search=%25", { key }))).toEqual(["percent%sign@example.com"])
      expect(emails(await client().call("GET", "/v1/contacts?search=under_", { key }))).toEqual(["under_score@example.com"])
    })
  })
}
