/** `mailroom.contacts`: the contacts API for code. Each method takes the account id where the HTTP route takes an API
 *  key, and validates its input with the same schemas as the route, failing with the same errors. */
import {
  type Account, Accounts, type BulkCreateResult, type Contact, type ContactPage, Contacts, CreateContactInput, TagName, TagsInput,
  UpdateContactInput,
} from "@mailroom/core"
import {
  BulkCreateBody, BulkDeleteBody, ContactFilterParams, ContactListOptions, decodeInput, type HttpRuntime,
} from "@mailroom/http"
import { Effect, Schema, Stream } from "effect"
import type { RunPromise } from "./promise-runner.js"

export interface TagCount {
  readonly name: string
  readonly count: number
  readonly color: string | null
  readonly definitionId: string | null
}

export interface ContactsApi {
  /** One page: page 1 of 100 by createdAt desc unless the query says otherwise. */
  readonly list: (accountId: string, query?: typeof ContactListOptions.Encoded) => Promise<ContactPage>
  readonly get: (accountId: string, contactId: string) => Promise<Contact>
  readonly create: (accountId: string, input: typeof CreateContactInput.Encoded) => Promise<Contact>
  readonly update: (accountId: string, contactId: string, input: typeof UpdateContactInput.Encoded) => Promise<Contact>
  readonly delete: (accountId: string, contactId: string) => Promise<void>
  readonly addTags: (accountId: string, contactId: string, tags: ReadonlyArray<string>) => Promise<Contact>
  readonly removeTag: (accountId: string, contactId: string, tag: string) => Promise<Contact>
  readonly tags: (accountId: string) => Promise<ReadonlyArray<TagCount>>
  readonly bulkCreate: (accountId: string, input: typeof BulkCreateBody.Encoded) => Promise<BulkCreateResult>
  readonly bulkDelete: (accountId: string, contactIds: ReadonlyArray<string>) => Promise<{ readonly deleted: number; readonly requested: number }>
  /** Every contact matching the filter, read from the store page by page as the iteration goes. */
  readonly export: (accountId: string, filter?: typeof ContactFilterParams.Encoded) => AsyncIterable<Contact>
}

const TagParam = Schema.Struct({ tag: TagName })

export const makeContactsApi = (run: RunPromise, runtime: HttpRuntime): ContactsApi => {
  /** The account and the Contacts service; an unknown account id fails with RESOURCE_NOT_FOUND. */
  const withAccount = <A, E, R>(accountId: string, use: (account: Account, contacts: Contacts) => Effect.Effect<A, E, R>) =>
    Effect.gen(function* () {
      const account = yield* (yield* Accounts).get(accountId)
      return yield* use(account, yield* Contacts)
    })

  return {
    list: (accountId, query = {}) =>
      run(Effect.flatMap(decodeInput(ContactListOptions, query), (params) =>
        withAccount(accountId, (account, contacts) => contacts.list(account, params)))),
    get: (accountId, contactId) => run(withAccount(accountId, (account, contacts) => contacts.get(account, contactId))),
    create: (accountId, input) =>
      run(Effect.flatMap(decodeInput(CreateContactInput, input), (body) =>
        withAccount(accountId, (account, contacts) => contacts.create(account, body)))),
    update: (accountId, contactId, input) =>
      run(Effect.flatMap(decodeInput(UpdateContactInput, input), (body) =>
        withAccount(accountId, (account, contacts) => contacts.update(account, contactId, body)))),
    delete: (accountId, contactId) => run(withAccount(accountId, (account, contacts) => contacts.delete(account, contactId))),
    addTags: (accountId, contactId, tags) =>
      run(Effect.flatMap(decodeInput(TagsInput, { tags }), (body) =>
        withAccount(accountId, (account, contacts) => contacts.addTags(account, contactId, body.tags)))),
    removeTag: (accountId, contactId, tag) =>
      run(Effect.flatMap(decodeInput(TagParam, { tag }), (param) =>
        withAccount(accountId, (account, contacts) => contacts.removeTag(account, contactId, param.tag)))),
    tags: (accountId) => run(withAccount(accountId, (account, contacts) => contacts.tags(account))),
    bulkCreate: (accountId, input) =>
      run(Effect.flatMap(decodeInput(BulkCreateBody, input), (body) =>
        withAccount(accountId, (account, contacts) => contacts.bulkCreate(account, body)))),
    bulkDelete: (accountId, contactIds) =>
      run(Effect.flatMap(decodeInput(BulkDeleteBody, { contactIds }), (body) =>
        withAccount(accountId, (account, contacts) => contacts.bulkDelete(account, body.contactIds)))),
    export: (accountId, filter = {}) => ({
      async *[Symbol.asyncIterator]() {
        const stream = Stream.unwrap(Effect.flatMap(decodeInput(ContactFilterParams, filter), (params) =>
          withAccount(accountId, (account, contacts) => Effect.succeed(contacts.export(account, params)))))
        yield* Stream.toAsyncIterableRuntime(stream, await runtime.runtime())
      },
    }),
  }
}
