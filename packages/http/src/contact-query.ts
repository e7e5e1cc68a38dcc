/** Parameters of GET /contacts and GET /contacts/export: core's schemas, re-exported under the names routes use. */
export { contactListLimits, ContactFilterParams, ContactListOptions, ContactListParams } from "@mailroom/core"
