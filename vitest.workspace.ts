import { readFileSync } from "node:fs"
import { defineWorkspace } from "vitest/config"

// One vitest project per workspace package. Packages import each other's sources (not their builds) in tests.
// Examples are left out, except the main starter, whose tests run it as a process (and so use the builds).
const order: Array<string> = JSON.parse(readFileSync(new URL("./scripts/build-order.json", import.meta.url), "utf8"))
const alias = Object.fromEntries(order.map((dir) => {
  const { name } = JSON.parse(readFileSync(new URL(`./${dir}/package.json`, import.meta.url), "utf8"))
  return [name, new URL(`./${dir}/src/index.ts`, import.meta.url).pathname]
}))

export default defineWorkspace(order.filter((dir) => !dir.startsWith("examples/") || dir === "examples/hono-sqlite").map((dir) => ({
  resolve: { alias },
  test: {
    name: dir,
    root: new URL(`./${dir}`, import.meta.url).pathname,
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})))
