/** The main starter as a user runs it (CONTRACT.md, "Starting the main starter" and "Operator API"): `node
 *  scripts/start.mjs` from the repository root, which builds first when a package is not built or out of date, with
 *  PORT, HOST, DATABASE_URL and ADMIN_TOKEN in its environment. Everything is checked over plain HTTP. */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { once } from "node:events"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { fileURLToPath } from "node:url"
import Database from "better-sqlite3"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "./free-port.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))

/** A boot may have to build every package first (a fresh clone): tests and hooks that boot get this long. */
const bootTimeoutMs = 300_000
const booting = { timeout: bootTimeoutMs }
/** How long the starter may take to exit after SIGTERM once its last request has been answered. */
const exitTimeoutMs = 5_000

const adminToken = "starter-test-admin-token"
const admin = { token: adminToken }

// ---------------------------------------------------------------------------------------------------------------
// Helpers: temporary files, ports, child processes and HTTP calls.

const directories: Array<string> = []

/** A `sqlite:` DATABASE_URL for a file that does not exist yet, in its own temporary directory. */
const freshDatabaseUrl = (): string => {
  const directory = mkdtempSync(join(tmpdir(), "mailroom-starter-"))
  directories.push(directory)
  return `sqlite:${join(directory, "x.sqlite")}`
}

interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

interface Child {
  readonly process: ChildProcess
  readonly exited: Promise<Exit>
  readonly stdout: () => string
  readonly stderr: () => string
}

const children: Array<Child> = []

/** The contract's variables are removed from the inherited environment, so that each boot sees only its own. */
const contractVariables = [
  "PORT", "HOST", "DATABASE_URL", "APP_URL", "TRACK_URL", "MAILROOM_SECRET", "ADMIN_TOKEN", "SMTP_URL",
  "MAILROOM_UNSAFE_ALLOW_PRIVATE_URLS", "LOG_LEVEL",
]
const environmentWith = (variables: Record<string, string>): NodeJS.ProcessEnv => {
  const env = { ...process.env }
  for (const name of contractVariables) delete env[name]
  return { ...env, ...variables }
}

/** Starts `command` at the repository root, collecting its output. It stays in this process group, so that Ctrl-C on
 *  the test run reaches it too. */
const start = (command: string, args: ReadonlyArray<string>, variables: Record<string, string>): Child => {
  const child = spawn(command, args, {
    cwd: root,
    env: environmentWith(variables),
    stdio: ["ignore", "pipe", "pipe"],
  })
  let stdout = ""
  let stderr = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const exited = new Promise<Exit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })))
  const started: Child = { process: child, exited, stdout: () => stdout, stderr: () => stderr }
  children.push(started)
  return started
}

const isRunning = (child: Child) => child.process.exitCode === null && child.process.signalCode === null

/** Waits for `child` to exit, at most `ms`; undefined when it is still running. */
const exitWithin = (child: Child, ms: number): Promise<Exit | undefined> =>
  Promise.race([child.exited, sleep(ms).then(() => undefined)])

/** `pid` and every process it started, directly or not (start.mjs starts the build and the server). */
const processTree = (pid: number): Array<number> => {
  const table = execFileSync("ps", ["-A", "-o", "pid=", "-o", "ppid="], { encoding: "utf8" })
    .trim().split("\n").map((line) => line.trim().split(/\s+/).map(Number))
  const tree = [pid]
  for (let i = 0; i < tree.length; i++) {
    for (const [child, parent] of table) if (parent === tree[i] && child !== undefined) tree.push(child)
  }
  return tree
}

/** Stops every child still running: SIGTERM first (start.mjs passes it on), then SIGKILL to it and its descendants. */
const stopAll = async () => {
  await Promise.all(children.filter(isRunning).map(async (child) => {
    child.process.kill("SIGTERM")
    if (await exitWithin(child, exitTimeoutMs) !== undefined) return
    for (const pid of processTree(child.process.pid!)) {
      try {
        process.kill(pid, "SIGKILL")
      } catch {
        // Already gone.
      }
    }
    await child.exited
  }))
}

interface Starter extends Child {
  /** The URL from the starter's stdout line. */
  readonly url: string
  readonly port: number
}

/** `node scripts/start.mjs` as `npm start` runs it, on a free port; resolves once it has printed its URL. */
const bootStarter = async (variables: Record<string, string>): Promise<Starter> => {
  const port = await freePort()
  const child = start(process.execPath, ["scripts/start.mjs"], { PORT: String(port), HOST: "127.0.0.1", ...variables })
  const failed = (why: string) => new Error(`${why}\nstdout:\n${child.stdout()}\nstderr:\n${child.stderr()}`)
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      if (!child.stdout().includes("\n")) return
      const line = child.stdout().split("\n")[0]!
      const url = /https?:\/\/\S+/.exec(line)?.[0]
      if (url === undefined) reject(failed("the starter's first stdout line holds no URL"))
      else resolve(url)
    }
    child.process.stdout!.on("data", onData)
    void child.exited.then(({ code, signal }) => reject(failed(`the starter exited (${signal ?? code}) before it printed its URL`)))
  })
  return { ...child, url, port }
}

