/** `npm run build` and `npm start` rebuild only the packages whose build inputs changed (scripts/build-stamp.mjs): on a
 *  package made for the test, and on the workspace as it is after its build. */
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { inputDigest, isFresh, writeStamp } from "../../../scripts/build-stamp.mjs"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const directory = mkdtempSync(join(tmpdir(), "mailroom-stamp-"))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

const makePackage = () => {
  const home = mkdtempSync(join(directory, "package-"))
  mkdirSync(join(home, "src/nested"), { recursive: true })
  mkdirSync(join(home, "dist"))
  writeFileSync(join(home, "package.json"), "{}")
  writeFileSync(join(home, "src/index.ts"), "export const a = 1\n")
  writeFileSync(join(home, "src/nested/b.ts"), "export const b = 2\n")
  return home
}

describe("build stamps", () => {
  it("a package never built, or built from other inputs, is stale; once stamped it is fresh", () => {
    const home = makePackage()
    expect(isFresh(home)).toBe(false)
    writeStamp(home, inputDigest(home))
    expect(isFresh(home)).toBe(true)
    writeFileSync(join(home, "src/nested/b.ts"), "export const b = 3\n")
    expect(isFresh(home)).toBe(false)
    writeStamp(home, inputDigest(home))
    writeFileSync(join(home, "src/added.ts"), "export {}\n")
    expect(isFresh(home)).toBe(false)
    writeStamp(home, inputDigest(home))
    writeFileSync(join(home, "package.json"), '{ "dependencies": {} }')
    expect(isFresh(home)).toBe(false)
  })

  it("touching a file without changing it leaves the package fresh: the digest reads contents, not times", () => {
    const home = makePackage()
    writeStamp(home, inputDigest(home))
    const later = new Date(Date.now() + 60_000)
    utimesSync(join(home, "src/index.ts"), later, later)
    expect(isFresh(home)).toBe(true)
  })

  it("npm run build on the built workspace rebuilds nothing", { timeout: 120_000 }, () => {
    const order = JSON.parse(readFileSync(join(root, "scripts/build-order.json"), "utf8")) as Array<string>
    const stale = order.filter((dir) => !isFresh(join(root, dir)))
    expect(stale, "the workspace was built before the tests run").toEqual([])
    const output = execFileSync(process.execPath, [join(root, "scripts/build.mjs")], { cwd: root, encoding: "utf8" })
    expect(output.trim()).toBe(`built 0 of ${order.length} packages; the others are unchanged since their last build`)
  })
})
