// Builds the workspace packages with tsup, dependencies first (the order in build-order.json), skipping those whose
// sources have not changed since their last build (scripts/build-stamp.mjs). `--force` rebuilds every package.
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { dirname, join } from "node:path"
import { inputDigest, isFresh, writeStamp } from "./build-stamp.mjs"

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const order = JSON.parse(readFileSync(join(root, "scripts/build-order.json"), "utf8"))
const force = process.argv.includes("--force")
let built = 0
for (const dir of order) {
  const packageDir = join(root, dir)
  if (!force && isFresh(packageDir)) {
    continue
  }
  const started = Date.now()
  const digest = inputDigest(packageDir)
  execFileSync(process.execPath, [join(root, "node_modules/tsup/dist/cli-default.js"), "--silent"], {
    cwd: packageDir,
    stdio: "inherit",
  })
  writeStamp(packageDir, digest)
  built += 1
  console.log(`built ${dir} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}
if (built < order.length) console.log(`built ${built} of ${order.length} packages; the others are unchanged since their last build`)
