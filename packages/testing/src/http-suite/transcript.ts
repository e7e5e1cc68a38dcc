/** A fixed contacts scenario recorded as a normalised transcript (status, content type, body with ids, keys and
 *  timestamps replaced by placeholders) and compared with fixtures/contacts-transcript.json, so that every way of
 *  mounting Mailroom is shown to answer byte for byte alike. Set MAILROOM_WRITE_TRANSCRIPT=1 to rewrite the fixture
 *  from a verified run. */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { adminToken, type CallOptions, type Client } from "./client.js"

/** fixtures/contacts-transcript.json of this package, from the sources (src/http-suite/) or from the bundle (dist/). */
const fixtureCandidates = ["../../fixtures/contacts-transcript.json", "../fixtures/contacts-transcript.json"]
  .map((path) => new URL(path, import.meta.url))
export const transcriptFile = fixtureCandidates.find((url) => existsSync(url)) ?? fixtureCandidates[0]!

export interface TranscriptEntry {
  readonly step: string
  readonly request: string
  readonly status: number
  readonly contentType: string | null
  readonly body: unknown
}

/** Replaces what differs between runs with placeholders numbered by first appearance: `<ct:1>`, `<svc_live:1>`,
 *  `<time>`, `<uuid>`. */
export const makeNormaliser = () => {
  const seen = new Map<string, string>()
  const counters = new Map<string, number>()
  const placeholder = (kind: string, value: string) => {
    const known = seen.get(value)
    if (known !== undefined) return known
    const next = (counters.get(kind) ?? 0) + 1
    counters.set(kind, next)
    const made = `<${kind}:${next}>`
    seen.set(value, made)
    return made
  }
  return (text: string): string =>
    text
      .replace(/\bsvc_(live|test|app)_[0-9a-zA-Z]+/g, (key, mode: string) => placeholder(`svc_${mode}`, key))
      .replace(/\b(acc|key|app|ct|tag|cf|evt|lst|mem)_[0-9a-z_]+/g, (id, kind: string) => placeholder(kind, id))
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, "<time>")
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
}

/** Runs the scenario and answers its transcript. Every step is deterministic given the spec, whatever the backend. */
export const recordTranscript = async (client: Client): Promise<ReadonlyArray<TranscriptEntry>> => {
  const normalise = makeNormaliser()
  const entries: Array<TranscriptEntry> = []
  const step = async (name: string, method: string, path: string, options: CallOptions = {}) => {
    const answer = await client.call(method, path, options)
    const text = normalise(answer.text)
    entries.push({
      step: name,
      request: normalise(`${method} ${path}`),
      status: answer.status,
      contentType: answer.contentType,
      body: answer.json === undefined ? text : JSON.parse(text),
    })
    return answer
  }
  const json = { "content-type": "application/json" }

  const account = await step("create an account", "POST", "/admin/accounts", {
    key: adminToken,
    body: { name: "Transcript Ltd", plan: "pro", ownerEmail: "owner@transcript.example" },
  })
  const { id: accountId, apiKey: key } = account.json
  await step("read the account", "GET", `/admin/accounts/${accountId}`, { key: adminToken })
  const ada = await step("create a contact", "POST", "/v1/contacts", {
    key,
    body: {
      email: " Ada@Example.com ", firstName: "Ada", lastName: "Lovelace", phone: "+442071234567",
      metadata: { team: "engines" }, tags: ["beta"], customFields: { plan: "gold" },
    },
  })
  const adaId = ada.json.data.id
  await step("read it", "GET", `/v1/contacts/${adaId}`, { key })
  await step("create it again", "POST", "/v1/contacts", { key, body: { email: "ada@example.com" } })
  await step("create with an unknown field", "POST", "/v1/contacts", { key, body: { email: "x@example.com", nickname: "X" } })
  await step("create with malformed JSON", "POST", "/v1/contacts", { key, raw: "{\"email\":", headers: json })
  await step("create with a bad email", "POST", "/v1/contacts", { key, body: { email: "not-an-address" } })
  await step("unsubscribe by PATCH", "PATCH", `/v1/contacts/${adaId}`, { key, body: { status: "UNSUBSCRIBED", firstName: "Augusta Ada" } })
  await step("a forbidden move", "PATCH", `/v1/contacts/${adaId}`, { key, body: { status: "BOUNCED" } })
  await step("add a tag", "POST", `/v1/contacts/${adaId}/tags`, { key, body: { tags: ["gamma"] } })
  await step("remove a tag", "DELETE", `/v1/contacts/${adaId}/tags/beta`, { key })
  await step("bulk create", "POST", "/v1/contacts/bulk", {
    key,
    body: { skipDuplicates: false, contacts: [{ email: "grace@example.com", firstName: "Grace" }, { email: "alan@example.com" }, { email: "ada@example.com" }] },
  })
  await step("tags of the account", "GET", "/v1/contacts/tags", { key })
  const page = await step("first page by email", "GET", "/v1/contacts?sortBy=email&sortOrder=asc&limit=2", { key })
  await step("search", "GET", "/v1/contacts?search=GRACE", { key })
  await step("a bad parameter", "GET", "/v1/contacts?limit=5000", { key })
  await step("export CSV", "GET", "/v1/contacts/export?tag=gamma", { key })
  await step("export JSON", "GET", "/v1/contacts/export?format=json&tag=gamma", { key })
  const alan = page.json.data.find((c: any) => c.email === "alan@example.com")
  await step("bulk delete", "DELETE", "/v1/contacts/bulk", { key, body: { contactIds: [alan.id, "ct_unknown"] } })
  await step("delete a contact", "DELETE", `/v1/contacts/${adaId}`, { key })
  await step("read a deleted contact", "GET", `/v1/contacts/${adaId}`, { key })
  await step("no API key", "GET", "/v1/contacts")
  await step("revoke an unknown key", "DELETE", `/admin/accounts/${accountId}/api-keys/key_unknown`, { key: adminToken })
  await step("an unknown route", "GET", "/v1/nowhere", { key })
  await step("health", "GET", "/api/health")
  return entries
}

export const transcriptTests = (client: () => Client) => {
  describe("transcript", () => {
    it("answers the fixed scenario exactly as recorded in fixtures/contacts-transcript.json", async () => {
      const transcript = await recordTranscript(client())
      if (process.env.MAILROOM_WRITE_TRANSCRIPT === "1") {
        writeFileSync(transcriptFile, `${JSON.stringify(transcript, null, 2)}\n`)
        return
      }
      if (!existsSync(transcriptFile)) {
        throw new Error(`${transcriptFile.pathname} is missing: run the suite once with MAILROOM_WRITE_TRANSCRIPT=1 and review it`)
      }
      expect(transcript).toEqual(JSON.parse(readFileSync(transcriptFile, "utf8")))
    })
  })
}
