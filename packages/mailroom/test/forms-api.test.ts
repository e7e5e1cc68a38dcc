/** The forms API over HTTP on the facade (docs/forms.md): contacts:write on every route, validation that changes
 *  nothing, foreign ids as not found, and what a form shows (hosted URL, submit URL, embed snippet, consent text). */
import { formInputCases } from "@mailroom/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMailroom } from "../src/index.js"

const adminToken = "forms-admin-token"
const appUrl = "https://pages.example.com"

describe("the forms API", () => {
  const mailroom = createMailroom({ database: "memory:", adminToken, appUrl, backgroundWork: false })
  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await mailroom.fetch(new Request(`http://host.test${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }))
    return { status: response.status, body: await response.json() }
  }
  let key: string
  let accountId: string

  beforeAll(async () => {
    await mailroom.ready()
    const account = await call("POST", "/admin/accounts", adminToken, { plan: "pro" })
    key = account.body.apiKey
    accountId = account.body.id
  })
  afterAll(() => mailroom.close())

  it("creates a form and shows its consent text, links and embed snippet", async () => {
    const list = await call("POST", "/v1/contacts/lists", key, { name: "Newsletter" })
    const created = await call("POST", "/v1/forms", key, {
      name: "Footer <signup>", listIds: [list.body.data.id], doubleOptIn: true,
      allowedOrigins: ["https://www.example.com"], fields: [{ name: "firstName", label: "First name", required: true }],
    })
    expect(created.status).toBe(201)
    const form = created.body.data
    expect(form).toMatchObject({
      name: "Footer <signup>", listIds: [list.body.data.id], topicIds: [], doubleOptIn: true,
      consentText: "Signup form: Footer <signup>", customConsentText: false,
      hostedUrl: `${appUrl}/f/${form.id}`, submitUrl: `${appUrl}/v1/forms/${form.id}/submit`,
    })
    expect(form.embedHtml).toContain(`action="${appUrl}/v1/forms/${form.id}/submit"`)
    expect(form.embedHtml).toContain(`name="firstName"`)
    expect(form.embedHtml).toContain(`name="website_url"`)
    expect(form.embedHtml).not.toContain("<signup>")
    const read = await call("GET", `/v1/forms/${form.id}`, key)
    expect(read.body.data).toEqual(form)
    const page = await call("GET", "/v1/forms?limit=1", key)
    expect(page.body).toMatchObject({ success: true, meta: { total_count: 1, limit: 1, page: 1, has_more: false } })
  })

  it("updates the fields sent and deletes a form; another account's form is not found", async () => {
    const form = (await call("POST", "/v1/forms", key, { name: "A" })).body.data
    const patched = await call("PATCH", `/v1/forms/${form.id}`, key, { consentText: "Yes, email me", successRedirectUrl: "https://www.example.com/thanks" })
    expect(patched.body.data).toMatchObject({ name: "A", consentText: "Yes, email me", customConsentText: true, successRedirectUrl: "https://www.example.com/thanks" })
    const other = (await call("POST", "/admin/accounts", adminToken, { plan: "pro" })).body.apiKey
    for (const [method, body] of [["GET", undefined], ["PATCH", { name: "B" }], ["DELETE", undefined]] as const) {
      const answer = await call(method, `/v1/forms/${form.id}`, other, body)
      expect(answer.status).toBe(404)
      expect(answer.body.error.code).toBe("RESOURCE_NOT_FOUND")
    }
    expect((await call("DELETE", `/v1/forms/${form.id}`, key)).body.data).toEqual({ id: form.id, deleted: true })
    expect((await call("GET", `/v1/forms/${form.id}`, key)).status).toBe(404)
  })

  it.each(formInputCases.refused)("refuses %j with VALIDATION_ERROR and creates nothing", async (body, message) => {
    const before = (await call("GET", "/v1/forms", key)).body.meta.total_count
    const answer = await call("POST", "/v1/forms", key, body)
    expect(answer.status).toBe(400)
    expect(answer.body.error.code).toBe("VALIDATION_ERROR")
    expect(answer.body.error.message).toContain(message)
    expect((await call("GET", "/v1/forms", key)).body.meta.total_count).toBe(before)
  })

  it("refuses unknown fields, and lists or topics of another account as not found", async () => {
    expect((await call("POST", "/v1/forms", key, { name: "x", colour: "red" })).status).toBe(400)
    const other = (await call("POST", "/admin/accounts", adminToken, { plan: "pro" })).body.apiKey
    const foreign = (await call("POST", "/v1/contacts/lists", other, { name: "Theirs" })).body.data.id
    const answer = await call("POST", "/v1/forms", key, { name: "x", listIds: [foreign] })
    expect(answer.status).toBe(404)
    expect(answer.body.error.code).toBe("LIST_NOT_FOUND")
  })

  it("needs contacts:write", async () => {
    const readOnly = await call("POST", `/admin/accounts/${accountId}/api-keys`, adminToken, { scopes: ["contacts:read"] })
    const answer = await call("GET", "/v1/forms", readOnly.body.key)
    expect(answer.status).toBe(403)
    expect(answer.body.error.code).toBe("SCOPE_INSUFFICIENT")
  })
})