/** SIGTERM to the starter (what `kill` and service managers send); resolves with how it exited. */
const stopStarter = async (starter: Starter): Promise<Exit | undefined> => {
  starter.process.kill("SIGTERM")
  return exitWithin(starter, exitTimeoutMs)
}

interface Answer {
  readonly status: number
  /** The parsed JSON answer; the assertions check its shape. */
  readonly body: any
}

/** One HTTP call to the starter: a JSON body when `body` is given, a Bearer token when `token` is. */
const call = async (
  starter: Starter,
  method: string,
  path: string,
  options: { readonly token?: string; readonly body?: unknown } = {},
): Promise<Answer> => {
  const headers: Record<string, string> = {}
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  if (options.body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(new URL(path, starter.url), {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  })
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
}

/** POST /admin/accounts; the created account with its full-access key. */
const createAccount = async (starter: Starter, body: Record<string, unknown> = {}) => {
  const { status, body: account } = await call(starter, "POST", "/admin/accounts", { ...admin, body })
  expect(status).toBe(201)
  return account as { id: string; name: string | null; plan: string; ownerEmail: string | null; apiKey: string }
}

/** Whether a new TCP connection to the starter's port is refused (it no longer accepts). */
const refusesConnections = (starter: Pick<Starter, "port">): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(starter.port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(false)
    })
    socket.once("error", () => resolve(true))
  })

afterAll(async () => {
  try {
    await stopAll()
  } finally {
    for (const directory of directories) rmSync(directory, { recursive: true, force: true })
  }
}, bootTimeoutMs)

// ---------------------------------------------------------------------------------------------------------------

