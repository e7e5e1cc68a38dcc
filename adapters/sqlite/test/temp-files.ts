/** Database files for tests, each in its own temporary directory (one level down, so the adapter has to create the
 *  parent), removed when the test file finishes. */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"

const directories: Array<string> = []

afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true })
})

export const tempDbFile = (): string => {
  const directory = mkdtempSync(join(tmpdir(), "mailroom-sqlite-"))
  directories.push(directory)
  return join(directory, "data", "mailroom.sqlite")
}
