#!/usr/bin/env node
// `mailroom`, the operator command of @mailroom/mailroom: migrate, create accounts and API keys, send a test message,
// read and follow the dev outbox. It reads the environment the starter reads (CONTRACT.md), prints one clear line on
// failure and exits 1 (2 for a command line it does not understand).
import { parseArgs } from "node:util"
import { type CommandIo, CommandError, createAccount, createApiKey, migrate, type Options, outbox, sendTest } from "./cli/commands.js"
import { EnvironmentError, readEnvironment } from "./environment.js"

const usage = `Usage: mailroom <command> [options]

Commands:
  migrate                          create or migrate the schema of DATABASE_URL
  create-account [--name N] [--plan P] [--owner-email E] [--json]
                                   create an account and its full-access API key (printed once)
  create-api-key --account ID [--name N] [--scopes a,b] [--json]
                                   create another API key for an account (printed once)
  send-test --account ID --to ADDRESS [--from ADDRESS] [--subject S] [--timeout SECONDS]
                                   send a test message and wait until it is delivered
  outbox [--to ADDRESS] [--limit N] [--follow] [--json]
                                   show the dev outbox (SMTP_URL unset), newest last; --follow waits for new mail
  help                             show this

Environment: DATABASE_URL (default sqlite:.data/mailroom.sqlite), MAILROOM_SECRET, SMTP_URL, APP_URL, TRACK_URL,
LOG_LEVEL and the other variables of the starter.`

const commands = {
  migrate, "create-account": createAccount, "create-api-key": createApiKey, "send-test": sendTest, outbox,
} as const

const isCommand = (name: string): name is keyof typeof commands => Object.hasOwn(commands, name)

/** Resolves on SIGINT or SIGTERM. Only a command that runs until stopped (outbox --follow) catches them: the others
 *  end at once as Node ends a process on a signal. */
const stopSignal = () => new Promise<void>((resolve) => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve())
})

const main = async (): Promise<number> => {
  const [name, ...rest] = process.argv.slice(2)
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    console.log(usage)
    return name === undefined ? 2 : 0
  }
  if (!isCommand(name)) {
    console.error(`mailroom: unknown command "${name}"; run mailroom help for the list`)
    return 2
  }
  let options: Options
  try {
    options = parseArgs({
      args: rest,
      options: {
        name: { type: "string" }, plan: { type: "string" }, "owner-email": { type: "string" }, account: { type: "string" },
        scopes: { type: "string" }, to: { type: "string" }, from: { type: "string" }, subject: { type: "string" },
        timeout: { type: "string" }, limit: { type: "string" }, follow: { type: "boolean" }, json: { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
    }).values
  } catch (error) {
    console.error(`mailroom ${name}: ${error instanceof Error ? error.message : String(error)}; run mailroom help`)
    return 2
  }
  try {
    const { mailroom: config } = readEnvironment(process.env)
    const io: CommandIo = {
      out: (line) => console.log(line),
      err: (line) => console.error(line),
      stopped: options.follow === true ? stopSignal() : new Promise<void>(() => undefined),
    }
    await commands[name](config, options, io)
    return 0
  } catch (error) {
    if (error instanceof CommandError || error instanceof EnvironmentError) {
      console.error(`mailroom ${name}: ${error.message}`)
      return 1
    }
    // A refusal of the service (VALIDATION_ERROR, RESOURCE_NOT_FOUND, …) carries the API's code and message.
    const code = (error as { code?: unknown } | null)?.code
    const message = error instanceof Error ? error.message : String(error)
    console.error(`mailroom ${name}: ${typeof code === "string" ? `${code}: ` : ""}${message}`)
    return 1
  }
}

process.exit(await main())