describe("the starter, started as `npm start` does, with ADMIN_TOKEN set", () => {
  let starter: Starter

  // The first boot builds whatever is not built yet; later boots and `npm run migrate` rely on that build.
  beforeAll(async () => {
    starter = await bootStarter({ DATABASE_URL: freshDatabaseUrl(), ADMIN_TOKEN: adminToken })
  }, bootTimeoutMs)

  it("prints one line on stdout, with the URL it listens on at PORT, spelled as APP_URL's default spells it", () => {
    expect(starter.url).toBe(`http://localhost:${starter.port}`)
    expect(starter.stdout().trimEnd().split("\n")).toHaveLength(1)
  })

  it("says nothing of the operator API, which ADMIN_TOKEN turned on", () => {
    expect(starter.stderr()).not.toMatch(/operator API/)
  })

  it("answers GET /api/health: ok, database connected", async () => {
    const { status, body } = await call(starter, "GET", "/api/health")
    expect(status).toBe(200)
    expect(body).toMatchObject({ status: "ok", database: "connected" })
    expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false)
  })

  it("answers GET / with a page linking the health check, the API reference, the mail viewer and the docs", async () => {
    const response = await fetch(new URL("/", starter.url))
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/html/)
    const page = await response.text()
    const links = [...page.matchAll(/<a href="([^"]+)">/g)].map((match) => match[1])
    expect(links).toEqual(expect.arrayContaining(["/api/health", "/v1/reference", "/v1/openapi.json", "/admin/mail"]))
    expect(links.some((href) => href?.startsWith("https://") === true && href.endsWith("/docs"))).toBe(true)
    // Every page of Mailroom's own that it links to answers; the mail viewer with its sign-in form.
    for (const href of links.filter((link) => link?.startsWith("/") === true)) {
      expect([href, (await fetch(new URL(href!, starter.url))).status]).toEqual([href, 200])
    }
    expect(await (await fetch(new URL("/admin/mail", starter.url))).text()).toContain(`<label for="token">Admin token</label>`)
  })

  describe("operator API at /admin", () => {
    it("POST /admin/accounts without a plan creates a free account and answers a full-access svc_live_ key", async () => {
      const { status, body } = await call(starter, "POST", "/admin/accounts", { ...admin, body: {} })
      expect(status).toBe(201)
      expect(Object.keys(body).sort()).toEqual(["apiKey", "id", "name", "ownerEmail", "plan"])
      expect(body.plan).toBe("free")
      expect(body.apiKey).toMatch(/^svc_live_/)
    })

    it("POST /admin/accounts with a plan, name and ownerEmail keeps them", async () => {
      const { status, body } = await call(starter, "POST", "/admin/accounts", {
        ...admin,
        body: { name: "Acme", plan: "starter", ownerEmail: "ops@acme.example" },
      })
      expect(status).toBe(201)
      expect(body).toMatchObject({ name: "Acme", plan: "starter", ownerEmail: "ops@acme.example" })
      expect(body.id).toEqual(expect.any(String))
      expect(body.apiKey).toMatch(/^svc_live_/)
    })

    it("the apiKey of a new account works on /v1/contacts, for reading and writing", async () => {
      const account = await createAccount(starter)
      const token = account.apiKey
      expect((await call(starter, "GET", "/v1/contacts", { token })).status).toBe(200)
      const created = await call(starter, "POST", "/v1/contacts", { token, body: { email: "full@example.com" } })
      expect(created.status).toBe(201)
    })

    it("GET /admin/accounts/{id} answers the account with createdAt and without its key", async () => {
      const account = await createAccount(starter, { name: "Read me", plan: "micro", ownerEmail: "owner@example.com" })
      const { status, body } = await call(starter, "GET", `/admin/accounts/${account.id}`, admin)
      expect(status).toBe(200)
      expect(body).toEqual({
        id: account.id,
        name: "Read me",
        plan: "micro",
        ownerEmail: "owner@example.com",
        createdAt: expect.any(String),
      })
      expect(Number.isNaN(Date.parse(body.createdAt))).toBe(false)
    })

    it("PATCH /admin/accounts/{id} changes plan, name and ownerEmail and answers the account", async () => {
      const account = await createAccount(starter, { name: "Before" })
      const patched = await call(starter, "PATCH", `/admin/accounts/${account.id}`, {
        ...admin,
        body: { plan: "pro", name: "After", ownerEmail: "new@example.com" },
      })
      expect(patched.status).toBe(200)
      expect(patched.body).toEqual({
        id: account.id,
        name: "After",
        plan: "pro",
        ownerEmail: "new@example.com",
        createdAt: expect.any(String),
      })
      expect((await call(starter, "GET", `/admin/accounts/${account.id}`, admin)).body).toEqual(patched.body)
    })

    it("answers 404 for an unknown account id or key id", async () => {
      const unknown = "acc_doesnotexist"
      const account = await createAccount(starter)
      const calls: Array<[string, string, unknown?]> = [
        ["GET", `/admin/accounts/${unknown}`],
        ["PATCH", `/admin/accounts/${unknown}`, { plan: "pro" }],
        ["POST", `/admin/accounts/${unknown}/api-keys`, {}],
        ["DELETE", `/admin/accounts/${unknown}/api-keys/key_doesnotexist`],
        ["DELETE", `/admin/accounts/${account.id}/api-keys/key_doesnotexist`],
        ["POST", `/admin/accounts/${unknown}/app-credentials`, { applicationKey: "app", allowedSenders: ["a@example.com"] }],
      ]
      for (const [method, path, body] of calls) {
        const answer = await call(starter, method, path, { ...admin, ...(body === undefined ? {} : { body }) })
        expect({ method, path, status: answer.status }).toEqual({ method, path, status: 404 })
      }
    })

    it("answers 401 to a wrong or missing admin token, on every route", async () => {
      const account = await createAccount(starter)
      const calls: Array<[string, string, unknown?]> = [
        ["POST", "/admin/accounts", {}],
        ["GET", `/admin/accounts/${account.id}`],
        ["PATCH", `/admin/accounts/${account.id}`, { plan: "pro" }],
        ["POST", `/admin/accounts/${account.id}/api-keys`, {}],
        ["DELETE", `/admin/accounts/${account.id}/api-keys/key_doesnotexist`],
        ["POST", `/admin/accounts/${account.id}/app-credentials`, { applicationKey: "app", allowedSenders: ["a@example.com"] }],
        ["GET", "/admin/outbox"],
      ]
      // An account's own API key is not an admin token either.
      for (const token of [undefined, "wrong-admin-token", account.apiKey]) {
        for (const [method, path, body] of calls) {
          const answer = await call(starter, method, path, {
            ...(token === undefined ? {} : { token }),
            ...(body === undefined ? {} : { body }),
          })
          expect({ token, method, path, status: answer.status }).toEqual({ token, method, path, status: 401 })
        }
      }
      // Nothing was changed by the refused calls.
      expect((await call(starter, "GET", `/admin/accounts/${account.id}`, admin)).body.plan).toBe("free")
    })

    it("POST /admin/accounts/{id}/api-keys with scopes and mode test answers a svc_test_ key with only those scopes", async () => {
      const account = await createAccount(starter)
      const { status, body } = await call(starter, "POST", `/admin/accounts/${account.id}/api-keys`, {
        ...admin,
        body: { name: "reporting", scopes: ["contacts:read"], mode: "test" },
      })
      expect(status).toBe(201)
      expect(body).toEqual({ id: expect.any(String), key: expect.stringMatching(/^svc_test_/), scopes: ["contacts:read"], mode: "test" })

      expect((await call(starter, "GET", "/v1/contacts", { token: body.key })).status).toBe(200)
      const write = await call(starter, "POST", "/v1/contacts", { token: body.key, body: { email: "nope@example.com" } })
      expect(write.status).toBe(403)
      expect(write.body.error.code).toBe("SCOPE_INSUFFICIENT")
    })

    it("POST /admin/accounts/{id}/api-keys without scopes or mode answers a full-access svc_live_ key", async () => {
      const account = await createAccount(starter)
      const { status, body } = await call(starter, "POST", `/admin/accounts/${account.id}/api-keys`, { ...admin, body: {} })
      expect(status).toBe(201)
      expect(body).toMatchObject({ key: expect.stringMatching(/^svc_live_/), mode: "live" })
      const write = await call(starter, "POST", "/v1/contacts", { token: body.key, body: { email: "any@example.com" } })
      expect(write.status).toBe(201)
    })

    it("DELETE /admin/accounts/{id}/api-keys/{keyId} revokes the key: it answers 401 at once", async () => {
      const account = await createAccount(starter)
      const created = await call(starter, "POST", `/admin/accounts/${account.id}/api-keys`, { ...admin, body: {} })
      const { id, key } = created.body
      expect((await call(starter, "GET", "/v1/contacts", { token: key })).status).toBe(200)

      const revoked = await call(starter, "DELETE", `/admin/accounts/${account.id}/api-keys/${id}`, admin)
      expect(revoked.status).toBe(200)
      expect(revoked.body).toEqual({ id, revoked: true })
      expect((await call(starter, "GET", "/v1/contacts", { token: key })).status).toBe(401)
      // The account's other keys keep working.
      expect((await call(starter, "GET", "/v1/contacts", { token: account.apiKey })).status).toBe(200)
    })

    it("POST /admin/accounts/{id}/app-credentials answers a svc_app_ key", async () => {
      const account = await createAccount(starter)
      const { status, body } = await call(starter, "POST", `/admin/accounts/${account.id}/app-credentials`, {
        ...admin,
        body: { applicationKey: "billing", allowedSenders: ["billing@example.com"] },
      })
      expect(status).toBe(201)
      expect(body).toEqual({ id: expect.any(String), key: expect.stringMatching(/^svc_app_/) })
    })

    it("GET /admin/outbox answers { data: [] } while SMTP_URL is unset", async () => {
      expect(await call(starter, "GET", "/admin/outbox", admin)).toEqual({ status: 200, body: { data: [] } })
      const filtered = await call(starter, "GET", "/admin/outbox?to=ada%40example.com&limit=5", admin)
      expect(filtered).toEqual({ status: 200, body: { data: [] } })
    })
  })

  it("creates a contact through /v1/contacts and reads it back", async () => {
    const { apiKey: token } = await createAccount(starter)
    const created = await call(starter, "POST", "/v1/contacts", {
      token,
      body: { email: "Ada@Example.com", firstName: "Ada", tags: ["newsletter"] },
    })
    expect(created.status).toBe(201)
    expect(created.body.data).toMatchObject({ email: "ada@example.com", firstName: "Ada", status: "ACTIVE" })

    const read = await call(starter, "GET", `/v1/contacts/${created.body.data.id}`, { token })
    expect(read.status).toBe(200)
    expect(read.body.data).toEqual(created.body.data)
    const listed = await call(starter, "GET", "/v1/contacts", { token })
    expect(listed.body.data.map((contact: { id: string }) => contact.id)).toEqual([created.body.data.id])
  })
})

