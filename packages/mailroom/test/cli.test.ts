/** `mailroom`, the operator command, run as an operator runs it: the built bin (dist/cli.js) as a process, with the
 *  starter's environment (a fresh SQLite file), its output read from stdout and stderr, and its exit code. */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMailroom } from "../src/index.js"

const bin = fileURLToPath(new URL("../dist/cli.js", import.meta.url))
const slow = { timeout: 300_000 }

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const directory = mkdtempSync(join(tmpdir(), "mailroom-cli-"))
const database = `sqlite:${join(directory, "cli.sqlite")}`
const children: Array<ChildProcess> = []

/** The starter's variables cleared, then `variables`. */
const environment = (variables: Record<string, string>): NodeJS.ProcessEnv => {
  const env = { ...process.env }
  for (const name of ["DATABASE_URL", "SMTP_URL", "ADMIN_TOKEN", "MAILROOM_SECRET", "LOG_LEVEL", "APP_URL"]) delete env[name]
  return { ...env, DATABASE_URL: database, MAILROOM_SECRET: "cli-test-secret", ...variables }
}

const launch = (args: ReadonlyArray<string>, variables: Record<string, string> = {}) => {
  const child = spawn(process.execPath, [bin, ...args], { env: environment(variables), stdio: ["ignore", "pipe", "pipe"] })
  children.push(child)
  let stdout = ""
  let stderr = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const done = new Promise<Run>((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })))
  return { child, done, stdout: () => stdout }
}

const mailroomCommand = (args: ReadonlyArray<string>, variables: Record<string, string> = {}) => launch(args, variables).done

