/** What the campaign process tests share: a /v1 call through a Mailroom, a wait for a condition, a child process of
 *  test/fixtures/campaign-instance.mjs, and a campaign to a list of addresses made through the API. */
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import type { Mailroom } from "../../src/index.js"

const script = fileURLToPath(new URL("../fixtures/campaign-instance.mjs", import.meta.url))
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const call = async (mailroom: Mailroom, apiKey: string, method: string, path: string, body?: unknown) => {
  const response = await mailroom.fetch(new Request(`http://host.test/v1${path}`, {
    method, headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }))
  return (await response.json()) as { data: any }
}

export const waitFor = async (what: string, done: () => boolean | Promise<boolean>, ms: number) => {
  const deadline = Date.now() + ms
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

/** Starts an instance with `args`, kept in `children`; resolves once it prints `until`, rejects on "failed". */
export const startInstance = (
  children: Array<ChildProcess>,
  args: ReadonlyArray<string>,
  until: string,
  env: Readonly<Record<string, string>> = {},
) =>
  new Promise<ChildProcess>((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...env } })
    children.push(child)
    let seen = ""
    child.stdout.on("data", (chunk: Buffer) => {
      seen += chunk.toString()
      if (seen.includes("failed")) reject(new Error(seen))
      if (seen.includes(until)) resolve(child)
    })
    child.once("exit", (code) => reject(new Error(`instance exited with ${code}: ${seen}`)))
  })

/** An account with a list of `emails` (added `batch` at a time), one of them suppressed, the account's rate set to
 *  `messagesPerSecond`, and a draft campaign to the list; closes `setup`. */
export const seedCampaign = async (setup: Mailroom, options: {
  readonly name: string
  readonly emails: ReadonlyArray<string>
  readonly suppressed: string
  readonly messagesPerSecond: number
  readonly batch: number
}) => {
  const { apiKey } = await setup.accounts.create({ name: options.name.toLowerCase(), plan: "pro" })
  const list = (await call(setup, apiKey, "POST", "/contacts/lists", { name: "Readers" })).data.id as string
  for (let at = 0; at < options.emails.length; at += options.batch) {
    const part = options.emails.slice(at, at + options.batch)
    await call(setup, apiKey, "POST", "/contacts/bulk", { contacts: part.map((email) => ({ email })) })
    await call(setup, apiKey, "POST", `/contacts/lists/${list}/members`, { emails: part })
  }
  await call(setup, apiKey, "POST", "/suppressions", { email: options.suppressed, reason: "Complaint" })
  await call(setup, apiKey, "PUT", "/campaigns/settings", { messagesPerSecond: options.messagesPerSecond })
  const campaign = (await call(setup, apiKey, "POST", "/campaigns", {
    name: options.name, listIds: [list], subject: "Issue", from: { email: "news@example.com" }, text: "Hello {{contact.email}}",
  })).data.id as string
  await setup.close()
  return { apiKey, campaign }
}
