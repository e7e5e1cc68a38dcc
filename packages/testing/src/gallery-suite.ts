/** The gallery's sync through the Gallery service on each backend's Store: an adopted design keeps its source
 *  (starter and version) through reads and writes, and a design behind its starter's version is reported behind and
 *  brought up to it, as a new draft revision, by apply. The HTTP suite covers the routes; this one reaches the stored
 *  source version, which only a newer release of Mailroom's starters would move. */
import { expect, it } from "@effect/vitest"
import { Accounts, type DesignCaller, Gallery, IdsLive, servicesLayer, Store } from "@mailroom/core"
import { Effect, Layer, Option } from "effect"
import { testTemplateEngine } from "./template-engine.js"

export const gallerySuite = <E>(backend: string, storeLayer: Layer.Layer<Store, E>) =>
  it.layer(Layer.provideMerge(servicesLayer, Layer.mergeAll(storeLayer, IdsLive, testTemplateEngine)), { timeout: "60 seconds" })(
    `Gallery (${backend})`,
    (it) => {
      it.effect("a design adopted from an older starter version is behind; apply brings it to the current one as a new revision", () =>
        Effect.gen(function* () {
          const { account } = yield* Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "gallery", plan: "pro" }))
          const caller: DesignCaller = { account, application: null }
          const gallery = yield* Gallery
          const store = yield* Store
          const adopted = yield* gallery.adopt(caller, { starter: "sign-in-code", locale: "en", asBlocks: true })
          expect(adopted.source).toEqual({ starter: "sign-in-code", version: 1 })
          const stored = Option.getOrThrow(yield* store.designs.findById(account.id, adopted.id))
          expect(stored.source).toEqual({ starter: "sign-in-code", version: 1 })
          expect(stored.draft.blocks?.length).toBe(5)
          // As if it had been adopted from version 0 of the starter, before the current one.
          const older = { ...stored, source: { starter: "sign-in-code", version: 0 } }
          expect(yield* store.designs.update(older, { revision: stored.revision, liveVersion: stored.liveVersion })).toBe(true)
          const compared = yield* gallery.sync(caller, adopted.id, { apply: false })
          expect(compared).toMatchObject({ adoptedVersion: 0, currentVersion: 1, behind: true, applied: false })
          const applied = yield* gallery.sync(caller, adopted.id, { apply: true, expectedRevision: 1 })
          expect(applied).toMatchObject({ behind: true, applied: true })
          expect(applied.design).toMatchObject({ revision: 2, source: { starter: "sign-in-code", version: 1 } })
          const after = yield* gallery.sync(caller, adopted.id, { apply: false })
          expect(after).toMatchObject({ adoptedVersion: 1, behind: false, changed: [] })
        }))
    },
  )
