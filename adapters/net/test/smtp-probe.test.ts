/** NetSmtpProbe against real servers on one port: an SMTP server (smtp-server) answering 250, 550 or 451 by mailbox, a
 *  server that never answers, and an address where the connection is refused. */
import { type ProbeTargets, startProbeTargets } from "@mailroom/testing"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeNetSmtpProbe } from "../src/index.js"

let targets: ProbeTargets
beforeAll(async () => {
  targets = await startProbeTargets()
})
afterAll(() => targets.close())

const probe = (address: string, recipients: ReadonlyArray<string>, timeoutMs = 1_000) =>
  Effect.runPromise(makeNetSmtpProbe({ port: targets.port, heloName: "probe.mailroom.test" })
    .probe({ address, host: "mx.example", recipients, timeoutMs }))

describe("NetSmtpProbe", () => {
  it("answers each RCPT TO of one session: 250 accepted, 550 rejected, 451 unknown", async () => {
    const answers = await probe(targets.smtp.address, ["ok-ada@shop.example", "gone-bob@shop.example", "greylist-cy@shop.example"])
    expect(answers).toEqual(["accepted", "rejected", "unknown"])
    expect(targets.smtp.recipients.slice(-3)).toEqual(["ok-ada@shop.example", "gone-bob@shop.example", "greylist-cy@shop.example"])
  })

  it("sends nothing: no message reaches the server", async () => {
    await probe(targets.smtp.address, ["ok-dan@shop.example"])
    expect(targets.smtp.sink.messages).toEqual([])
  })

  it("a server that never answers is unknown once the timeout has passed, not later", async () => {
    const started = Date.now()
    expect(await probe(targets.silent.address, ["ok-ada@shop.example"], 1_000)).toEqual(["unknown"])
    const took = Date.now() - started
    expect(took).toBeGreaterThanOrEqual(950)
    expect(took).toBeLessThan(3_000)
  })

  it("a refused connection is unknown", async () => {
    expect(await probe(targets.refused.address, ["ok-ada@shop.example", "gone-bob@shop.example"])).toEqual(["unknown", "unknown"])
  })
})
