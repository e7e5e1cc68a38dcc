// Fails when a workspace package has a test/ folder that `tsc -b` does not type-check: every such folder needs a
// test/tsconfig.json (a copy of a neighbour's, with references to the packages its tests import) listed in the
// root tsconfig.json's references.
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const order = JSON.parse(readFileSync(join(root, "scripts/build-order.json"), "utf8"))
const references = new Set(JSON.parse(readFileSync(join(root, "tsconfig.json"), "utf8")).references.map((ref) => ref.path))
const missing = []
for (const dir of order) {
  if (!existsSync(join(root, dir, "test"))) continue
  if (!existsSync(join(root, dir, "test/tsconfig.json"))) missing.push(`${dir}/test has no tsconfig.json`)
  else if (!references.has(`${dir}/test`)) missing.push(`${dir}/test is not referenced from the root tsconfig.json`)
}
if (missing.length > 0) {
  console.error(`Test files that would not be type-checked:\n  ${missing.join("\n  ")}`)
  process.exit(1)
}