/** Output lines of `child` on stderr that the build step did not print. */
const ownStderrLines = (child: Child) =>
  child.stderr().split("\n").filter((line) => line.trim() !== "" && !/^Building|^built |^> /.test(line))

/** Resolves once `child` has printed the line with its URL on stdout, among npm's own lines. */
const listening = async (child: Child): Promise<void> => {
  const started = Date.now()
  while (!child.stdout().includes("Mailroom listening on")) {
    if (!isRunning(child)) throw new Error(`exited before listening\nstdout:\n${child.stdout()}\nstderr:\n${child.stderr()}`)
    if (Date.now() - started > bootTimeoutMs) throw new Error("never printed its URL")
    await sleep(50)
  }
}

describe("first contact, as a new user tries it", () => {
  it("a signup form opened at the printed URL, or at another loopback spelling of it, accepts its own submission", booting, async () => {
    const starter = await bootStarter({ DATABASE_URL: freshDatabaseUrl(), ADMIN_TOKEN: adminToken })
    const { apiKey: token } = await createAccount(starter)
    const created = await call(starter, "POST", "/v1/forms", { token, body: { name: "Newsletter" } })
    expect(created.status).toBe(201)
    const form = created.body.data as { hostedUrl: string; submitUrl: string }
    expect(new URL(form.hostedUrl).origin).toBe(starter.url)
    const submitFrom = (origin: string, email: string) =>
      fetch(form.submitUrl, {
        method: "POST",
        headers: { origin, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ email }).toString(),
        redirect: "manual",
      })
    const loopbacks = [starter.url, `http://127.0.0.1:${starter.port}`, `http://[::1]:${starter.port}`]
    for (const [index, origin] of loopbacks.entries()) {
      const answer = await submitFrom(origin, `first-${index}@example.com`)
      expect({ origin, status: answer.status }).toEqual({ origin, status: 303 })
    }
    for (const origin of ["http://evil.example", `http://127.0.0.1:${starter.port + 1}`]) {
      const answer = await submitFrom(origin, "refused@example.com")
      expect({ origin, status: answer.status }).toEqual({ origin, status: 403 })
    }
    expect(await stopStarter(starter)).toEqual({ code: 0, signal: null })
  })

  it("without ADMIN_TOKEN, says at startup that the operator API is off and how to turn it on", booting, async () => {
    const starter = await bootStarter({ DATABASE_URL: freshDatabaseUrl() })
    const started = Date.now()
    while (!starter.stderr().includes("operator API") && Date.now() - started < 5_000) await sleep(25)
    expect(ownStderrLines(starter)).toEqual([expect.stringMatching(/operator API \(\/admin\) is off: set ADMIN_TOKEN/)])
    expect(starter.stdout().trimEnd().split("\n")).toHaveLength(1)
    expect(await stopStarter(starter)).toEqual({ code: 0, signal: null })
  })

  it.each([
    ["an unknown Postgres database", `postgres://postgres@127.0.0.1:5432/mailroom_missing_${process.pid}`, /database "mailroom_missing_\d+" does not exist on 127\.0\.0\.1:5432: create it \(createdb mailroom_missing_\d+\)/],
    ["an unreachable host", "postgres://postgres@127.0.0.1:1/mailroom", /nothing accepts connections at 127\.0\.0\.1:1: start PostgreSQL there/],
    ["a DATABASE_URL that is not a URL", "postgres://postgres:pa ss@127.0.0.1:port/mailroom", /DATABASE_URL is not a valid postgres:\/\/ URL/],
    ["a DATABASE_URL of an unsupported kind", "mysql://root@127.0.0.1/mailroom", /DATABASE_URL: database scheme mysql: is not supported/],
  ])("on %s, prints one line naming the cause and DATABASE_URL, and exits non-zero", booting, async (_case, url, line) => {
    const starter = start(process.execPath, ["scripts/start.mjs"], { DATABASE_URL: url, PORT: String(await freePort()) })
    const exit = await exitWithin(starter, 60_000)
    expect(exit?.code).not.toBe(0)
    expect(exit?.code).not.toBeNull()
    const lines = ownStderrLines(starter)
    expect(lines, starter.stderr()).toHaveLength(1)
    expect(lines[0]).toMatch(line)
    expect(lines[0]).toContain("DATABASE_URL")
    expect(lines[0]).not.toContain("pa ss")
    expect(starter.stdout()).toBe("")
  })

  it("logs no 4xx, not even at LOG_LEVEL=debug", booting, async () => {
    const starter = await bootStarter({ DATABASE_URL: freshDatabaseUrl(), ADMIN_TOKEN: adminToken, LOG_LEVEL: "debug" })
    const { apiKey: token } = await createAccount(starter)
    const before = { stdout: starter.stdout().length, stderr: starter.stderr().length }
    expect((await call(starter, "POST", "/v1/contacts", { token, body: { email: "not an address" } })).status).toBe(400)
    expect((await call(starter, "GET", "/v1/contacts?limit=many", { token })).status).toBe(400)
    expect((await call(starter, "GET", "/v1/no-such-route", { token })).status).toBe(404)
    await sleep(200)
    const output = starter.stdout().slice(before.stdout) + starter.stderr().slice(before.stderr)
    expect(output).not.toMatch(/unhandled|ValidationFailed|\n\s+at /i)
    expect(await stopStarter(starter)).toEqual({ code: 0, signal: null })
  })

  it.each([
    ["npm start -w @mailroom/example-hono-sqlite", "SIGTERM", ["start", "-w", "@mailroom/example-hono-sqlite"]],
    ["npm start -w @mailroom/example-hono-sqlite", "SIGINT", ["start", "-w", "@mailroom/example-hono-sqlite"]],
    ["npm start", "SIGTERM", ["start"]],
    ["npm start", "SIGINT", ["start"]],
  ] as const)("`%s` frees the port when npm gets %s", booting, async (_name, signal, args) => {
    const port = await freePort()
    const wrapper = start("npm", args, { DATABASE_URL: "memory:", PORT: String(port), HOST: "127.0.0.1" })
    await listening(wrapper)
    expect(await refusesConnections({ port })).toBe(false)
    const tree = processTree(wrapper.process.pid!)
    const alive = () => tree.filter((pid) => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    })
    try {
      wrapper.process.kill(signal)
      const signalled = Date.now()
      while (!(await refusesConnections({ port }))) {
        expect(Date.now() - signalled, `port ${port} still open after ${signal} to npm`).toBeLessThan(exitTimeoutMs * 2)
        await sleep(50)
      }
      expect(await exitWithin(wrapper, exitTimeoutMs)).toBeDefined()
      await sleep(100)
      expect(alive()).toEqual([])
    } finally {
      // A server that outlived its wrapper is no child of this test any more: stopAll would not find it.
      for (const pid of alive()) process.kill(pid, "SIGKILL")
    }
  })
})

