/** Mailroom's log output: one line per entry on stderr (stdout belongs to the host), as key=value text or as JSON, at
 *  the configured least level. Every line passes through core's redactLogText first, so that no key, token, secret,
 *  password or address local part reaches the output, whatever logged it. */
import { redactLogText } from "@mailroom/core"
import { Layer, Logger, LogLevel } from "effect"

export const logLevelNames = ["debug", "info", "warn", "error"] as const
export type LogLevelName = (typeof logLevelNames)[number]

/** `text`: one `key=value` line per entry (Effect's logfmt form, readable in a terminal); `json`: one JSON object per
 *  line, for log collectors. */
export const logFormatNames = ["text", "json"] as const
export type LogFormatName = (typeof logFormatNames)[number]

const levels = {
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  error: LogLevel.Error,
} as const satisfies Record<LogLevelName, LogLevel.LogLevel>

const formats = {
  text: Logger.logfmtLogger,
  json: Logger.jsonLogger,
} as const satisfies Record<LogFormatName, Logger.Logger<unknown, string>>

/** Thrown by createMailroom for a logLevel or logFormat it does not know; the message is one line naming the choices. */
export class LogConfigError extends Error {
  override readonly name = "LogConfigError"
}

const check = <A extends string>(what: string, value: string, choices: ReadonlyArray<A>): A => {
  if (!(choices as ReadonlyArray<string>).includes(value)) {
    throw new LogConfigError(`${what} must be one of ${choices.join(", ")}, not "${value}"`)
  }
  return value as A
}

/** The logger of createMailroom; throws LogConfigError for an unknown level or format (a JavaScript caller can pass
 *  any string). */
export const mailroomLogger = (options: { readonly level?: string | undefined; readonly format?: string | undefined }) => {
  const level = check("logLevel", options.level ?? "info", logLevelNames)
  const format = check("logFormat", options.format ?? "text", logFormatNames)
  return Layer.mergeAll(
    Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.map(formats[format], redactLogText))),
    Logger.minimumLogLevel(levels[level]),
  )
}
