// Creates or migrates the schema of DATABASE_URL and exits: for operators who run migrations as their own step.
// `npm run migrate` at the repository root runs it.
import { createMailroom, displayDatabase, readEnvironmentOrExit } from "@mailroom/mailroom"

const { mailroom: config } = readEnvironmentOrExit(process.env)
try {
  // Only the schema: no events relayed, no webhooks delivered by this short-lived process.
  const mailroom = createMailroom({ ...config, backgroundWork: false })
  try {
    await mailroom.ready()
  } finally {
    await mailroom.close()
  }
  console.log(`Migrated ${displayDatabase(config.database)}`)
} catch (error) {
  console.error(`Could not migrate ${displayDatabase(config.database)}:`, error)
  process.exitCode = 1
}
