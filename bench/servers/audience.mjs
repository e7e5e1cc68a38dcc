// The audience of the batch-1000 benchmark, made through Mailroom's own API so that both sides of the comparison
// read the same rows: 100,000 contacts, 5% of them suppressed (account-level Unsubscribe suppressions), 2% opted out
// of one topic. Contact i is `c<i>@audience.example`; the suppressed and opted-out shares are spread over the range.
export const audienceSize = 100_000
export const suppressedShare = 0.05
export const optedOutShare = 0.02

export const audienceEmail = (i) => `c${i}@audience.example`

const json = async (mailroom, apiKey, method, path, body) => {
  const response = await mailroom.fetch(new Request(`http://bench.local/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  }))
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`)
  return (await response.json()).data
}

/** Seeds the account; answers the topic id the batches are sent under. */
export const seedAudience = async (mailroom, accountId, apiKey) => {
  for (let start = 0; start < audienceSize; start += 1_000) {
    const contacts = Array.from({ length: 1_000 }, (_, k) => ({ email: audienceEmail(start + k), firstName: `C${start + k}` }))
    await mailroom.contacts.bulkCreate(accountId, { contacts })
  }
  const every = (share, offset) => Array.from({ length: audienceSize * share }, (_, k) => audienceEmail(Math.floor(k / share) + offset))
  await json(mailroom, apiKey, "POST", "/suppressions/bulk", { action: "add", reason: "Unsubscribe", emails: every(suppressedShare, 0) })
  const topic = await json(mailroom, apiKey, "POST", "/suppression-groups", { name: "Newsletter" })
  await json(mailroom, apiKey, "POST", `/suppression-groups/${topic.id}/members/bulk`, { action: "add", emails: every(optedOutShare, 7) })
  return topic.id
}

/** The body of one batch: 1,000 recipients drawn from the audience, each with its own variable. */
export const batchBody = (topicId) => {
  const first = Math.floor(Math.random() * (audienceSize - 1_000))
  return JSON.stringify({
    from: { email: "news@sender.example", name: "Bench" },
    suppressionGroupId: topicId,
    content: { subject: "Hello {{name}}", html: "<p>Hi {{name}}, here is the news.</p>" },
    variables: { name: "friend" },
    recipients: Array.from({ length: 1_000 }, (_, k) => ({ to: { email: audienceEmail(first + k) }, variables: { name: `C${first + k}` } })),
  })
}
