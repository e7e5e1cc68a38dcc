// The proof that Mailroom installs from the registry as a user gets it: packs every public package (npm pack), checks
// each tarball (README, LICENSE, the entries its exports name, nothing bundled from other packages), installs the
// tarballs into a scratch app outside the workspace (no workspace links, no overrides; their @mailroom/* dependencies
// resolve to one another, everything else comes from the registry), and boots that app once per framework: Hono on
// SQLite, Express on PostgreSQL (a scratch database on 127.0.0.1:5432), Fastify on memory. Each boot creates an account,
// subscribes an address and sends a message, finds it in the dev outbox over HTTP, and reads it in the mail viewer
// (signing in with the admin token as its form does). Then it checks that a postgres:// database without @mailroom/postgres installed names the package to install, and that the installed
// `mailroom` command runs. Run after `npm run build`.
import { execFileSync, spawn } from "node:child_process"
import { once } from "node:events"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { fileURLToPath } from "node:url"

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const order = JSON.parse(readFileSync(join(root, "scripts/build-order.json"), "utf8"))
const manifest = (dir) => JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"))
const publicDirs = order.filter((dir) => manifest(dir).private !== true)
const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
/** The version range the workspace uses for a package the scratch app installs from the registry. */
const workspaceRange = (name) => {
  for (const dir of order) {
    const { dependencies = {}, devDependencies = {}, peerDependencies = {} } = manifest(dir)
    const range = dependencies[name] ?? devDependencies[name] ?? peerDependencies[name]
    if (range !== undefined) return range
  }
  return rootManifest.devDependencies?.[name] ?? "latest"
}

const started = Date.now()
const step = (what) => console.log(`pack-check: ${what} (${((Date.now() - started) / 1000).toFixed(0)} s)`)
const fail = (why) => {
  console.error(`pack-check: FAILED: ${why}`)
  process.exit(1)
}
const npm = (args, cwd) => execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })

const scratch = mkdtempSync(join(tmpdir(), "mailroom-pack-check-"))
const tarballs = join(scratch, "tarballs")
const app = join(scratch, "app")
mkdirSync(tarballs)
mkdirSync(app)
const keep = process.env.PACK_CHECK_KEEP === "1"
process.on("exit", () => { if (!keep) rmSync(scratch, { recursive: true, force: true }) })

