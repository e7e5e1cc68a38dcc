/** The topics API (suppression groups) and their opt-outs. Spec: audience "Topics (suppression groups)". The member
 *  routes only edit the group: they touch no list and append no events (the Subscriptions API and the links do).
 *  Deleting a topic deletes its opt-outs, so those addresses become eligible for its mail again. */
import { Effect, Option } from "effect"
import type { Account } from "../domain/account.js"
import type { EmailAddress } from "../domain/email.js"
import type { PageRequest } from "../domain/paging.js"
import type { CreateTopicInput, Topic, TopicId, TopicQuery, TopicWithCount, UpdateTopicInput } from "../domain/topic.js"
import { sentFields } from "../internal/patch.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { orNotFound } from "../internal/found.js"
import { serviceMethod } from "./tracing.js"
import { currentDate } from "../internal/time.js"

export class Topics extends Effect.Service<Topics>()("@mailroom/core/Topics", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const method = yield* serviceMethod
    const ids = yield* Ids
    const now = currentDate

    const find = (account: Account, id: string, options?: { readonly forUpdate?: boolean }) =>
      store.topics.findById(account.id, id, options).pipe(orNotFound("topic", id))

    const withCount = (topic: Topic) =>
      Effect.map(store.topics.countOptOuts(topic.accountId, topic.id), (optOuts): TopicWithCount => ({ topic, optOuts }))

    /** One default topic per account: making a topic the default clears the flag of the others. The account is locked
     *  first, so that two topics made the default at once cannot both keep the flag; each other default is locked and
     *  read again before its flag is cleared, so that a concurrent PATCH of its other fields is not lost. Only writers
     *  holding the account's lock take a second topic's lock, so they cannot deadlock with a PATCH of one topic. */
    const makeDefault = (account: Account, topic: Topic, at: Date) =>
      Effect.gen(function* () {
        yield* store.accounts.lock(account.id)
        for (const other of yield* store.topics.all(topic.accountId)) {
          if (other.id === topic.id || !other.isDefault) continue
          const locked = yield* store.topics.findById(account.id, other.id, { forUpdate: true })
          if (Option.isSome(locked) && locked.value.isDefault) {
            yield* store.topics.update({ ...locked.value, isDefault: false, updatedAt: at })
          }
        }
      })

    const list = method("Topics.list")(function* (account: Account, query: TopicQuery) {
      return yield* store.topics.list(account.id, query)
    })

    const get = method("Topics.get")(function* (account: Account, id: string) {
      return yield* withCount(yield* find(account, id))
    })

    const create = method("Topics.create")(function* (account: Account, input: CreateTopicInput) {
      const at = yield* now
      const topic: Topic = {
        id: ids.make("topic", at) as TopicId,
        accountId: account.id,
        name: input.name,
        description: input.description ?? null,
        isDefault: input.isDefault ?? false,
        publicLabel: input.publicLabel ?? null,
        publicDescription: input.publicDescription ?? null,
        isPublishedOnUnsub: input.isPublishedOnUnsub ?? false,
        sortOrder: input.sortOrder ?? 0,
        createdAt: at,
        updatedAt: at,
      }
      if (topic.isDefault) yield* makeDefault(account, topic, at)
      yield* store.topics.insert(topic)
      return { topic, optOuts: 0 } satisfies TopicWithCount
    }, store.transaction)

    /** PATCH: the topic is locked while it is read, changed and written back whole, so that concurrent PATCHes of
     *  other fields are not lost. Making it the default takes the account's lock first (makeDefault), before the
     *  topic's, in the order every writer of the default takes them. */
    const update = method("Topics.update")(function* (account: Account, id: string, input: UpdateTopicInput) {
      if (input.isDefault === true) yield* store.accounts.lock(account.id)
      const current = yield* find(account, id, { forUpdate: true })
      const at = yield* now
      const next: Topic = {
        ...current,
        ...sentFields(input, [
          "name", "description", "isDefault", "publicLabel", "publicDescription", "isPublishedOnUnsub", "sortOrder",
        ]),
        updatedAt: at,
      }
      if (input.isDefault === true) yield* makeDefault(account, next, at)
      yield* store.topics.update(next)
      return yield* withCount(next)
    }, store.transaction)

    /** DELETE: the topic and its opt-outs go. Lists tagged with it keep the id; they are no longer held back by it. */
    const remove = method("Topics.remove")(function* (account: Account, id: string) {
      const topic = yield* find(account, id)
      yield* store.topics.delete(account.id, topic.id)
      return topic
    }, store.transaction)

    const members = method("Topics.members")(function* (account: Account, id: string, page: PageRequest) {
      const topic = yield* find(account, id)
      return yield* store.topics.optOuts(account.id, topic.id, page)
    })

    /** POST members: opts the address out; repeating it changes nothing. */
    const addMember = method("Topics.addMember")(function* (account: Account, id: string, email: EmailAddress) {
      const topic = yield* find(account, id)
      const added = yield* store.topics.optOut(account.id, topic.id, email, yield* now)
      return { email, added }
    }, store.transaction)

    const removeMember = method("Topics.removeMember")(function* (account: Account, id: string, email: EmailAddress) {
      const topic = yield* find(account, id)
      return { email, removed: yield* store.topics.optIn(account.id, topic.id, email) }
    }, store.transaction)

    /** The older …/suppressions/bulk path: opts many addresses out (add) or back in (remove), set-based. */
    const bulkMembers = method("Topics.bulkMembers")(
      function* (account: Account, id: string, input: { readonly action: "add" | "remove"; readonly emails: ReadonlyArray<EmailAddress> }) {
        const topic = yield* find(account, id)
        if (input.action === "add") {
          const added = yield* store.topics.optOutMany(account.id, topic.id, input.emails, yield* now)
          return { action: "add" as const, requested: input.emails.length, added }
        }
        const removed = yield* store.topics.optInMany(account.id, topic.id, input.emails)
        return { action: "remove" as const, requested: input.emails.length, removed }
      },
      store.transaction,
    )

    return { list, get, create, update, remove, members, addMember, removeMember, bulkMembers } as const
  }),
}) {}
