/** GET /contacts/export: CSV (default) and JSON, the filters of GET /contacts, safe CSV cells. Not shown in the spec;
 *  the design is in docs/contacts-export.md. */
import { describe, expect, it } from "vitest"
import { type Client, expectError } from "./client.js"

/** Parses RFC 4180 text (quoted cells, doubled quotes, CRLF records) into rows of cells. */
export const parseCsv = (text: string): Array<Array<string>> => {
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let cell = ""
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    if (quoted) {
      if (ch === "\"" && text[i + 1] === "\"") { cell += "\""; i++ }
      else if (ch === "\"") quoted = false
      else cell += ch
    } else if (ch === "\"") quoted = true
    else if (ch === ",") { row.push(cell); cell = "" }
    else if (ch === "\r" && text[i + 1] === "\n") { row.push(cell); rows.push(row); row = []; cell = ""; i++ }
    else cell += ch
  }
  if (cell !== "" || row.length > 0) { row.push(cell); rows.push(row) }
  return rows
}

const records = (text: string) => {
  const [header, ...rows] = parseCsv(text)
  return rows.map((row) => Object.fromEntries(header!.map((name, i) => [name, row[i]])))
}

export const exportTests = (client: () => Client) => {
  describe("GET /contacts/export", () => {
    it("streams CSV by default as an attachment, one record per contact, CRLF-ended", async () => {
      const { key } = await client().account()
      const ada = await client().contact(key, { email: "ada@example.com", firstName: "Ada", tags: ["vip", "beta"], customFields: { plan: "gold" }, metadata: { seats: 2 } })
      await client().contact(key, { email: "alan@example.com", lastName: "Turing" })
      const answer = await client().call("GET", "/v1/contacts/export", { key })
      expect(answer.status).toBe(200)
      expect(answer.contentType).toMatch(/^text\/csv/)
      expect(answer.headers.get("content-disposition")).toBe("attachment; filename=\"contacts-export.csv\"")
      expect(answer.text.endsWith("\r\n")).toBe(true)
      const rows = records(answer.text)
      expect(rows.map((r) => r.email).sort()).toEqual(["ada@example.com", "alan@example.com"])
      const row = rows.find((r) => r.email === "ada@example.com")!
      expect(row).toMatchObject({ id: ada.id, firstName: "Ada", lastName: "", status: "ACTIVE", source: "API", createdAt: ada.createdAt })
      expect(row.tags!.split(";").sort()).toEqual(["beta", "vip"])
      expect(JSON.parse(row.customFields!)).toEqual({ plan: "gold" })
      expect(JSON.parse(row.metadata!)).toEqual({ seats: 2 })
    })

    it("streams a JSON array of contacts with format=json", async () => {
      const { key } = await client().account()
      const ada = await client().contact(key, { email: "ada@example.com", tags: ["vip"] })
      const answer = await client().call("GET", "/v1/contacts/export?format=json", { key })
      expect(answer.status).toBe(200)
      expect(answer.contentType).toMatch(/^application\/json/)
      expect(answer.headers.get("content-disposition")).toBe("attachment; filename=\"contacts-export.json\"")
      expect(answer.json).toEqual([ada])
    })

    it("answers an empty export with a header row or an empty array", async () => {
      const { key } = await client().account()
      expect(parseCsv((await client().call("GET", "/v1/contacts/export", { key })).text)).toHaveLength(1)
      expect((await client().call("GET", "/v1/contacts/export?format=json", { key })).json).toEqual([])
    })

    it("applies the filters of GET /contacts", async () => {
      const { key } = await client().account()
      await client().contact(key, { email: "a@example.com", tags: ["vip"] })
      await client().contact(key, { email: "b@example.com", status: "UNSUBSCRIBED", source: "FORM" })
      await client().contact(key, { email: "c@sample.org", firstName: "Carla", tags: ["vip"] })
      const emails = async (query: string) =>
        (await client().call("GET", `/v1/contacts/export?format=json&${query}`, { key })).json.map((c: any) => c.email).sort()
      expect(await emails("tag=vip")).toEqual(["a@example.com", "c@sample.org"])
      expect(await emails("status=UNSUBSCRIBED")).toEqual(["b@example.com"])
      expect(await emails("source=FORM")).toEqual(["b@example.com"])
      expect(await emails("search=carla")).toEqual(["c@sample.org"])
      expect(await emails("search=%25")).toEqual([])
    })

    it("exports more contacts than one page of the store holds", async () => {
      const { key } = await client().account({ plan: "pro" })
      const contacts = Array.from({ length: 1000 }, (_, i) => ({ email: `c${String(i).padStart(4, "0")}@example.com` }))
      await client().call("POST", "/v1/contacts/bulk", { key, body: { contacts } })
      await client().call("POST", "/v1/contacts/bulk", { key, body: { contacts: [{ email: "last@example.com" }] } })
      const exported = (await client().call("GET", "/v1/contacts/export?format=json", { key })).json
      expect(exported).toHaveLength(1001)
      expect(new Set(exported.map((c: any) => c.id)).size).toBe(1001)
    })

    it("neutralises cells a spreadsheet would run as formulas, and quotes as RFC 4180 asks", async () => {
      const { key } = await client().account()
      await client().contact(key, {
        email: "formula@example.com",
        firstName: "=HYPERLINK(\"http://evil.example\",\"x\")",
        lastName: "@SUM(A1:A9)",
        phone: "+14155550123",
        customFields: { note: "-2+3" },
      })
      const row = records((await client().call("GET", "/v1/contacts/export", { key })).text)[0]!
      expect(row.firstName).toBe("'=HYPERLINK(\"http://evil.example\",\"x\")")
      expect(row.lastName).toBe("'@SUM(A1:A9)")
      expect(row.phone).toBe("'+14155550123")
    })

    it.each([["format=xml", "format"], ["status=GONE", "status"], ["tag=bad%20tag", "tag"]])(
      "refuses %s with VALIDATION_ERROR",
      async (query, field) => {
        const { key } = await client().account()
        expectError(await client().call("GET", `/v1/contacts/export?${query}`, { key }), 400, "VALIDATION_ERROR", field)
      },
    )
  })
}
