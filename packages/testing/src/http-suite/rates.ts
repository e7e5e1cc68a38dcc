/** Request rates per API key: POST /emails/send 100 per second, POST /emails/batch 10 per second, all other endpoints
 *  200 per second, each counted apart; past them 429 RATE_LIMIT_EXCEEDED with error.context.retry_after and
 *  Retry-After. Spec: sending "Limits", "Errors"; audience "Errors". The target's limiters hold each window open
 *  (heldWindowLimiters), so that spending a limit may take as long as the machine needs. */
import { describe, expect, it } from "vitest"
import { type Answer, type Client, expectError } from "./client.js"

const send = (to: string) => ({
  from: { email: "news@sender.example" },
  to: [{ email: to }],
  content: { subject: "Rates", text: "Hello" },
})

const batch = (to: string) => ({
  from: { email: "news@sender.example" },
  content: { subject: "Rates", text: "Hello" },
  recipients: [{ to: { email: to } }],
})

/** A refusal at the start of a one-second window. */
const expectLimited = (answer: Answer) => {
  expectError(answer, 429, "RATE_LIMIT_EXCEEDED")
  expect(answer.json.error.context.retry_after).toBe(1)
  expect(answer.headers.get("retry-after")).toBe("1")
}

const expectOk = (answer: Answer) => expect(answer.status, answer.text).toBe(200)

export const rateTests = (ratesClient: () => Promise<Client>) => {
  describe("request rates", { timeout: 120_000 }, () => {
    it("the 101st POST /emails/send in a second answers 429; batches, other routes and other accounts go on", async () => {
      const client = await ratesClient()
      const { key } = await client.account({ plan: "pro" })
      const other = await client.account({ plan: "pro" })
      // Ten at a time: the window stays open however long they take.
      let last: Answer | undefined
      for (let i = 0; i < 100; i += 10) {
        const answers = await Promise.all(Array.from({ length: 10 }, (_, j) =>
          client.call("POST", "/v1/emails/send", { key, body: send(`r${i + j}@example.org`) })))
        answers.forEach(expectOk)
        last = answers[0]
      }
      expectLimited(await client.call("POST", "/v1/emails/send", { key, body: send("r100@example.org") }))
      expectOk(await client.call("POST", "/v1/emails/send", { key: other.key, body: send("r100@example.org") }))
      expectOk(await client.call("POST", "/v1/emails/batch", { key, body: batch("b@example.org") }))
      expectOk(await client.call("GET", `/v1/emails/${last!.json.data.id}`, { key }))
    })

    it("the 11th POST /emails/batch in a second answers 429; sends and other accounts go on", async () => {
      const client = await ratesClient()
      const { key } = await client.account({ plan: "pro" })
      const other = await client.account({ plan: "pro" })
      for (let i = 0; i < 10; i++) expectOk(await client.call("POST", "/v1/emails/batch", { key, body: batch(`r${i}@example.org`) }))
      expectLimited(await client.call("POST", "/v1/emails/batch", { key, body: batch("r10@example.org") }))
      expectOk(await client.call("POST", "/v1/emails/send", { key, body: send("s@example.org") }))
      expectOk(await client.call("POST", "/v1/emails/batch", { key: other.key, body: batch("r10@example.org") }))
    })

    it("the 201st request to the other endpoints in a second answers 429, whichever they are; sends count apart", async () => {
      const client = await ratesClient()
      const { key } = await client.account({ plan: "pro" })
      const other = await client.account({ plan: "pro" })
      // Sends and batches have rates of their own: these spend none of the 200.
      for (let i = 0; i < 10; i++) expectOk(await client.call("POST", "/v1/emails/send", { key, body: send(`s${i}@example.org`) }))
      for (let i = 0; i < 5; i++) expectOk(await client.call("POST", "/v1/emails/batch", { key, body: batch(`b${i}@example.org`) }))
      const scheduledFor = new Date(Date.now() + 3_600_000).toISOString()
      const scheduled = await client.call("POST", "/v1/emails/schedule", { key, body: { ...send("later@example.org"), scheduledFor } })
      expectOk(scheduled)
      for (let i = 1; i < 199; i += 18) {
        const answers = await Promise.all(Array.from({ length: 18 }, (_, j) =>
          client.call("GET", (i + j) % 2 === 0 ? "/v1/contacts?limit=1" : `/v1/emails/${scheduled.json.data.id}`, { key })))
        answers.forEach(expectOk)
      }
      expectOk(await client.call("DELETE", `/v1/emails/schedule/${scheduled.json.data.id}`, { key }))
      expectLimited(await client.call("GET", "/v1/contacts?limit=1", { key }))
      expectLimited(await client.call("POST", "/v1/emails/schedule", { key, body: { ...send("later@example.org"), scheduledFor } }))
      expectOk(await client.call("POST", "/v1/emails/send", { key, body: send("s10@example.org") }))
      expectOk(await client.call("GET", "/v1/contacts?limit=1", { key: other.key }))
    })
  })
}
