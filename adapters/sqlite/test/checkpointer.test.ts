import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { startCheckpointer } from "../src/checkpointer.js"
import { tempDbFile } from "./temp-files.js"

describe("the checkpoint thread", () => {
  it("tells when it ends before it is closed (its file cannot be opened), so that the connection checkpoints itself", async () => {
    const lost = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(resolve, 10_000, false)
      startCheckpointer(join(tempDbFile(), "not-a-directory", "mailroom.sqlite"), {
        intervalMs: 10,
        onLost: () => {
          clearTimeout(timer)
          resolve(true)
        },
      })
    })
    expect(lost).toBe(true)
  })

  it("closed, it stops without telling it was lost", async () => {
    let lost = false
    const checkpointer = startCheckpointer(":memory:", { intervalMs: 10, onLost: () => { lost = true } })
    checkpointer.wrote()
    await checkpointer.close()
    await checkpointer.close()
    expect(lost).toBe(false)
  })
})
