/** The forms API: signup forms of an account (docs/forms.md). A form names the lists and topics a submission joins,
 *  whether it asks for double opt-in, the origins its public submissions may come from, where a plain post is sent
 *  afterwards, the fields it collects and the consent text it records. Submissions go through the FormSignups
 *  service; this service only keeps the forms. */
import { Effect, Option } from "effect"
import type { Account } from "../domain/account.js"
import {
  canonicalOrigin, type CreateFormInput, type Form, type FormField, type FormId, type UpdateFormInput,
} from "../domain/form.js"
import type { PageRequest } from "../domain/paging.js"
import { ListNotFound, TopicNotFound } from "../errors.js"
import { sentFields } from "../internal/patch.js"
import { Ids } from "../ports/ids.js"
import { Store } from "../ports/store.js"
import { orNotFound } from "../internal/found.js"
import { serviceMethod } from "./tracing.js"
import { resolveSendable } from "./template-sends.js"
import { currentDate } from "../internal/time.js"

const unique = <A>(values: ReadonlyArray<A>): ReadonlyArray<A> => [...new Set(values)]

const fieldsOf = (fields: CreateFormInput["fields"]): ReadonlyArray<FormField> =>
  (fields ?? []).map(({ name, label, type, required, maxLength }) => ({ name, label, type, required, maxLength }))

export class Forms extends Effect.Service<Forms>()("@mailroom/core/Forms", {
  effect: Effect.gen(function* () {
    const store = yield* Store
    const method = yield* serviceMethod
    const ids = yield* Ids
    const now = currentDate

    const find = (account: Account, id: string) => store.forms.findById(account.id, id).pipe(orNotFound("form", id))

    /** Every list and topic a form names must be the account's; the first that is not answers LIST_NOT_FOUND or
     *  TOPIC_NOT_FOUND. */
    const checkTargets = (account: Account, listIds: ReadonlyArray<string>, topicIds: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        for (const listId of listIds) {
          if (Option.isNone(yield* store.lists.findById(account.id, listId))) {
            return yield* Effect.fail(new ListNotFound({ listId }))
          }
        }
        const topics = new Set((yield* store.topics.findByIds(account.id, topicIds)).map((topic) => topic.id as string))
        const missing = topicIds.find((id) => !topics.has(id))
        if (missing !== undefined) return yield* Effect.fail(new TopicNotFound({ topicId: missing }))
      })

    /** A confirmation template must be one the account can send now (published, not retired): TEMPLATE_NOT_FOUND,
     *  TEMPLATE_NOT_PUBLISHED or TEMPLATE_RETIRED otherwise. Answers the design's id, or null. */
    const checkTemplate = (account: Account, id: string | null | undefined) =>
      id === undefined || id === null
        ? Effect.succeed(null)
        : Effect.map(resolveSendable(store, account.id, null, id), ({ design }) => design.id as string)

    const list = method("Forms.list")(function* (account: Account, page: PageRequest) {
      return yield* store.forms.list(account.id, page)
    })

    const get = method("Forms.get")(function* (account: Account, id: string) {
      return yield* find(account, id)
    })

    /** The form behind a public route, whatever its account; RESOURCE_NOT_FOUND when there is none. */
    const findPublic = method("Forms.findPublic")(function* (id: string) {
      return yield* store.forms.findPublic(id).pipe(orNotFound("form", id))
    })

    const create = method("Forms.create")(function* (account: Account, input: CreateFormInput) {
      const listIds = unique(input.listIds ?? [])
      const topicIds = unique(input.topicIds ?? [])
      yield* checkTargets(account, listIds, topicIds)
      const at = yield* now
      const form: Form = {
        id: ids.make("form", at) as FormId,
        accountId: account.id,
        name: input.name,
        listIds,
        topicIds,
        doubleOptIn: input.doubleOptIn ?? false,
        allowedOrigins: unique((input.allowedOrigins ?? []).map(canonicalOrigin)),
        successRedirectUrl: input.successRedirectUrl ?? null,
        fields: fieldsOf(input.fields),
        consentText: input.consentText ?? null,
        submitLabel: input.submitLabel ?? null,
        confirmationTemplateId: yield* checkTemplate(account, input.confirmationTemplateId),
        createdAt: at,
        updatedAt: at,
      }
      yield* store.forms.insert(form)
      return form
    }, store.transaction)

    const update = method("Forms.update")(function* (account: Account, id: string, input: UpdateFormInput) {
      const current = yield* find(account, id)
      const sent = sentFields(input, ["name", "doubleOptIn", "successRedirectUrl", "consentText", "submitLabel"])
      const template = input.confirmationTemplateId === undefined
        ? {}
        : { confirmationTemplateId: yield* checkTemplate(account, input.confirmationTemplateId) }
      const next: Form = {
        ...current,
        ...sent,
        ...template,
        ...(input.listIds !== undefined ? { listIds: unique(input.listIds) } : {}),
        ...(input.topicIds !== undefined ? { topicIds: unique(input.topicIds) } : {}),
        ...(input.allowedOrigins !== undefined ? { allowedOrigins: unique(input.allowedOrigins.map(canonicalOrigin)) } : {}),
        ...(input.fields !== undefined ? { fields: fieldsOf(input.fields) } : {}),
        updatedAt: yield* now,
      }
      yield* checkTargets(account, input.listIds ?? [], input.topicIds ?? [])
      yield* store.forms.update(next)
      return next
    }, store.transaction)

    const remove = method("Forms.remove")(function* (account: Account, id: string) {
      const form = yield* find(account, id)
      yield* store.forms.delete(account.id, form.id)
      return form
    }, store.transaction)

    return { list, get, findPublic, create, update, remove } as const
  }),
}) {}
