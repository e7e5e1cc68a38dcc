// Builds every workspace package with tsup, dependencies first (the order in build-order.json).
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { dirname, join } from "node:path"

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const order = JSON.parse(readFileSync(join(root, "scripts/build-order.json"), "utf8"))
for (const dir of order) {
  const started = Date.now()
  execFileSync(process.execPath, [join(root, "node_modules/tsup/dist/cli-default.js"), "--silent"], {
    cwd: join(root, dir),
    stdio: "inherit",
  })
  console.log(`built ${dir} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}
