/** `mailroom.contacts`: the contacts API for code. Each method takes the account id where the HTTP route takes an API
 *  key; the Contacts service validates the input with the schemas every route uses, failing with the same errors. */
import {
  type Account, Accounts, type BulkCreateInput, type BulkCreateResult, type Contact, type ContactFilterInput,
  type ContactListInput, type ContactPage, Contacts, type CreateContactInput, type UpdateContactInput,
} from "@mailroom/core"
import { Effect, Stream } from "effect"
import type { RunPromise, ServiceRuntime } from "./promise-runner.js"

export interface TagCount {
  readonly name: string
  readonly count: number
  readonly color: string | null
  readonly definitionId: string | null
}

export interface ContactsApi {
  /** One page: page 1 of 100 by createdAt desc unless the query says otherwise. */
  readonly list: (accountId: string, query?: ContactListInput) => Promise<ContactPage>
  readonly get: (accountId: string, contactId: string) => Promise<Contact>
  readonly create: (accountId: string, input: typeof CreateContactInput.Encoded) => Promise<Contact>
  readonly update: (accountId: string, contactId: string, input: typeof UpdateContactInput.Encoded) => Promise<Contact>
  readonly delete: (accountId: string, contactId: string) => Promise<void>
  readonly addTags: (accountId: string, contactId: string, tags: ReadonlyArray<string>) => Promise<Contact>
  readonly removeTag: (accountId: string, contactId: string, tag: string) => Promise<Contact>
  readonly tags: (accountId: string) => Promise<ReadonlyArray<TagCount>>
  readonly bulkCreate: (accountId: string, input: typeof BulkCreateInput.Encoded) => Promise<BulkCreateResult>
  readonly bulkDelete: (accountId: string, contactIds: ReadonlyArray<string>) => Promise<{ readonly deleted: number; readonly requested: number }>
  /** Every contact matching the filter, read from the store page by page as the iteration goes. */
  readonly export: (accountId: string, filter?: ContactFilterInput) => AsyncIterable<Contact>
}

export const makeContactsApi = (run: RunPromise, runtime: ServiceRuntime): ContactsApi => {
  /** The account and the Contacts service; an unknown account id fails with RESOURCE_NOT_FOUND. */
  const withAccount = <A, E, R>(accountId: string, use: (account: Account, contacts: Contacts) => Effect.Effect<A, E, R>) =>
    Effect.gen(function* () {
      const account = yield* (yield* Accounts).get(accountId)
      return yield* use(account, yield* Contacts)
    })

  return {
    list: (accountId, query = {}) => run(withAccount(accountId, (account, contacts) => contacts.list(account, query))),
    get: (accountId, contactId) => run(withAccount(accountId, (account, contacts) => contacts.get(account, contactId))),
    create: (accountId, input) => run(withAccount(accountId, (account, contacts) => contacts.create(account, input))),
    update: (accountId, contactId, input) =>
      run(withAccount(accountId, (account, contacts) => contacts.update(account, contactId, input))),
    delete: (accountId, contactId) => run(withAccount(accountId, (account, contacts) => contacts.delete(account, contactId))),
    addTags: (accountId, contactId, tags) =>
      run(withAccount(accountId, (account, contacts) => contacts.addTags(account, contactId, tags))),
    removeTag: (accountId, contactId, tag) =>
      run(withAccount(accountId, (account, contacts) => contacts.removeTag(account, contactId, tag))),
    tags: (accountId) => run(withAccount(accountId, (account, contacts) => contacts.tags(account))),
    bulkCreate: (accountId, input) => run(withAccount(accountId, (account, contacts) => contacts.bulkCreate(account, input))),
    bulkDelete: (accountId, contactIds) =>
      run(withAccount(accountId, (account, contacts) => contacts.bulkDelete(account, contactIds))),
    export: (accountId, filter = {}) => ({
      async *[Symbol.asyncIterator]() {
        const stream = Stream.unwrap(withAccount(accountId, (account, contacts) =>
          Effect.succeed(contacts.export(account, filter))))
        yield* Stream.toAsyncIterableRuntime(stream, await runtime.runtime())
      },
    }),
  }
}
