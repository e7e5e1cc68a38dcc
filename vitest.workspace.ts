import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { defineWorkspace } from "vitest/config"

// Postgres suites share one test database per schema: its name carries a digest of the migrations, so that checkouts
// whose migrations differ (two branches on one server) never migrate the same database two ways.
const migrations = new URL("./packages/sql/src/migrations/", import.meta.url)
const digest = createHash("sha256")
for (const file of readdirSync(migrations).sort()) digest.update(file).update(readFileSync(new URL(file, migrations)))
const testDatabase = `mailroom_test_${digest.digest("hex").slice(0, 12)}`

// One vitest project per workspace package. Packages import each other's sources (not their builds) in tests.
// Examples are left out, except the main starter, whose tests run it as a process (and so use the builds).
// A package's other entries (`exports` subpaths, such as @mailroom/postgres/rate-limits) come before its name, which
// would otherwise match them as a prefix.
const order: Array<string> = JSON.parse(readFileSync(new URL("./scripts/build-order.json", import.meta.url), "utf8"))
const alias = order.flatMap((dir) => {
  const { name, exports } = JSON.parse(readFileSync(new URL(`./${dir}/package.json`, import.meta.url), "utf8")) as {
    name: string
    exports?: Record<string, { source?: string }>
  }
  const subpaths = Object.entries(exports ?? {}).flatMap(([subpath, entry]) =>
    subpath === "." || entry.source === undefined
      ? []
      : [{ find: `${name}${subpath.slice(1)}`, replacement: new URL(`./${dir}/${entry.source}`, import.meta.url).pathname }])
  return [...subpaths, { find: name, replacement: new URL(`./${dir}/src/index.ts`, import.meta.url).pathname }]
})

export default defineWorkspace(order.filter((dir) => !dir.startsWith("examples/") || dir === "examples/hono-sqlite").map((dir) => ({
  resolve: { alias },
  test: {
    name: dir,
    root: new URL(`./${dir}`, import.meta.url).pathname,
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { MAILROOM_TEST_DATABASE: testDatabase },
    // The starter's browser tests, skipped without Chromium, say so in one line per run.
    ...(dir === "examples/hono-sqlite" ? { globalSetup: ["test/browser/announce.ts"] } : {}),
  },
})))
