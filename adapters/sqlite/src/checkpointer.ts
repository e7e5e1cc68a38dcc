/** WAL checkpoints on a thread of their own. SQLite's automatic checkpoint runs inside the commit that crosses its
 *  threshold, and better-sqlite3 commits on the event loop: every thousand pages or so, one commit stalls the process
 *  for the checkpoint's writes and syncs (milliseconds). Here a worker thread with its own connection to the file makes
 *  PASSIVE checkpoints (they never wait for, nor block, the process's readers and writer) at most once per interval
 *  while commits come in. The connection's own automatic checkpoint stays on at a higher threshold, in case the thread
 *  falls behind or is gone. */
import { createRequire } from "node:module"
import { Worker } from "node:worker_threads"

/** The thread: opens the file, and after the first "wrote" of an interval checkpoints once the interval is over.
 *  NORMAL is enough for checkpoints: in WAL mode, FULL and NORMAL both sync the WAL before a checkpoint and the database
 *  after it. */
const threadSource = `
const { parentPort, workerData } = require("node:worker_threads")
const Database = require(workerData.driver)
const db = new Database(workerData.filename)
db.pragma("synchronous = NORMAL")
let timer
parentPort.on("message", (message) => {
  if (message === "close") {
    clearTimeout(timer)
    db.close()
    parentPort.close()
    return
  }
  if (timer !== undefined) return
  timer = setTimeout(() => {
    timer = undefined
    try {
      db.pragma("wal_checkpoint(PASSIVE)")
    } catch {
      // A checkpoint that fails (the disk is full, say) is tried again after the next commits.
    }
  }, workerData.intervalMs)
})
`

export interface Checkpointer {
  /** Commits were written: a checkpoint follows within the interval. Cheap: at most one message per interval. */
  readonly wrote: () => void
  /** Stops the thread (its connection closed) and waits for it. */
  readonly close: () => Promise<void>
}

export interface CheckpointerOptions {
  /** Longest time between a commit and the checkpoint that takes it in. */
  readonly intervalMs: number
  /** Called if the thread ends before `close` (it failed to open the file, say): the connection checkpoints itself
   *  again. */
  readonly onLost: () => void
}

export const startCheckpointer = (filename: string, options: CheckpointerOptions): Checkpointer => {
  const worker = new Worker(threadSource, {
    eval: true,
    workerData: { filename, driver: createRequire(import.meta.url).resolve("better-sqlite3"), intervalMs: options.intervalMs },
  })
  // The thread never keeps the process alive, and its failures (the file removed under it) only leave the checkpoints
  // to the connection's automatic ones.
  worker.unref()
  worker.on("error", () => undefined)
  let exited = false
  let closing = false
  const ended = new Promise<void>((resolve) => worker.once("exit", () => {
    exited = true
    if (!closing) options.onLost()
    resolve()
  }))
  let lastTold = 0
  return {
    wrote: () => {
      const now = Date.now()
      if (exited || now - lastTold < options.intervalMs) return
      lastTold = now
      worker.postMessage("wrote")
    },
    close: async () => {
      if (exited) return
      closing = true
      // Referenced while it stops, so that the process waits for the thread to close its connection.
      worker.ref()
      worker.postMessage("close")
      let timer: ReturnType<typeof setTimeout> | undefined
      const stopped = await Promise.race([ended.then(() => true), new Promise<boolean>((resolve) => { timer = setTimeout(resolve, 5_000, false) })])
      clearTimeout(timer)
      if (!stopped) await worker.terminate()
    },
  }
}