beforeAll(() => {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run npm run build first`)
})

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL")
  rmSync(directory, { recursive: true, force: true })
})

describe("mailroom, the operator command", () => {
  let accountId = ""
  let apiKey = ""

  it("migrate creates the schema of DATABASE_URL and says so", slow, async () => {
    const run = await mailroomCommand(["migrate"])
    expect(run, run.stderr).toMatchObject({ code: 0 })
    expect(run.stdout.trim()).toBe(`Migrated ${database}`)
  })

  it("create-account prints the account and its API key once; the key authenticates on that database", slow, async () => {
    const run = await mailroomCommand(["create-account", "--name", "Acme", "--plan", "pro"])
    expect(run, run.stderr).toMatchObject({ code: 0 })
    const [created, key] = run.stdout.trim().split("\n")
    accountId = /^Created account (\S+) \(Acme, plan pro\)$/.exec(created ?? "")?.[1] ?? ""
    apiKey = /^API key, shown only now: (svc_live_\S+)$/.exec(key ?? "")?.[1] ?? ""
    expect(accountId).not.toBe("")
    expect(apiKey).not.toBe("")
    expect(run.stdout.split(apiKey)).toHaveLength(2)
    const mailroom = createMailroom({ database, secret: "cli-test-secret", backgroundWork: false })
    try {
      const { account } = await mailroom.accounts.authenticate(apiKey)
      expect(account).toMatchObject({ id: accountId, name: "Acme", plan: "pro" })
    } finally {
      await mailroom.close()
    }
  })

  it("create-api-key with --json prints a new key with the scopes asked for", slow, async () => {
    const run = await mailroomCommand(["create-api-key", "--account", accountId, "--scopes", "contacts:read", "--json"])
    expect(run, run.stderr).toMatchObject({ code: 0 })
    const created = JSON.parse(run.stdout) as { key: string; scopes: Array<string> }
    expect(created.key).toMatch(/^svc_live_/)
    expect(created.scopes).toEqual(["contacts:read"])
  })

  it("send-test delivers a message to the dev outbox, which outbox then shows; outbox --follow prints new mail", slow, async () => {
    const follow = launch(["outbox", "--follow"])
    const sent = await mailroomCommand(["send-test", "--account", accountId, "--to", "ada@example.com", "--subject", "First test"])
    expect(sent, sent.stderr).toMatchObject({ code: 0 })
    expect(sent.stdout).toMatch(/^Sent \S+ to ada@example\.com: delivered to the dev outbox$/m)

    const listed = await mailroomCommand(["outbox", "--json"])
    expect(listed, listed.stderr).toMatchObject({ code: 0 })
    const entries = listed.stdout.trim().split("\n").map((line) => JSON.parse(line) as { to: Array<string>; subject: string })
    // Each line is the entry as GET /admin/outbox answers it, attachments included.
    expect(entries).toEqual([expect.objectContaining({ to: ["ada@example.com"], subject: "First test", attachments: [] })])

    await expect.poll(() => follow.stdout(), { timeout: 120_000, interval: 200 }).toContain("First test")
    const second = await mailroomCommand(["send-test", "--account", accountId, "--to", "bob@example.com", "--subject", "Second test"])
    expect(second, second.stderr).toMatchObject({ code: 0 })
    await expect.poll(() => follow.stdout(), { timeout: 120_000, interval: 200 }).toContain("Second test")
    follow.child.kill("SIGINT")
    const stopped = await follow.done
    expect(stopped, stopped.stderr).toMatchObject({ code: 0 })
    expect(stopped.stdout.trim().split("\n").map((line) => line.split("  ").at(-1))).toEqual(["First test", "Second test"])
  })

  describe("failures: one clear line on stderr and a non-zero exit", () => {
    it("an unknown command or option exits 2 and points at help", slow, async () => {
      const unknown = await mailroomCommand(["frobnicate"])
      expect(unknown).toMatchObject({ code: 2, stdout: "" })
      expect(unknown.stderr).toMatch(/unknown command "frobnicate".*mailroom help/)
      const option = await mailroomCommand(["migrate", "--colour"])
      expect(option.code).toBe(2)
      expect(option.stderr).toMatch(/--colour/)
    })

    it("a plan that does not exist is refused with the API's VALIDATION_ERROR, and nothing is created", slow, async () => {
      const run = await mailroomCommand(["create-account", "--plan", "platinum"])
      expect(run).toMatchObject({ code: 1, stdout: "" })
      expect(run.stderr.trim().split("\n")).toHaveLength(1)
      expect(run.stderr).toMatch(/^mailroom create-account: VALIDATION_ERROR: .*plan/)
    })

    it("send-test for an unknown account answers RESOURCE_NOT_FOUND; without --to, names the option", slow, async () => {
      const unknown = await mailroomCommand(["send-test", "--account", "acc_nope", "--to", "ada@example.com"])
      expect(unknown.code).toBe(1)
      expect(unknown.stderr).toMatch(/^mailroom send-test: RESOURCE_NOT_FOUND: /)
      const missing = await mailroomCommand(["send-test", "--account", accountId])
      expect(missing.code).toBe(1)
      expect(missing.stderr.trim()).toBe("mailroom send-test: --to is required")
    })

    it("a database it cannot open is named, without its password, with what to change", slow, async () => {
      const run = await mailroomCommand(["migrate"], { DATABASE_URL: "postgres://mailroom:hunter2@127.0.0.1:1/mailroom" })
      expect(run.code).toBe(1)
      expect(run.stderr).toMatch(/^mailroom migrate: Mailroom could not open postgres:\/\/mailroom:\*\*\*@127\.0\.0\.1:1\/mailroom: /)
      expect(run.stderr).not.toContain("hunter2")
    })

    it("memory:, a malformed variable, and the outbox while SMTP_URL is set are refused", slow, async () => {
      const memory = await mailroomCommand(["migrate"], { DATABASE_URL: "memory:" })
      expect(memory.code).toBe(1)
      expect(memory.stderr).toMatch(/memory:, which lives inside one process/)
      const malformed = await mailroomCommand(["migrate"], { LOG_LEVEL: "loud" })
      expect(malformed.code).toBe(1)
      expect(malformed.stderr.trim()).toBe('mailroom migrate: LOG_LEVEL must be one of debug, info, warn, error, not "loud"')
      const relay = await mailroomCommand(["outbox"], { SMTP_URL: "smtp://127.0.0.1:2525" })
      expect(relay.code).toBe(1)
      expect(relay.stderr).toMatch(/SMTP_URL is set/)
    })
  })
})
