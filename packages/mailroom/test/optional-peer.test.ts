/** Optional peers (@mailroom/postgres): a package that is not installed is named in the error, with the command that
 *  installs it; any other failure to load is passed on as it is. Real Node resolution, on packages made for the test
 *  in a temporary directory. scripts/pack-check.mjs checks the same on a real install without @mailroom/postgres. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { importOptionalPeer, MissingPeerError } from "../src/optional-peer.js"

const directory = mkdtempSync(join(tmpdir(), "mailroom-peer-"))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

/** A package in `directory`/node_modules whose entry is `source`; answers the URL of its entry. */
const makePackage = (name: string, source: string): string => {
  const home = join(directory, "node_modules", name)
  mkdirSync(home, { recursive: true })
  writeFileSync(join(home, "package.json"), JSON.stringify({ name, version: "1.0.0", type: "module", main: "index.js" }))
  writeFileSync(join(home, "index.js"), source)
  return pathToFileURL(join(home, "index.js")).href
}

/** Imports `specifier` as code in `directory` would: through a module of that directory. */
const importFromDirectory = (specifier: string): Promise<unknown> => {
  const importer = join(directory, `importer-${Math.random().toString(36).slice(2)}.mjs`)
  writeFileSync(importer, `export default () => import(${JSON.stringify(specifier)})`)
  return import(pathToFileURL(importer).href).then((module: { default: () => Promise<unknown> }) => module.default())
}

describe("importOptionalPeer", () => {
  it("names the peer that is not installed and how to install it", async () => {
    const error = await importOptionalPeer(
      { packageName: "@mailroom/absent-peer", load: () => importFromDirectory("@mailroom/absent-peer") },
      "a postgres:// database",
    ).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(MissingPeerError)
    expect(error).toMatchObject({ packageName: "@mailroom/absent-peer", neededFor: "a postgres:// database" })
    expect((error as Error).message).toBe(
      "a postgres:// database needs the package @mailroom/absent-peer, which is not installed: run npm install @mailroom/absent-peer",
    )
  })

  it("names a package the peer imports when that one is missing", async () => {
    makePackage("half-installed-peer", `import "missing-dependency-of-peer"\nexport const ok = true\n`)
    const error = await importOptionalPeer(
      { packageName: "half-installed-peer", load: () => importFromDirectory("half-installed-peer") },
      "a postgres:// database",
    ).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(MissingPeerError)
    expect(error).toMatchObject({ packageName: "missing-dependency-of-peer" })
  })

  it("loads an installed peer, and passes any other failure on unchanged", async () => {
    makePackage("installed-peer", "export const answer = 42\n")
    await expect(importOptionalPeer(
      { packageName: "installed-peer", load: () => importFromDirectory("installed-peer") as Promise<{ answer: number }> },
      "x",
    )).resolves.toMatchObject({ answer: 42 })
    makePackage("throwing-peer", `throw new Error("the peer failed at load")\n`)
    const error = await importOptionalPeer({ packageName: "throwing-peer", load: () => importFromDirectory("throwing-peer") }, "x")
      .catch((caught: unknown) => caught)
    expect(error).not.toBeInstanceOf(MissingPeerError)
    expect((error as Error).message).toBe("the peer failed at load")
  })
})
