// `npm run bench` runs every scenario; `npm run bench -- NAME` runs one. Builds first when the packages are not built.
import { existsSync } from "node:fs"
import { execFileSync } from "node:child_process"
import { join } from "node:path"
import { benchDir } from "./lib.mjs"

const scenarios = [
  "contact-create", "contacts-bulk", "csv-import", "members-page", "subscribe", "eligibility", "send-accept", "batch-1000",
  "delivery-smtp", "webhook-fanout", "publish", "validate-bulk", "template-send", "track-click", "analytics-summary",
  "campaign-1m", "campaign-two-instances",
]
const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith("-"))
const unknown = wanted.filter((name) => !scenarios.includes(name))
if (unknown.length > 0) {
  console.error(`unknown scenario ${unknown.join(", ")}; known: ${scenarios.join(", ")}`)
  process.exit(2)
}

if (!existsSync(join(benchDir, "..", "packages/mailroom/dist/index.js"))) {
  execFileSync(process.execPath, [join(benchDir, "..", "scripts/build.mjs")], { stdio: "inherit" })
}

const backends = (process.env.MAILROOM_BENCH_BACKENDS ?? "sqlite,postgres").split(",")
for (const name of wanted.length > 0 ? wanted : scenarios) {
  const path = join(benchDir, `${name}.mjs`)
  if (!existsSync(path)) {
    console.log(`bench ${name}: not present`)
    continue
  }
  const scenario = await import(path)
  await scenario.run({ backends })
}
