/** DKIM private keys at rest: sealed with AES-256-GCM under a key derived from MAILROOM_SECRET, never in clear in the
 *  database file, and unsealed only to sign mail from a verified domain. */
import { createPrivateKey, createPublicKey } from "node:crypto"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Domains, Store } from "@mailroom/core"
import { domainsTargetConfig, startDnsServer, type TestDnsServer, txtChunks } from "@mailroom/testing"
import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createMailroom } from "../src/index.js"

const directory = mkdtempSync(join(tmpdir(), "mailroom-domain-keys-"))
let dns: TestDnsServer
beforeAll(async () => {
  dns = await startDnsServer()
})
afterAll(async () => {
  await dns.close()
  rmSync(directory, { recursive: true, force: true })
})

describe("DKIM private keys at rest", () => {
  it("are stored sealed, never in clear, and unsealed to sign once the domain is verified", async () => {
    const filename = join(directory, "keys.sqlite")
    const mailroom = createMailroom({ database: `sqlite:${filename}`, secret: "a-secret-for-keys", backgroundWork: false, ...domainsTargetConfig(dns.server) })
    try {
      const { account } = await mailroom.accounts.create({ name: "keys", plan: "pro" })
      const run = <A, E>(effect: Effect.Effect<A, E, Domains | Store>) => mailroom.runtime.runPromise(effect)
      const added = await run(Effect.flatMap(Domains, (domains) => domains.create(account, { hostname: "keys.example" })))
      const stored = await run(Effect.flatMap(Store, (store) => store.domains.findById(account.id, added.domain.id)))
      const sealed = Option.getOrThrow(stored).dkim.sealedPrivateKey
      expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/)
      for (const file of [filename, `${filename}-wal`]) {
        if (existsSync(file)) expect(readFileSync(file).includes("PRIVATE KEY")).toBe(false)
      }
      const signingKey = (hostname: string) => run(Effect.flatMap(Domains, (domains) => domains.signingKey(account.id, hostname)))
      expect(Option.isNone(await signingKey("keys.example"))).toBe(true)

      const records = added.dnsRecords
      dns.zone.set("keys.example", { txt: [records.verification.value, records.spf.value] })
      dns.zone.set(records.dkim.host, { txt: [txtChunks(records.dkim.value)] })
      dns.zone.set(records.dmarc.host, { txt: [records.dmarc.value] })
      const verified = await run(Effect.flatMap(Domains, (domains) => domains.verify(account, added.domain.id)))
      expect(verified.domain.status).toBe("verified")

      const key = Option.getOrThrow(await signingKey("KEYS.example"))
      expect([key.domainName, key.keySelector]).toEqual(["keys.example", "default"])
      const publicKey = createPublicKey(createPrivateKey(key.privateKey)).export({ type: "spki", format: "der" }).toString("base64")
      expect(publicKey).toBe(added.domain.dkim.publicKey)
      expect(Option.isNone(await signingKey("other.example"))).toBe(true)
    } finally {
      await mailroom.close()
    }
  })
})
