/** Helpers shared by the sections of the consent suite: suppression and topic fixtures with fresh ids. */
import type { Vitest } from "@effect/vitest"
import type {
  AccountId, EmailAddress, Ids, MailroomServices, Store, Suppression, SuppressionId, SuppressionReason, Topic, TopicId,
} from "@mailroom/core"
import { fixtureTime, uniqueText } from "../fixtures.js"

/** The `it` of a section: tests whose effects may require the Store, Ids and every service. */
export type ConsentTester = Vitest.MethodsNonLive<Store | Ids | MailroomServices>

export const address = (local: string = uniqueText("r")): EmailAddress => `${local}@example.com`.toLowerCase() as EmailAddress

export const makeSuppression = (
  overrides: Partial<Suppression> & Pick<Suppression, "accountId">,
  reason: SuppressionReason = "Manual",
): Suppression => ({
  id: uniqueText("sup") as SuppressionId,
  email: address(),
  reason,
  details: null,
  createdAt: fixtureTime,
  updatedAt: fixtureTime,
  ...overrides,
})

export const makeTopic = (overrides: Partial<Topic> & Pick<Topic, "accountId">): Topic => ({
  id: uniqueText("grp") as TopicId,
  name: uniqueText("Topic"),
  description: null,
  isDefault: false,
  publicLabel: null,
  publicDescription: null,
  isPublishedOnUnsub: false,
  sortOrder: 0,
  createdAt: fixtureTime,
  updatedAt: fixtureTime,
  ...overrides,
})

export type { AccountId }
