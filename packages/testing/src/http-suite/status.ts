/** Contact status changed with PATCH /contacts/{id}: every move of the spec's table, allowed and forbidden. Spec:
 *  audience "Contact status changed with PATCH /contacts/{id}". */
import { describe, expect, it } from "vitest"
import type { ContactStatus } from "@mailroom/core"
import { someSerialOrderAllows } from "../serial-history.js"
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

    it("twenty concurrent moves of one contact answer a history that some order of the accepted moves allows", async () => {
      const { key } = await client().account()
      const targets = ["UNSUBSCRIBED", "BOUNCED", "ACTIVE", "COMPLAINED", "PENDING"] as const
      const moves = Array.from({ length: 20 }, (_, i) => targets[i % targets.length]!)
      // Several rounds, each on a contact of its own: the requests of one round may happen to arrive one by one.
      for (let round = 0; round < 5; round++) {
        const contact = await client().contact(key, { email: `race-${round}@example.com` })
        const answers = await Promise.all(moves.map((to) =>
          client().call("PATCH", `/v1/contacts/${contact.id}`, { key, body: { status: to } })))
        for (const answer of answers) {
          if (answer.status !== 200) expectError(answer, 400, "INVALID_STATUS_TRANSITION")
        }
        const accepted = moves.filter((_, i) => answers[i]!.status === 200)
        const final = (await client().read(key, contact.id)).status as ContactStatus
        expect(someSerialOrderAllows("ACTIVE", accepted, final), `round ${round}: accepted ${accepted.join(" ")}, final ${final}`)
          .toBe(true)
      }
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
