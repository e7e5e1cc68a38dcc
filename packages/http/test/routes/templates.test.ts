/** The legacy /templates group's own limit: at most 8 MiB of JSON even when the host allows larger bodies elsewhere,
 *  answered before the body is read (the connection closed after a large one, as other early answers do). */
import { describe, expect, it } from "vitest"
import { call, makeTestApp, newAccount } from "../support.js"

const mebibyte = 1024 * 1024

describe("legacy /templates under a host limit above 8 MiB", () => {
  const app = makeTestApp({ bodyLimitBytes: 16 * mebibyte })
  const filler = JSON.stringify({ variables: { filler: "x".repeat(9 * mebibyte) } })

  it("a 9 MiB render body is refused 413 with the deprecation headers, while /contacts reads one that size", async () => {
    const { key } = await newAccount(app, { plan: "pro" })
    const refused = await call(app, "POST", "/v1/templates/tpl_none/render", { key, raw: filler, headers: { "content-type": "application/json" } })
    expect(refused.status).toBe(413)
    expect(refused.json.error.code).toBe("PAYLOAD_TOO_LARGE")
    expect(refused.headers.get("deprecation")).toBe("true")
    expect(refused.headers.get("sunset")).toBe("Fri, 30 Apr 2027 00:00:00 GMT")
    const contacts = await call(app, "POST", "/v1/contacts", { key, raw: filler, headers: { "content-type": "application/json" } })
    expect(contacts.status).toBe(400)
    expect(contacts.json.error.code).toBe("VALIDATION_ERROR")
  })

  it("a declared length past 8 MiB is answered without reading the body, and the HTTP/1 connection is closed", async () => {
    const { key } = await newAccount(app, { plan: "pro" })
    const request = new Request("http://mailroom.test/v1/templates", {
      method: "POST",
      body: "x".repeat(9 * mebibyte),
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": String(9 * mebibyte) },
    })
    const response = await app.app.fetch(request, { clientAddress: "198.51.100.9", httpVersion: "1.1" })
    expect(response.status).toBe(413)
    expect(response.headers.get("connection")).toBe("close")
    expect(response.headers.get("link")).toBe("</api/v1/designs>; rel=\"successor-version\"")
    expect(request.bodyUsed).toBe(false)
  })
})