describe("the starter's lifecycle", () => {
  it("creates the schema at boot, and a second boot on the same file keeps the data", booting, async () => {
    const DATABASE_URL = freshDatabaseUrl()
    const first = await bootStarter({ DATABASE_URL, ADMIN_TOKEN: adminToken })
    const account = await createAccount(first, { name: "Kept", plan: "pro" })
    const contact = await call(first, "POST", "/v1/contacts", { token: account.apiKey, body: { email: "kept@example.com" } })
    expect(contact.status).toBe(201)
    expect(await stopStarter(first)).toEqual({ code: 0, signal: null })

    const second = await bootStarter({ DATABASE_URL, ADMIN_TOKEN: adminToken })
    expect((await call(second, "GET", `/admin/accounts/${account.id}`, admin)).body).toMatchObject({ name: "Kept", plan: "pro" })
    const read = await call(second, "GET", `/v1/contacts/${contact.body.data.id}`, { token: account.apiKey })
    expect(read.status).toBe(200)
    expect(read.body.data.email).toBe("kept@example.com")
    expect(await stopStarter(second)).toEqual({ code: 0, signal: null })
  })

  it("does not serve /admin without ADMIN_TOKEN: 404, whatever the token", booting, async () => {
    const starter = await bootStarter({ DATABASE_URL: freshDatabaseUrl() })
    expect((await call(starter, "GET", "/api/health")).status).toBe(200)
    for (const token of [undefined, adminToken]) {
      const auth = token === undefined ? {} : { token }
      expect((await call(starter, "POST", "/admin/accounts", { ...auth, body: {} })).status).toBe(404)
      expect((await call(starter, "GET", "/admin/accounts/acc_doesnotexist", auth)).status).toBe(404)
      expect((await call(starter, "GET", "/admin/outbox", auth)).status).toBe(404)
    }
    expect(await stopStarter(starter)).toEqual({ code: 0, signal: null })
  })

  it("on SIGTERM, stops accepting, lets the request in flight finish, and exits 0 within a few seconds", booting, async () => {
    const starter = await bootStarter({ DATABASE_URL: freshDatabaseUrl(), ADMIN_TOKEN: adminToken })
    const account = await createAccount(starter, { plan: "pro" })
    const contacts = Array.from({ length: 1000 }, (_, i) => ({ email: `bulk-${i}@example.com`, firstName: `Bulk ${i}` }))
    const payload = JSON.stringify({ contacts })

    // A large POST /v1/contacts/bulk whose body is held back until the server has received its headers (it answers
    // 100 Continue), so that the request is certainly in flight when the signal arrives.
    const request = httpRequest(new URL("/v1/contacts/bulk", starter.url), {
      method: "POST",
      headers: {
        authorization: `Bearer ${account.apiKey}`,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(payload)),
        expect: "100-continue",
      },
    })
    const answered = new Promise<Answer>((resolve, reject) => {
      request.once("error", reject)
      request.once("response", (response) => {
        let text = ""
        response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
        response.once("error", reject)
        response.once("end", () => resolve({ status: response.statusCode!, body: JSON.parse(text) }))
      })
    })
    answered.catch(() => undefined) // awaited below; a connection reset before then fails the test there
    request.flushHeaders()
    await once(request, "continue")

    starter.process.kill("SIGTERM")
    const signalled = Date.now()
    while (!(await refusesConnections(starter))) {
      expect(Date.now() - signalled, "still accepting connections after SIGTERM").toBeLessThan(exitTimeoutMs)
      await sleep(25)
    }
    request.end(payload)

    const answer = await answered
    expect(answer.status).toBe(200)
    expect(answer.body.data).toMatchObject({ created: 1000, skipped: 0, errors: [] })
    expect(await exitWithin(starter, exitTimeoutMs)).toEqual({ code: 0, signal: null })
    expect(Date.now() - signalled).toBeLessThan(exitTimeoutMs)
  })

  it("`npm run migrate` creates the schema in a fresh SQLite file and exits 0; the starter then boots on it", booting, async () => {
    const DATABASE_URL = freshDatabaseUrl()
    const path = DATABASE_URL.slice("sqlite:".length)
    const migrate = start("npm", ["run", "migrate"], { DATABASE_URL })
    expect(await exitWithin(migrate, 60_000), migrate.stderr()).toEqual({ code: 0, signal: null })
    expect(existsSync(path)).toBe(true)

    const starter = await bootStarter({ DATABASE_URL, ADMIN_TOKEN: adminToken })
    expect((await call(starter, "GET", "/api/health")).body).toMatchObject({ status: "ok", database: "connected" })
    const account = await createAccount(starter)
    expect((await call(starter, "GET", "/v1/contacts", { token: account.apiKey })).status).toBe(200)
    expect(await stopStarter(starter)).toEqual({ code: 0, signal: null })
  })
})

