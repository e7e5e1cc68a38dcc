import { describe, expect, it } from "vitest"
import { makeTestApp } from "./support.js"

const post = (bytes: number) =>
  new Request("http://mailroom.test/v1/contacts", { method: "POST", body: "x".repeat(bytes), headers: { "content-length": String(bytes) } })

describe("answers given before the body is read", () => {
  const app = makeTestApp()

  it("read and discard a small unread body: the connection stays open", async () => {
    const request = post(10_000)
    const response = await app.app.fetch(request, { clientAddress: "198.51.100.1", httpVersion: "1.1" })
    expect(response.status).toBe(401)
    expect(response.headers.get("connection")).toBeNull()
    expect(request.bodyUsed).toBe(true)
  })

  it("close an HTTP/1 connection after a larger one, without reading it", async () => {
    const request = post(300_000)
    const response = await app.app.fetch(request, { clientAddress: "198.51.100.2", httpVersion: "1.1" })
    expect(response.status).toBe(401)
    expect(response.headers.get("connection")).toBe("close")
    expect(request.bodyUsed).toBe(false)
  })

  it("never name the connection on HTTP/2, whose streams end on their own", async () => {
    const response = await app.app.fetch(post(300_000), { clientAddress: "198.51.100.3", httpVersion: "2.0" })
    expect(response.status).toBe(401)
    expect(response.headers.get("connection")).toBeNull()
  })

  it("leave requests without a body alone", async () => {
    const response = await app.app.fetch(new Request("http://mailroom.test/v1/contacts"), { clientAddress: "198.51.100.4" })
    expect(response.status).toBe(401)
    expect(response.headers.get("connection")).toBeNull()
  })
})
