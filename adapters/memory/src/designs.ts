/** Designs and their releases in memory. A release is set once under (design id, version) and never replaced; a
 *  design's key is unique by (application key, key, locale) within its account. */
import {
  compareDesigns, type Design, DesignAlreadyExists, type DesignId, type DesignRelease, type DesignRepository,
  matchesDesignQuery,
} from "@mailroom/core"
import { Effect, Option } from "effect"
import type { MemoryDb } from "./db.js"
import type { MessageTable } from "./messages.js"

const copy = <A>(value: A): A => structuredClone(value)

const releaseKey = (designId: string, version: number) => `${designId}#${version}`

export const makeDesignRepository = (db: MemoryDb, messages: MessageTable): DesignRepository => {
  const designs = db.table<DesignId, Design>()
  const releases = db.table<string, DesignRelease>()
  const find = (accountId: string, id: string) => {
    const row = designs.get(id as DesignId)
    return row?.accountId === accountId ? row : undefined
  }
  const ofAccount = (accountId: string) => [...designs.values()].filter((design) => design.accountId === accountId)
  const releasesOf = (accountId: string, designId: string) =>
    [...releases.values()].filter((release) => release.accountId === accountId && release.designId === designId)

  return {
    insert: (design) =>
      Effect.flatMap(
        db.atomic(() => {
          const taken = ofAccount(design.accountId).some((other) =>
            other.applicationKey === design.applicationKey && other.key === design.key && other.locale === design.locale)
          if (taken) return false
          designs.set(design.id, copy(design))
          return true
        }),
        (inserted) => inserted ? Effect.void : Effect.fail(new DesignAlreadyExists({
          applicationKey: design.applicationKey, key: design.key, locale: design.locale,
        })),
      ),
    update: (design, expected) => db.atomic(() => {
      const current = find(design.accountId, design.id)
      if (current === undefined || current.revision !== expected.revision || current.liveVersion !== expected.liveVersion) return false
      designs.set(design.id, copy({
        ...design,
        applicationKey: current.applicationKey,
        key: current.key,
        locale: current.locale,
        createdAt: current.createdAt,
      }))
      return true
    }),
    findById: (accountId, id) => db.atomic(() => Option.map(Option.fromNullable(find(accountId, id)), copy)),
    list: (accountId, query) => db.atomic(() =>
      ofAccount(accountId).filter((design) => matchesDesignQuery(design, query)).sort(compareDesigns).slice(0, query.limit).map(copy)),
    count: (accountId) => db.atomic(() => ofAccount(accountId).length),
    delete: (accountId, id) => db.atomic(() => {
      if (find(accountId, id) === undefined) return false
      for (const release of releasesOf(accountId, id)) releases.delete(releaseKey(id, release.version))
      return designs.delete(id)
    }),
    insertRelease: (release) => db.atomic(() => {
      const key = releaseKey(release.designId, release.version)
      if (releases.has(key) || find(release.accountId, release.designId) === undefined) return false
      releases.set(key, copy(release))
      return true
    }),
    findRelease: (accountId, designId, version) => db.atomic(() => {
      const release = releases.get(releaseKey(designId, version))
      return release?.accountId === accountId ? Option.some(copy(release)) : Option.none()
    }),
    listReleases: (accountId, designId) => db.atomic(() =>
      releasesOf(accountId, designId).sort((a, b) => b.version - a.version).map(copy)),
    sends: (accountId, designId, page) => db.atomic(() =>
      [...messages.values()]
        .filter((message) => message.accountId === accountId && message.content.template?.id === designId &&
          (page.before === undefined || message.id < page.before))
        .map((message) => message.id)
        .sort((a, b) => (a < b ? 1 : a > b ? -1 : 0))
        .slice(0, page.limit)),
    countSends: (accountId, designId) => db.atomic(() =>
      [...messages.values()].filter((message) => message.accountId === accountId && message.content.template?.id === designId).length),
  }
}
