// Copies the screenshots that docs/hosted-pages.md shows (`images/pages/<name>.png`) from the browser tests' artifacts
// (.artifacts/screenshots/, git-ignored) into docs/images/pages/, which is committed. Run the browser tests first:
//
//   npx vitest run examples/hono-sqlite/test/browser && npm run docs:screenshots
//
// Fails, naming them, when a screenshot the page shows was not made by the tests; removes committed ones it no longer
// shows.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const artifacts = join(root, ".artifacts", "screenshots")
const target = join(root, "docs", "images", "pages")
const page = readFileSync(join(root, "docs", "hosted-pages.md"), "utf8")
const shown = [...new Set([...page.matchAll(/\(images\/pages\/([a-z0-9-]+\.png)\)/g)].map((match) => match[1]))]

const missing = shown.filter((name) => !existsSync(join(artifacts, name)))
if (missing.length > 0) {
  console.error(`Not in ${artifacts} (run the browser tests first):\n  ${missing.join("\n  ")}`)
  process.exit(1)
}
mkdirSync(target, { recursive: true })
for (const name of shown) copyFileSync(join(artifacts, name), join(target, name))
for (const name of readdirSync(target)) if (!shown.includes(name)) rmSync(join(target, name))
console.log(`${shown.length} screenshots copied to docs/images/pages/`)