// Double opt-in end to end, as a new user tries it (CONTRACT.md: the dev outbox and the link forms): subscribe with
// doubleOptIn, find the confirmation mail in GET /admin/outbox, follow its link as a browser does (the page, then its
// button), and see the contact confirmed and the events in the outbox table of the starter's SQLite file. A GET or HEAD
// of the link confirms nothing. It lives in this file so that it boots after the first boot has built the packages.
/** The account's events in the starter's SQLite file (the event outbox webhooks deliver from), oldest first. */
const eventsIn = (databaseFile: string, accountId: string) => {
  const db = new Database(databaseFile, { readonly: true, fileMustExist: true })
  try {
    return (db.prepare("SELECT type, details FROM events WHERE account_id = ? ORDER BY seq").all(accountId) as Array<{ type: string; details: string }>)
      .map((row) => ({ type: row.type, details: JSON.parse(row.details) as Record<string, unknown> }))
  } finally {
    db.close()
  }
}

/** Boots the starter with the admin token on a fresh SQLite file, and answers both. */
const bootOnFreshFile = async (): Promise<{ readonly starter: Starter; readonly databaseFile: string }> => {
  const DATABASE_URL = freshDatabaseUrl()
  return { starter: await bootStarter({ DATABASE_URL, ADMIN_TOKEN: adminToken }), databaseFile: DATABASE_URL.slice("sqlite:".length) }
}

