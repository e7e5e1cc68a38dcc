/** The delivery canary's runs in memory, listed the latest first. */
import type { CanaryRun, CanaryRunRepository } from "@mailroom/core"
import type { MemoryDb } from "./db.js"

const copyRun = (run: CanaryRun): CanaryRun => ({
  ...run,
  startedAt: new Date(run.startedAt.getTime()),
  finishedAt: new Date(run.finishedAt.getTime()),
  authentication: run.authentication === null ? null : { ...run.authentication },
})

export const makeCanaryRunRepository = (db: MemoryDb): CanaryRunRepository => {
  const runs = db.table<string, CanaryRun>()
  return {
    insert: (run) => db.atomic(() => { runs.set(run.id, copyRun(run)) }),
    list: (limit) => db.atomic(() =>
      [...runs.values()]
        .sort((a, b) => b.finishedAt.getTime() - a.finishedAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
        .slice(0, limit)
        .map(copyRun)),
  }
}
