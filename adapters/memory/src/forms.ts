/** Signup forms in memory, keyed by id (ids are unique across accounts, so the public routes find a form by id alone). */
import type { Form, FormId, FormRepository } from "@mailroom/core"
import { slicePage } from "@mailroom/core"
import { Option } from "effect"
import type { MemoryDb } from "./db.js"

const copy = (form: Form): Form => ({
  ...form,
  listIds: [...form.listIds],
  topicIds: [...form.topicIds],
  allowedOrigins: [...form.allowedOrigins],
  fields: form.fields.map((field) => ({ ...field })),
  createdAt: new Date(form.createdAt.getTime()),
  updatedAt: new Date(form.updatedAt.getTime()),
})

const byCreation = (a: Form, b: Form) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

export const makeFormRepository = (db: MemoryDb): FormRepository => {
  const rows = db.table<FormId, Form>()
  const find = (accountId: string, id: string) => {
    const row = rows.get(id as FormId)
    return row?.accountId === accountId ? row : undefined
  }
  return {
    insert: (form) => db.atomic(() => rows.set(form.id, copy(form))),
    update: (form) => db.atomic(() => {
      const current = find(form.accountId, form.id)
      if (current === undefined) return false
      rows.set(form.id, copy({ ...form, createdAt: current.createdAt }))
      return true
    }),
    findById: (accountId, id) => db.atomic(() => Option.map(Option.fromNullable(find(accountId, id)), copy)),
    findPublic: (id) => db.atomic(() => Option.map(Option.fromNullable(rows.get(id as FormId)), copy)),
    list: (accountId, page) => db.atomic(() => {
      const forms = [...rows.values()].filter((form) => form.accountId === accountId).sort(byCreation)
      return { forms: slicePage(forms, page).map(copy), total: forms.length }
    }),
    delete: (accountId, id) => db.atomic(() => find(accountId, id) !== undefined && rows.delete(id)),
  }
}