// 1. Pack, and look into each tarball.
const packed = []
// One npm for every package: each npm start costs seconds.
const results = JSON.parse(npm(["pack", "--json", "--pack-destination", tarballs, ...publicDirs.flatMap((dir) => ["-w", dir])], root))
for (const dir of publicDirs) {
  const pkg = manifest(dir)
  const result = results.find((candidate) => candidate.name === pkg.name)
  if (result === undefined) fail(`npm pack made no tarball of ${pkg.name}`)
  const files = new Set(result.files.map((file) => file.path))
  for (const needed of ["README.md", "LICENSE", "package.json"]) {
    if (!files.has(needed)) fail(`${pkg.name}'s tarball has no ${needed}`)
  }
  if (readFileSync(join(root, dir, "LICENSE"), "utf8") !== readFileSync(join(root, "LICENSE"), "utf8")) {
    fail(`${dir}/LICENSE differs from the repository's LICENSE`)
  }
  for (const [subpath, entry] of Object.entries(pkg.exports)) {
    for (const target of [entry.import, entry.types]) {
      if (!files.has(target.replace(/^\.\//, ""))) fail(`${pkg.name}'s export ${subpath} names ${target}, which is not in its tarball`)
    }
  }
  for (const bin of Object.values(pkg.bin ?? {})) if (!files.has(bin.replace(/^\.\//, ""))) fail(`${pkg.name}'s bin ${bin} is not packed`)
  if ([...files].some((file) => file.endsWith(".build-stamp") || file.includes("/test/"))) fail(`${pkg.name} packs build or test files`)
  if (!pkg.engines?.node || pkg.sideEffects === undefined || !pkg.types) fail(`${pkg.name} lacks engines, sideEffects or types`)
  for (const [name, range] of Object.entries(pkg.dependencies ?? {})) {
    if (name.startsWith("@mailroom/") && !/^\^\d/.test(range)) fail(`${pkg.name} depends on ${name}@${range}: use a ^ range`)
  }
  for (const [name, range] of Object.entries(pkg.peerDependencies ?? {})) {
    if (/^(file|workspace|link):/.test(range)) fail(`${pkg.name} has the peer ${name}@${range}, which no registry resolves`)
  }
  // esbuild marks code it bundled from outside the package with its path (`// ../core/src/…`, `// node_modules/…`).
  for (const file of [...files].filter((file) => /^dist\/.*\.js$/.test(file))) {
    const foreign = /^\/\/ (?!src\/)\S*(node_modules|\.\.\/)\S*$/m.exec(readFileSync(join(root, dir, file), "utf8"))
    if (foreign !== null) fail(`${pkg.name}'s ${file} bundles ${foreign[0].slice(3)}: declare it as a dependency instead`)
  }
  packed.push({ name: pkg.name, file: join(tarballs, result.filename) })
}
step(`packed ${packed.length} packages`)

// 2. The scratch app: the tarballs, the frameworks and the Postgres peer from the registry.
writeFileSync(join(app, "package.json"), `${JSON.stringify({ name: "mailroom-scratch-app", private: true, type: "module" }, null, 2)}\n`)
copyFileSync(join(root, "scripts/pack-check/app.mjs"), join(app, "app.mjs"))
const registryPackages = ["hono", "@hono/node-server", "express", "fastify"].map((name) => `${name}@${workspaceRange(name)}`)
npm(["install", "--no-audit", "--no-fund", "--prefer-offline", ...packed.map((p) => p.file), ...registryPackages], app)
const installed = JSON.parse(readFileSync(join(app, "package.json"), "utf8"))
for (const [name, spec] of Object.entries(installed.dependencies)) {
  if (spec.startsWith("file:") && !spec.endsWith(".tgz")) fail(`the scratch app depends on ${name} as ${spec}`)
}
for (const { name } of packed) {
  const where = join(app, "node_modules", name)
  if (!existsSync(join(where, "package.json"))) fail(`${name} is not installed in the scratch app`)
}
if (existsSync(join(app, "node_modules/@mailroom/testing"))) fail("the private @mailroom/testing was installed")
step("installed the tarballs into a scratch app")

// 3. Boot it once per framework.
const adminToken = "pack-check-admin-token"

const boot = async (framework, database) => {
  const child = spawn(process.execPath, ["app.mjs", framework, database], {
    cwd: app, env: { ...process.env, ADMIN_TOKEN: adminToken }, stdio: ["ignore", "pipe", "pipe"],
  })
  let output = ""
  child.stdout.setEncoding("utf8").on("data", (chunk) => (output += chunk))
  child.stderr.setEncoding("utf8").on("data", (chunk) => (output += chunk))
  const exited = once(child, "exit")
  const deadline = Date.now() + 120_000
  while (!/listening (\S+)/.test(output)) {
    if (child.exitCode !== null) fail(`${framework} on ${database} exited before it listened:\n${output}`)
    if (Date.now() > deadline) fail(`${framework} on ${database} did not listen within 120 s:\n${output}`)
    await sleep(100)
  }
  return { base: /listening (\S+)/.exec(output)[1], output: () => output, stop: async () => {
    child.kill("SIGTERM")
    const [code] = await exited
    if (code !== 0) fail(`${framework} exited ${code} on SIGTERM:\n${output}`)
  } }
}

const http = async (base, method, path, { token, body } = {}) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
}

const expectStatus = (what, answer, status) => {
  if (answer.status !== status) fail(`${what} answered ${answer.status}, not ${status}: ${JSON.stringify(answer.body)}`)
  return answer.body
}

/** An account, a subscribed address and a sent message, found in the dev outbox. */
const exercise = async (framework, base) => {
  const health = expectStatus(`${framework}: GET /api/health`, await http(base, "GET", "/api/health"), 200)
  if (health.status !== "ok") fail(`${framework}: health is ${JSON.stringify(health)}`)
  const account = expectStatus(`${framework}: POST /admin/accounts`,
    await http(base, "POST", "/admin/accounts", { token: adminToken, body: { name: "Scratch", plan: "pro" } }), 201)
  const subscriber = `ada+${framework}@example.com`
  expectStatus(`${framework}: POST /v1/subscriptions`,
    await http(base, "POST", "/v1/subscriptions", { token: account.apiKey, body: { email: subscriber, firstName: "Ada" } }), 201)
  const subject = `Hello from ${framework}`
  expectStatus(`${framework}: POST /v1/emails/send`, await http(base, "POST", "/v1/emails/send", {
    token: account.apiKey,
    body: { from: { email: "team@example.com" }, to: [{ email: subscriber }], content: { subject, text: "It works." } },
  }), 200)
  const deadline = Date.now() + 30_000
  for (;;) {
    const outbox = expectStatus(`${framework}: GET /admin/outbox`,
      await http(base, "GET", `/admin/outbox?to=${encodeURIComponent(subscriber)}`, { token: adminToken }), 200)
    if (outbox.data.some((message) => message.subject === subject)) break
    if (Date.now() > deadline) fail(`${framework}: the message never reached the dev outbox: ${JSON.stringify(outbox)}`)
    await sleep(200)
  }
  step(`${framework}: account, subscription and message in the dev outbox`)
  await readInViewer(framework, base, subject)
}

/** The message read in the mail viewer as a browser does: the sign-in form posts the admin token, the session cookie
 *  it answers reads the viewer's list and the message's raw source (docs/dev-outbox.md). */
const readInViewer = async (framework, base, subject) => {
  const page = await fetch(`${base}/admin/mail`)
  if (page.status !== 200 || !(await page.text()).includes("Admin token")) fail(`${framework}: GET /admin/mail answered ${page.status} without the sign-in form`)
  const login = await fetch(`${base}/admin/mail/login`, {
    method: "POST", redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ token: adminToken }),
  })
  const cookie = login.headers.get("set-cookie")?.split(";")[0]
  if (login.status !== 303 || cookie === undefined) fail(`${framework}: signing in to the mail viewer answered ${login.status}`)
  const viewer = await fetch(`${base}/admin/mail`, { headers: { cookie } })
  if (!(await viewer.text()).includes("<iframe id=\"frame\" sandbox=\"\"")) fail(`${framework}: the mail viewer did not open after signing in`)
  const list = await fetch(`${base}/admin/mail/messages`, { headers: { cookie } })
  const message = list.status === 200 ? (await list.json()).data.find((m) => m.subject === subject) : undefined
  if (message === undefined) fail(`${framework}: the mail viewer's list (${list.status}) does not show "${subject}"`)
  const source = await fetch(`${base}/admin/mail/messages/${encodeURIComponent(message.id)}/raw`, { headers: { cookie } })
  if (source.status !== 200 || !(await source.text()).includes(`Subject: ${subject}`)) fail(`${framework}: the raw source of "${subject}" did not show`)
  step(`${framework}: the message read in the mail viewer`)
}

const run = async (framework, database) => {
  const booted = await boot(framework, database)
  try {
    await exercise(framework, booted.base)
  } catch (error) {
    fail(`${framework}: ${error instanceof Error ? error.stack : error}\n${booted.output()}`)
  }
  await booted.stop()
}

await run("hono", `sqlite:${join(scratch, "app.sqlite")}`)

// The operator command, as `npx mailroom` runs it from the installed package.
const cli = execFileSync(join(app, "node_modules/.bin/mailroom"), ["create-account", "--name", "Cli", "--json"], {
  cwd: app, encoding: "utf8", env: { ...process.env, DATABASE_URL: `sqlite:${join(scratch, "cli.sqlite")}` },
})
if (!/^svc_live_/.test(JSON.parse(cli).apiKey ?? "")) fail(`mailroom create-account printed ${cli}`)
step("the mailroom command of the installed package created an account")
await run("fastify", "memory:")

// A scratch database of its own, created and dropped with the pg the scratch app installed.
const postgresAdmin = process.env.PACK_CHECK_POSTGRES ?? "postgres://postgres@127.0.0.1:5432/postgres"
const databaseName = `mailroom_pack_check_${process.pid}`
const sql = (statement) => execFileSync(process.execPath, ["--input-type=module", "-e", `
  import pg from "pg"
  const client = new pg.Client(${JSON.stringify(postgresAdmin)})
  await client.connect()
  await client.query(${JSON.stringify(statement)})
  await client.end()
`], { cwd: app, stdio: "inherit" })
sql(`CREATE DATABASE ${databaseName}`)
const postgresUrl = Object.assign(new URL(postgresAdmin), { pathname: `/${databaseName}` }).toString()
try {
  await run("express", postgresUrl)

  // 4. Without the optional peer, a postgres:// database names the package to install.
  const peer = join(app, "node_modules/@mailroom/postgres")
  renameSync(peer, `${peer}.away`)
  try {
    const script = `
      import { createMailroom } from "@mailroom/mailroom"
      const mailroom = createMailroom({ database: ${JSON.stringify(postgresUrl)} })
      await mailroom.ready().then(() => console.log("opened"), (error) => console.log(error.message))
      await mailroom.close().catch(() => undefined)
    `
    const said = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: app, encoding: "utf8" })
    if (!said.includes("npm install @mailroom/postgres")) fail(`without @mailroom/postgres, ready() said: ${said}`)
  } finally {
    renameSync(`${peer}.away`, peer)
  }
  step("without @mailroom/postgres, a postgres:// database asks to install it")
} finally {
  sql(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`)
}
step(`passed; packages: ${readdirSync(tarballs).join(", ")}`)
