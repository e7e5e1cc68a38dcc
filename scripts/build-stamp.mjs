// Which workspace packages need a build. A package's build depends only on its own inputs: tsup keeps every
// dependency (workspace packages included) external, so its output changes only when its sources, package.json,
// tsup.config.ts (with the root's tsup.preset.ts) or tsconfig.json do. Each build leaves a digest of those inputs in
// dist/.build-stamp; a package whose digest still matches is skipped.
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"

const inputFiles = ["package.json", "tsup.config.ts", "tsconfig.json"]
/** The build preset every tsup.config.ts reads, at the repository's root. */
const sharedInputs = ["../../tsup.preset.ts"]

/** Every file under `dir`, relative to `base`, sorted so the digest does not depend on the directory order. */
const filesUnder = (dir, base) =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(base, join(entry.parentPath ?? entry.path, entry.name)))
      .sort()
    : []

/** The digest of a package's build inputs: each file's path and content. */
export const inputDigest = (packageDir) => {
  const hash = createHash("sha256")
  const files = [...filesUnder(join(packageDir, "src"), packageDir), ...[...inputFiles, ...sharedInputs].filter((file) => existsSync(join(packageDir, file)))]
  for (const file of files) hash.update(`${file}\0`).update(readFileSync(join(packageDir, file))).update("\0")
  return hash.digest("hex")
}

const stampOf = (packageDir) => join(packageDir, "dist/.build-stamp")

/** Whether the package's dist was built from its current inputs. */
export const isFresh = (packageDir) => {
  const stamp = stampOf(packageDir)
  return existsSync(stamp) && readFileSync(stamp, "utf8").trim() === inputDigest(packageDir)
}

/** Records that dist was built from the inputs of `digest` (taken before the build started, so that an edit made
 *  while it ran still counts as a change next time). */
export const writeStamp = (packageDir, digest) => writeFileSync(stampOf(packageDir), `${digest}\n`)
