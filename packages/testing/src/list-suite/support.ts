/** Helpers shared by the sections of the list suite: list fixtures, accounts made through the Accounts service, and
 *  plain views of members that every backend agrees on. */
import type { Vitest } from "@effect/vitest"
import {
  Accounts, type ContactList, EmailAddress, type Ids, type ListId, type MailroomServices,
  type MemberRecord, type Plan, SegmentRules, type Store,
} from "@mailroom/core"
import { Effect, Schema } from "effect"
import { fixtureTime, uniqueText } from "../fixtures.js"

/** The `it` of a section: tests whose effects may require the Store, Ids and every service. */
export type ListTester = Vitest.MethodsNonLive<Store | Ids | MailroomServices>

export const email = (address: string): EmailAddress => Schema.decodeSync(EmailAddress)(address)

/** Rules as a request would send them, decoded (and so checked) by the schema every route uses. */
export const rules = (input: unknown): SegmentRules => Schema.decodeUnknownSync(SegmentRules)(input)

/** A complete STATIC list of the account, created at `fixtureTime` unless told otherwise. */
export const makeList = (overrides: Partial<ContactList> & Pick<ContactList, "accountId">): ContactList => ({
  id: uniqueText("lst") as ListId,
  name: "Newsletter",
  description: null,
  type: "STATIC",
  segmentRules: null,
  suppressionGroupId: null,
  trackingEnabled: true,
  isArchived: false,
  createdAt: fixtureTime,
  updatedAt: fixtureTime,
  lastSyncedAt: null,
  ...overrides,
})

/** A fresh account of `plan` made through the Accounts service, so that every test owns its data. */
export const freshAccount = (plan: Plan = "pro") =>
  Effect.flatMap(Accounts, (accounts) => accounts.create({ name: "list suite", plan })).pipe(
    Effect.map(({ account }) => account),
  )

/** A member as plain data: dates in epoch milliseconds. */
export const plainMember = (member: MemberRecord) => ({
  ...member,
  contact: { ...member.contact, subscribedAt: member.contact.subscribedAt.getTime(), createdAt: member.contact.createdAt.getTime() },
  addedAt: member.addedAt.getTime(),
  removedAt: member.removedAt?.getTime() ?? null,
})

export const emailsOf = (members: ReadonlyArray<MemberRecord>): Array<string> =>
  members.map((member) => member.contact.email as string)

export const sorted = (values: ReadonlyArray<string>): Array<string> => [...values].sort()
