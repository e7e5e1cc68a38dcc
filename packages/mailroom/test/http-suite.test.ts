import { httpSuite } from "@mailroom/testing"
import { createMailroom } from "../src/index.js"

httpSuite("mailroom.fetch, memory", async ({ rateLimits }) => {
  const mailroom = createMailroom({ database: "memory:", adminToken: "test-admin-token", rateLimits })
  await mailroom.ready()
  return { fetch: mailroom.fetch, close: mailroom.close }
})
