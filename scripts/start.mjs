// `npm start`: builds the packages whose dist is missing or was built from other sources (scripts/build-stamp.mjs),
// then runs the main starter (examples/hono-sqlite) with this environment, forwarding stop signals and its exit code.
// `npm run migrate` (`start.mjs migrate`) does the same with the starter's migrate script instead of its server.
// Build output goes to stderr, so stdout carries only the server's own line with its URL.
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { isFresh } from "./build-stamp.mjs"

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const order = JSON.parse(readFileSync(join(root, "scripts/build-order.json"), "utf8"))

const signals = ["SIGINT", "SIGTERM", "SIGHUP"]
let child
let stoppedBy

const forward = (signal) => {
  stoppedBy ??= signal
  if (child === undefined) return
  // The build runs in its own process group, so that its tsup processes stop with it.
  if (child.group) process.kill(-child.process.pid, signal)
  else child.process.kill(signal)
}
for (const signal of signals) process.on(signal, forward)

/** Runs `node script` to its end; answers how it ended. */
const run = (script, { stdio, group }) =>
  new Promise((resolve) => {
    const started = spawn(process.execPath, [script], { cwd: root, env: process.env, stdio, detached: group })
    child = { process: started, group }
    started.on("exit", (code, signal) => {
      child = undefined
      resolve({ code, signal })
    })
  })

/** Ends this process the way `ended` ended: same signal, or same exit code. */
const exitLike = ({ code, signal }) => {
  for (const name of signals) process.off(name, forward)
  if (signal !== null) process.kill(process.pid, signal)
  else process.exit(code ?? 1)
}

const stale = order.filter((dir) => !isFresh(join(root, dir)))
if (stale.length > 0) {
  console.error(`Building (${stale.join(", ")} ${stale.length === 1 ? "is" : "are"} not built or out of date)…`)
  const build = await run(join(root, "scripts/build.mjs"), { stdio: ["ignore", process.stderr, process.stderr], group: true })
  if (build.code !== 0 || stoppedBy !== undefined) exitLike(build.code === 0 ? { code: null, signal: stoppedBy } : build)
}

if (stoppedBy === undefined) {
  const entry = process.argv[2] === "migrate" ? "migrate.js" : "server.js"
  exitLike(await run(join(root, "examples/hono-sqlite/dist", entry), { stdio: "inherit", group: false }))
}
