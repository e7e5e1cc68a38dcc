/** A client generated from /v1/openapi.json by third-party tools, as a user of the API would make one: openapi-typescript
 *  writes the types from the document the starter serves, a small openapi-fetch client is type-checked against them
 *  with tsc (a wrong field must not compile), then compiled and run against the starter over HTTP: a contact, a
 *  subscription and a send. */
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import openapiTS, { astToString } from "openapi-typescript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Starter, startStarter } from "./browser/harness.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const tsc = join(root, "node_modules", "typescript", "bin", "tsc")

/** The client a user would write. The lines marked @ts-expect-error send bodies the document refuses: tsc
 *  fails if the generated types let it through (then the directive is unused). */
const clientSource = `import createClient from "openapi-fetch"
import type { paths } from "./schema.js"

export const run = async (baseUrl: string, key: string) => {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${key}\` } })
  const contact = await client.POST("/v1/contacts", { body: { email: "ada@example.com", firstName: "Ada" } })
  // @ts-expect-error: a contact's email is a string
  void (() => client.POST("/v1/contacts", { body: { email: 42 } }))
  // @ts-expect-error: a send needs its content
  void (() => client.POST("/v1/emails/send", { body: { from: { email: "a@example.com" }, to: [] } }))
  const subscription = await client.POST("/v1/subscriptions", { body: { email: "bob@example.com" } })
  const status = await client.GET("/v1/subscriptions/{email}", { params: { path: { email: "bob@example.com" } } })
  const sent = await client.POST("/v1/emails/send", {
    body: {
      from: { email: "hello@example.com" },
      to: [{ email: "bob@example.com" }],
      content: { subject: "Hello from a generated client", text: "Hello" },
    },
  })
  const missing = await client.GET("/v1/contacts/{id}", { params: { path: { id: "nope" } } })
  return {
    contactId: contact.data?.data.id,
    contactStatus: contact.response.status,
    subscriptionStatus: subscription.data?.data.status,
    unsubscribedFromAll: status.data?.data.unsubscribedFromAll,
    messageId: sent.data?.data.id,
    missingCode: missing.error?.error.code,
  }
}
`

describe("a client generated from the OpenAPI document", () => {
  let starter: Starter
  let directory: string
  beforeAll(async () => {
    starter = await startStarter()
    // Inside the repository, so that the client resolves openapi-fetch from its node_modules.
    mkdirSync(join(root, ".artifacts"), { recursive: true })
    directory = mkdtempSync(join(root, ".artifacts", "openapi-client-"))
  }, 120_000)
  afterAll(async () => {
    await starter?.close()
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true })
  })

  it("type-checks and calls the starter for a contact, a subscription and a send", async () => {
    const document = await (await fetch(`${starter.origin}/v1/openapi.json`)).json()
    writeFileSync(join(directory, "schema.d.ts"), astToString(await openapiTS(document)))
    writeFileSync(join(directory, "client.ts"), clientSource)
    writeFileSync(join(directory, "package.json"), JSON.stringify({ type: "module" }))
    writeFileSync(join(directory, "tsconfig.json"), JSON.stringify({
      compilerOptions: {
        strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", skipLibCheck: true,
        outDir: "out", noUnusedLocals: true,
      },
      files: ["client.ts"],
    }))
    try {
      execFileSync(process.execPath, [tsc, "-p", directory], { encoding: "utf8", stdio: "pipe" })
    } catch (error) {
      throw new Error(`tsc refused the generated client:\n${(error as { stdout?: string }).stdout ?? String(error)}`)
    }

    const created = await starter.api("POST", "/admin/accounts", starter.adminToken, { name: "Generated client" })
    expect(created.status).toBe(201)
    const { run } = await import(pathToFileURL(join(directory, "out", "client.js")).href) as {
      run: (baseUrl: string, key: string) => Promise<Record<string, unknown>>
    }
    const result = await run(starter.origin, created.body.apiKey)
    expect(result).toEqual({
      contactId: expect.any(String),
      contactStatus: 201,
      subscriptionStatus: "ACTIVE",
      unsubscribedFromAll: false,
      messageId: expect.any(String),
      missingCode: "RESOURCE_NOT_FOUND",
    })
    const [mail] = await starter.mailTo("bob@example.com")
    expect(mail!.subject).toBe("Hello from a generated client")
  }, 120_000)
})