describe("double opt-in on the starter", () => {
  let starter: Starter
  let databaseFile: string

  beforeAll(async () => { ({ starter, databaseFile } = await bootOnFreshFile()) }, bootTimeoutMs)

  const eventsOf = (accountId: string) => eventsIn(databaseFile, accountId)
  const pressButton = (link: string) =>
    fetch(link, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "", redirect: "manual" })

  it("subscribe, confirmation mail in the dev outbox, link followed, contact confirmed, events in the outbox", async () => {
    const account = await createAccount(starter, { name: "Acme News" })
    const list = await call(starter, "POST", "/v1/contacts/lists", { token: account.apiKey, body: { name: "Weekly" } })
    expect(list.status).toBe(201)
    const listId = list.body.data.id as string
    const email = `new.reader.${process.pid}@example.com`

    const subscribed = await call(starter, "POST", "/v1/subscriptions", {
      token: account.apiKey, body: { email, doubleOptIn: true, listIds: [listId], firstName: "Ada" },
    })
    expect(subscribed.status).toBe(201)
    expect(subscribed.body.data).toMatchObject({ email, status: "PENDING", requiresConfirmation: true, confirmationSent: true })

    // The confirmation mail, kept in the dev outbox.
    const outbox = await call(starter, "GET", `/admin/outbox?to=${encodeURIComponent(email)}`, admin)
    expect(outbox.status).toBe(200)
    expect(outbox.body.data).toHaveLength(1)
    const mail = outbox.body.data[0]
    const link = /https?:\/\/[^\s"'<>]+\/c\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/.exec(`${mail.text ?? ""} ${mail.html ?? ""}`)?.[0]
    expect(link, JSON.stringify(mail)).toBeDefined()

    // A scanner's HEAD or GET of the link confirms nothing.
    expect((await fetch(link!, { method: "HEAD" })).status).toBe(200)
    const page = await fetch(link!)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain("Confirm subscription")
    const statusPath = `/v1/subscriptions/${encodeURIComponent(email)}`
    const pending = await call(starter, "GET", statusPath, { token: account.apiKey })
    expect(pending.body.data.contact.status).toBe("PENDING")
    expect(pending.body.data.pendingConfirmation).not.toBeNull()

    // The recipient presses the button: the form posts to the page's own URL.
    const confirmed = await pressButton(link!)
    expect(confirmed.status).toBe(200)
    expect(await confirmed.text()).toContain("Subscription confirmed")
    const active = await call(starter, "GET", statusPath, { token: account.apiKey })
    expect(active.body.data.contact.status).toBe("ACTIVE")
    expect(active.body.data.contact.confirmedAt).not.toBeNull()
    expect(active.body.data.pendingConfirmation).toBeNull()

    // Used again, the link says it was used and confirms nothing more.
    expect(await (await pressButton(link!)).text()).toContain("Already confirmed")

    const events = eventsOf(account.id)
    expect(events.find((event) => event.type === "contact.subscribed")?.details)
      .toMatchObject({ email, source: "API", requiresConfirmation: true, status: "PENDING" })
    const confirmations = events.filter((event) => event.type === "contact.confirmed")
    expect(confirmations).toHaveLength(1)
    expect(confirmations[0]!.details).toMatchObject({ email, formId: null, listIds: [listId] })
    expect(Number.isNaN(Date.parse(String(confirmations[0]!.details.confirmedAt)))).toBe(false)
    expect(await stopStarter(starter)).toEqual({ code: 0, signal: null })
  }, 60_000)
})

