/** Id prefixes of every stored resource. Ids sort by creation time (see the Ids port). */
export const idPrefixes = {
  account: "acc",
  apiKey: "key",
  appCredential: "app",
  contact: "ct",
  tag: "tag",
  customField: "cf",
  event: "evt",
  job: "job",
  list: "lst",
  member: "mem",
  suppression: "sup",
  topic: "grp",
  confirmation: "cnf",
  outboxMessage: "out",
  webhook: "wh",
  webhookDelivery: "whd",
  webhookAttempt: "wha",
  message: "msg",
  batch: "bat",
  messageEvent: "mev",
} as const
export type IdKind = keyof typeof idPrefixes
