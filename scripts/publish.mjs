// Publishes the public packages whose version is not on the registry yet, dependencies first: the order of
// build-order.json, checked here to be a dependency order, so that no published package ever names a version of
// another that is not there yet. `changeset publish` publishes them all at once, in no order. Run by `npm run release`
// (docs/releasing.md); `--dry-run` only says what it would publish.
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const order = JSON.parse(readFileSync(join(root, "scripts/build-order.json"), "utf8"))
const dryRun = process.argv.includes("--dry-run")
const manifests = order.map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) }))

const position = new Map(manifests.map(({ pkg }, index) => [pkg.name, index]))
for (const [index, { pkg }] of manifests.entries()) {
  for (const name of Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies })) {
    if (position.has(name) && position.get(name) > index) {
      console.error(`publish: ${pkg.name} depends on ${name}, which comes after it in scripts/build-order.json`)
      process.exit(1)
    }
  }
}

/** Whether name@version is on the registry (npm view answers E404 otherwise). */
const published = (name, version) => {
  try {
    return execFileSync("npm", ["view", `${name}@${version}`, "version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() === version
  } catch {
    return false
  }
}

for (const { dir, pkg } of manifests) {
  if (pkg.private === true) continue
  if (published(pkg.name, pkg.version)) {
    console.log(`${pkg.name}@${pkg.version} is already published`)
    continue
  }
  console.log(`${dryRun ? "would publish" : "publishing"} ${pkg.name}@${pkg.version}`)
  if (!dryRun) execFileSync("npm", ["publish", "--access", "public"], { cwd: join(root, dir), stdio: "inherit" })
}