// docs/sending.md, "Try it on the starter", as a new user follows it: a transactional and a marketing send land in the
// dev outbox, the marketing one with one-click List-Unsubscribe headers, and a mailbox provider's POST to the header's
// URL unsubscribes the recipient: the next marketing send drops her, receipts still reach her.
describe("sending on the starter (docs/sending.md)", () => {
  let starter: Starter
  let databaseFile: string

  beforeAll(async () => { ({ starter, databaseFile } = await bootOnFreshFile()) }, bootTimeoutMs)

  /** POST /v1/emails/send that must be accepted; answers the message id. */
  const send = async (token: string, body: Record<string, unknown>) => {
    const answer = await call(starter, "POST", "/v1/emails/send", { token, body })
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(answer.body.data.status).toBe("queued")
    return answer.body.data.id as string
  }
  /** GET /v1/emails/{id} until every recipient has an outcome. */
  const settled = async (token: string, id: string) => {
    for (let tries = 0; tries < 200; tries++) {
      const message = (await call(starter, "GET", `/v1/emails/${id}`, { token })).body.data
      if (["delivered", "dropped", "bounced", "partially_delivered"].includes(message.status)) return message
      await sleep(50)
    }
    throw new Error(`message ${id} was never delivered`)
  }

  it("a receipt and a newsletter reach the dev outbox; its preference centre saves a change; its one-click POST unsubscribes the recipient", async () => {
    const account = await createAccount(starter, { name: "Acme" })
    const token = account.apiKey
    const email = `ada.${process.pid}@example.org`
    expect((await call(starter, "POST", "/v1/contacts", { token, body: { email, firstName: "Ada" } })).status).toBe(201)
    const topic = await call(starter, "POST", "/v1/suppression-groups", {
      token, body: { name: "offers", publicLabel: "Offers", isPublishedOnUnsub: true },
    })
    expect(topic.status).toBe(201)
    const topicId = topic.body.data.id as string
    const receipt = {
      from: { email: "receipts@acme.example" }, to: [{ email }],
      content: { subject: "Your receipt", text: "Thanks for your order." },
    }
    const newsletter = {
      from: { email: "news@acme.example" }, to: [{ email }], stream: "marketing",
      content: { subject: "Our news", html: "<p>News</p><a href=\"{{unsubscribe_url}}\">Unsubscribe</a> <a href=\"{{preferences_url}}\">Preferences</a>" },
    }
    const receiptId = await send(token, receipt)
    const newsId = await send(token, newsletter)
    for (const id of [receiptId, newsId]) expect((await settled(token, id)).status).toBe("delivered")

    const outbox = await call(starter, "GET", `/admin/outbox?to=${encodeURIComponent(email)}`, admin)
    expect(outbox.status).toBe(200)
    expect(outbox.body.data.map((m: { subject: string }) => m.subject)).toEqual(["Our news", "Your receipt"])
    const [news, sentReceipt] = outbox.body.data
    expect(sentReceipt.headers["list-unsubscribe"]).toBeUndefined()
    expect(sentReceipt.headers["list-unsubscribe-post"]).toBeUndefined()
    expect(news.headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click")
    const header = /^<(http:\/\/localhost:\d+\/u\/[^>]+)>, <mailto:unsubscribe@acme\.example\?subject=unsubscribe>$/
      .exec(news.headers["list-unsubscribe"])
    expect(header, news.headers["list-unsubscribe"]).not.toBeNull()
    const oneClick = header![1]!
    expect(new URL(oneClick).port).toBe(String(starter.port))
    expect(news.html).toContain(`href="${oneClick}"`)

    // A link scanner's GET unsubscribes no one.
    expect((await fetch(oneClick)).status).toBe(200)
    expect((await call(starter, "GET", `/v1/suppressions/${encodeURIComponent(email)}`, { token })).status).toBe(404)

    // The preference centre of the mail: the topic is ticked; saving the form without it leaves the topic.
    const preferences = /href="(http:\/\/localhost:\d+\/p\/[^"]+)"/.exec(news.html)?.[1]
    expect(preferences, news.html).toBeDefined()
    const centre = await fetch(preferences!)
    expect(centre.status).toBe(200)
    expect(await centre.text()).toMatch(new RegExp(`name="topic" value="${topicId}"[^>]* checked`))
    const saved = await fetch(preferences!, {
      method: "POST", redirect: "manual", body: "action=save",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(preferences!).origin },
    })
    expect(saved.status).toBe(303)
    expect(saved.headers.get("location")).toBe(`${preferences}?saved=1`)
    const afterSave = await (await fetch(saved.headers.get("location")!)).text()
    expect(afterSave).toContain("Your preferences are saved.")
    expect(afterSave).not.toMatch(new RegExp(`name="topic" value="${topicId}"[^>]* checked`))
    expect(eventsIn(databaseFile, account.id).filter((event) => event.type === "contact.unsubscribed").map((event) => event.details))
      .toEqual([expect.objectContaining({ contactEmail: email, scope: "topic", topicId, method: "preference_center" })])

    // The mailbox provider's one-click POST (RFC 8058).
    const unsubscribed = await fetch(oneClick, {
      method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click",
    })
    expect(unsubscribed.status).toBe(200)
    const suppression = await call(starter, "GET", `/v1/suppressions/${encodeURIComponent(email)}`, { token })
    expect(suppression.status).toBe(200)
    expect(suppression.body.data).toMatchObject({ email, reason: "Unsubscribe" })
    const contacts = await call(starter, "GET", `/v1/contacts?search=${encodeURIComponent(email)}`, { token })
    expect(contacts.body.data.map((c: { status: string }) => c.status)).toEqual(["UNSUBSCRIBED"])
    expect(eventsIn(databaseFile, account.id).filter((event) => event.type === "contact.unsubscribed").at(-1)?.details)
      .toMatchObject({ contactEmail: email, scope: "all", method: "one_click" })

    // The next newsletter drops her; a receipt still reaches her.
    const nextNews = await settled(token, await send(token, newsletter))
    expect(nextNews.status).toBe("dropped")
    expect(nextNews.events.find((e: { type: string }) => e.type === "email.dropped"))
      .toMatchObject({ recipient: email, bounceReason: "UNSUBSCRIBE_SUPPRESSION" })
    expect((await settled(token, await send(token, receipt))).status).toBe("delivered")
    const after = await call(starter, "GET", `/admin/outbox?to=${encodeURIComponent(email)}`, admin)
    expect(after.body.data.map((m: { subject: string }) => m.subject)).toEqual(["Your receipt", "Our news", "Your receipt"])
    expect(await stopStarter(starter)).toEqual({ code: 0, signal: null })
  }, 60_000)
})
