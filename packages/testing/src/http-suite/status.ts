/** Contact status changed with PATCH /contacts/{id}: every move of the spec's table, allowed and forbidden. Spec:
 *  audience "Contact status changed with PATCH /contacts/{id}". */
import { describe, expect, it } from "vitest"
import { type Client, expectError } from "./client.js"

const statuses = ["PENDING", "ACTIVE", "UNSUBSCRIBED", "BOUNCED", "COMPLAINED", "CLEANED"] as const

/** The spec's table, copied row by row. */
const allowed: Record<(typeof statuses)[number], ReadonlyArray<string>> = {
  PENDING: ["ACTIVE", "UNSUBSCRIBED", "CLEANED"],
  ACTIVE: ["UNSUBSCRIBED", "BOUNCED", "COMPLAINED", "CLEANED"],
  UNSUBSCRIBED: ["ACTIVE", "PENDING"],
  BOUNCED: ["ACTIVE"],
  COMPLAINED: [],
  CLEANED: [],
}

const moves = statuses.flatMap((from) => statuses.filter((to) => to !== from).map((to) => [from, to] as const))
const allowedMoves = moves.filter(([from, to]) => allowed[from].includes(to))
const forbiddenMoves = moves.filter(([from, to]) => !allowed[from].includes(to))

export const statusTests = (client: () => Client) => {
  describe("PATCH /contacts/{id} status", () => {
    it.each(allowedMoves)("moves %s to %s", async (from, to) => {
      const { key } = await client().account()
      const contact = await client().contact(key, { email: "move@example.com", status: from })
      const answer = await client().call("PATCH", `/v1/contacts/${contact.id}`, { key, body: { status: to } })
      expect(answer.status, answer.text).toBe(200)
      expect(answer.json.data.status).toBe(to)
      expect((await client().read(key, contact.id)).status).toBe(to)
    })

    it.each(forbiddenMoves)("refuses %s to %s with 400 INVALID_STATUS_TRANSITION, changing nothing", async (from, to) => {
      const { key } = await client().account()
      const contact = await client().contact(key, { email: "stay@example.com", status: from, firstName: "Before" })
      const answer = await client().call("PATCH", `/v1/contacts/${contact.id}`, { key, body: { status: to, firstName: "After" } })
      expectError(answer, 400, "INVALID_STATUS_TRANSITION")
      expect(answer.json.error.message).toContain(from)
      expect(answer.json.error.message).toContain(to)
      expect(await client().read(key, contact.id)).toEqual(contact)
    })

    it.each(statuses)("keeps %s when PATCH sends the current status", async (status) => {
      const { key } = await client().account()
      const contact = await client().contact(key, { email: "same@example.com", status })
      const answer = await client().call("PATCH", `/v1/contacts/${contact.id}`, { key, body: { status } })
      expect({ status: answer.status, contact: answer.json.data?.status }).toEqual({ status: 200, contact: status })
    })

    it("stamps unsubscribedAt when a contact moves to UNSUBSCRIBED", async () => {
      const { key } = await client().account()
      const contact = await client().contact(key, { email: "leaving@example.com" })
      expect(contact.unsubscribedAt).toBeNull()
      const answer = await client().call("PATCH", `/v1/contacts/${contact.id}`, { key, body: { status: "UNSUBSCRIBED" } })
      expect(answer.json.data.unsubscribedAt).toEqual(expect.any(String))
    })
  })
}
