import { Store } from "@mailroom/core"
import { MemoryStore } from "@mailroom/memory"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { exportColumns } from "../../src/index.js"
import { call, makeTestApp, newAccount } from "../support.js"

/** The memory store, counting the pages that export reads. */
const countingStore = (pages: { read: number }) =>
  Layer.effect(Store, Effect.map(Store, (store) => ({
    ...store,
    contacts: {
      ...store.contacts,
      listAfter: (...args: Parameters<typeof store.contacts.listAfter>) => {
        pages.read++
        return store.contacts.listAfter(...args)
      },
    },
  }))).pipe(Layer.provide(MemoryStore.layer))

const seed = async (app: ReturnType<typeof makeTestApp>, count: number) => {
  const { key } = await newAccount(app, { plan: "pro" })
  for (let start = 0; start < count; start += 1000) {
    const contacts = Array.from({ length: Math.min(1000, count - start) }, (_, i) => ({ email: `c${start + i}@example.com` }))
    await call(app, "POST", "/v1/contacts/bulk", { key, body: { contacts } })
  }
  return key
}

describe("GET /v1/contacts/export", () => {
  it("reads the store page by page as the client reads, and stops when the client goes away", async () => {
    const pages = { read: 0 }
    const app = makeTestApp({}, countingStore(pages))
    const key = await seed(app, 2600)
    const response = await app.fetch(new Request("http://mailroom.test/v1/contacts/export", { headers: { authorization: `Bearer ${key}` } }))
    expect(response.status).toBe(200)
    const reader = response.body!.getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value).startsWith(`${exportColumns.join(",")}\r\n`)).toBe(true)
    await reader.cancel()
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(pages.read).toBeGreaterThanOrEqual(1)
    expect(pages.read).toBeLessThan(4)
  })

  it("reads every page when the client reads to the end", async () => {
    const pages = { read: 0 }
    const app = makeTestApp({}, countingStore(pages))
    const key = await seed(app, 1200)
    const answer = await call(app, "GET", "/v1/contacts/export?format=json", { key })
    expect(answer.json).toHaveLength(1200)
    expect(pages.read).toBe(3)
  })

  it("writes the columns of docs/contacts-export.md in order", async () => {
    const app = makeTestApp()
    const { key } = await newAccount(app)
    const answer = await call(app, "GET", "/v1/contacts/export", { key })
    expect(answer.text).toBe(`${exportColumns.join(",")}\r\n`)
    expect(exportColumns).toEqual([
      "id", "email", "firstName", "lastName", "phone", "status", "source", "subscribedAt", "unsubscribedAt",
      "confirmedAt", "consentSource", "consentAt", "consentIp", "consentUserAgent", "consentText", "tags",
      "customFields", "metadata", "createdAt", "updatedAt",
    ])
    expect(answer.headers.get("cache-control")).toBe("no-store")
  })
})
