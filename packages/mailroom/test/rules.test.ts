// The Promise facade meets the spec's limits and the text rules exactly as HTTP does: the same VALIDATION_ERROR with
// the same field, nothing written; and its Promise API modules stand on core alone.
import { readFileSync } from "node:fs"
import { afterAll, describe, expect, it } from "vitest"
import { createMailroom } from "../src/index.js"

const adminToken = "test-admin-token"
const lone = "Ad\ud800a"

const failureOf = async (promise: Promise<unknown>) => {
  try {
    await promise
  } catch (error) {
    const { code, field } = error as { code?: string; field?: string }
    return { code, field }
  }
  throw new Error("expected a refusal")
}

describe("the Promise facade", () => {
  const mailroom = createMailroom({ database: "memory:", adminToken })
  afterAll(() => mailroom.close())

  it("refuses what HTTP refuses, with the same code and field, and writes nothing", async () => {
    const { account, apiKey } = await mailroom.accounts.create({ plan: "pro" })
    const cases: ReadonlyArray<readonly [Promise<unknown>, string, string]> = [
      [mailroom.contacts.list(account.id, { limit: 1001 }), "limit", "/v1/contacts?limit=1001"],
      [mailroom.contacts.list(account.id, { search: "x".repeat(255) }), "search", `/v1/contacts?search=${"x".repeat(255)}`],
      [mailroom.contacts.create(account.id, { email: "a@example.com", firstName: lone }), "firstName", ""],
      [mailroom.contacts.bulkCreate(account.id, { contacts: Array.from({ length: 1001 }, (_, i) => ({ email: `p${i}@example.com` })) }), "contacts", ""],
      [mailroom.contacts.bulkDelete(account.id, Array.from({ length: 1001 }, (_, i) => `ct_${i}`)), "contactIds", ""],
      [mailroom.accounts.create({ name: "x".repeat(256) }), "name", ""],
    ]
    for (const [call, field, path] of cases) {
      expect(await failureOf(call)).toEqual({ code: "VALIDATION_ERROR", field })
      if (path !== "") {
        const answer = await mailroom.fetch(new Request(`http://host.test${path}`, { headers: { authorization: `Bearer ${apiKey}` } }))
        expect([answer.status, (await answer.json()).error.context.field]).toEqual([400, field])
      }
    }
    expect((await mailroom.contacts.list(account.id)).total).toBe(0)
  })

  it("answers a lone surrogate over HTTP as through the facade: 400 naming the field, and nothing stored", async () => {
    const { account, apiKey } = await mailroom.accounts.create({ plan: "pro" })
    const post = (body: string) => mailroom.fetch(new Request("http://host.test/v1/contacts", {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body,
    }))
    for (const [body, field] of [
      [String.raw`{"email":"lone@example.com","firstName":"Ad\ud800a"}`, "firstName"],
      [String.raw`{"email":"lone@example.com","lastName":"\udfff"}`, "lastName"],
      [String.raw`{"email":"lone@example.com","customFields":{"city":"\ud83d"}}`, "customFields.city"],
    ] as const) {
      const answer = await post(body)
      const json = await answer.json()
      expect([answer.status, json.error.code, json.error.context.field]).toEqual([400, "VALIDATION_ERROR", field])
    }
    expect((await mailroom.contacts.list(account.id)).total).toBe(0)
    // A well-formed pair (an emoji) is text like any other: what the create answers is what a read shows.
    const created = await (await post(String.raw`{"email":"emoji@example.com","firstName":"Ad\ud83d\ude00a"}`)).json()
    const read = await (await mailroom.fetch(new Request(`http://host.test/v1/contacts/${created.data.id}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    }))).json()
    expect([created.data.firstName, read.data.firstName]).toEqual(["Ad😀a", "Ad😀a"])
  })

  it("keeps its Promise API modules free of @mailroom/http: only create-mailroom.ts builds the router", () => {
    for (const module of ["contacts-api.ts", "accounts-api.ts", "promise-runner.ts", "config.ts"]) {
      const source = readFileSync(new URL(`../src/${module}`, import.meta.url), "utf8")
      expect([module, /from "@mailroom\/http"/.test(source)]).toEqual([module, false])
    }
  })
})
