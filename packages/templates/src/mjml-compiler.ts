/** MJML to HTML in a worker thread, so that a compile past its deadline is really stopped (the worker is terminated;
 *  a timer in the same thread could not interrupt a compile that never yields). One worker compiles one source at a
 *  time and is kept for the next; a terminated or crashed worker is replaced on the next compile. Spec: "Legacy
 *  templates": file includes disabled, five-second deadline, 2 MiB in, 4 MiB out. */
import { CompiledTemplateTooLarge, InvalidTemplateSyntax, MjmlCompileTimedOut, PayloadTooLarge, TemplateEngineError } from "@mailroom/core"
import { Effect } from "effect"
import { createRequire } from "node:module"
import { Worker } from "node:worker_threads"

export const mjmlLimits = {
  deadlineMs: 5_000,
  inputBytes: 2 * 1024 * 1024,
  outputBytes: 4 * 1024 * 1024,
} as const

export interface MjmlOptions {
  /** How long a compile may run before its worker is terminated (default 5 s). */
  readonly deadlineMs?: number | undefined
  readonly inputBytes?: number | undefined
  readonly outputBytes?: number | undefined
  /** The module that compiles (default: the `mjml` package); a test points it at one that never returns. */
  readonly compilerModule?: string | undefined
}

export type MjmlError = InvalidTemplateSyntax | MjmlCompileTimedOut | PayloadTooLarge | CompiledTemplateTooLarge | TemplateEngineError

/** The worker's code, plain JavaScript evaluated by the worker (so it runs the same from sources and from the build).
 *  Includes are off twice: `ignoreIncludes` and no file path to resolve them from; `.mjmlconfig` is never read. */
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const loaded = require(workerData.compilerModule)
const mjml2html = typeof loaded === "function" ? loaded : loaded.default
parentPort.postMessage({ type: "ready" })
parentPort.on("message", async ({ source, outputBytes }) => {
  try {
    const result = await mjml2html(source, {
      validationLevel: "strict", ignoreIncludes: true, useMjmlConfigOptions: false, keepComments: true,
      minify: false, beautify: false,
    })
    const bytes = Buffer.byteLength(result.html, "utf8")
    if (bytes > outputBytes) parentPort.postMessage({ type: "too-large", bytes })
    else parentPort.postMessage({ type: "compiled", html: result.html })
  } catch (error) {
    const details = Array.isArray(error && error.errors)
      ? error.errors.map((e) => ({ line: e.line, message: e.message }))
      : [{ line: undefined, message: String(error && error.message || error) }]
    parentPort.postMessage({ type: "invalid", details })
  }
})
`

type Answer =
  | { readonly type: "compiled"; readonly html: string }
  | { readonly type: "too-large"; readonly bytes: number }
  | { readonly type: "invalid"; readonly details: ReadonlyArray<{ readonly line?: number; readonly message: string }> }

export interface MjmlCompiler {
  /** Compiles `source` (the draft's `html` field, named `field` in errors). */
  readonly compile: (source: string, field: string) => Effect.Effect<string, MjmlError>
  /** Terminates the worker, if one runs. */
  readonly close: Effect.Effect<void>
}

/** Starts no worker until the first compile. */
export const makeMjmlCompiler = (options: MjmlOptions = {}): Effect.Effect<MjmlCompiler> =>
  Effect.gen(function* () {
    const deadlineMs = options.deadlineMs ?? mjmlLimits.deadlineMs
    const inputBytes = options.inputBytes ?? mjmlLimits.inputBytes
    const outputBytes = options.outputBytes ?? mjmlLimits.outputBytes
    const compilerModule = options.compilerModule ?? createRequire(import.meta.url).resolve("mjml")
    const lock = yield* Effect.makeSemaphore(1)
    let current: Promise<Worker> | undefined

    const discard = () => {
      const worker = current
      current = undefined
      if (worker !== undefined) void worker.then((w) => w.terminate(), () => undefined)
    }

    /** A worker that has loaded the compiler (loading mjml takes a while; it is not counted in the deadline). */
    const ready = () => {
      current ??= new Promise<Worker>((resolve, reject) => {
        const worker = new Worker(workerSource, { eval: true, workerData: { compilerModule }, resourceLimits: { maxOldGenerationSizeMb: 512 } })
        worker.unref()
        worker.once("message", () => resolve(worker))
        worker.once("error", reject)
        worker.once("exit", (code) => reject(new Error(`the MJML worker exited with code ${code} while starting`)))
      })
      return current
    }

    const run = (source: string, field: string) =>
      Effect.async<Answer, MjmlError>((resume) => {
        let settled = false
        let timer: ReturnType<typeof setTimeout> | undefined
        const settle = (effect: Effect.Effect<Answer, MjmlError>) => {
          if (settled) return
          settled = true
          if (timer !== undefined) clearTimeout(timer)
          resume(effect)
        }
        ready().then((worker) => {
          if (settled) return
          const onMessage = (answer: Answer) => {
            worker.off("error", onError)
            settle(Effect.succeed(answer))
          }
          const onError = (cause: unknown) => {
            worker.off("message", onMessage)
            discard()
            settle(Effect.fail(new TemplateEngineError({ operation: "mjml compile", cause })))
          }
          worker.once("message", onMessage)
          worker.once("error", onError)
          timer = setTimeout(() => {
            worker.off("message", onMessage)
            worker.off("error", onError)
            discard()
            settle(Effect.fail(new MjmlCompileTimedOut({ field, deadlineMs })))
          }, deadlineMs)
          worker.postMessage({ source, outputBytes })
        }, (cause: unknown) => {
          discard()
          settle(Effect.fail(new TemplateEngineError({ operation: "mjml worker start", cause })))
        })
        // Interrupted (the caller gave up): the compile is abandoned with its worker.
        return Effect.sync(() => {
          if (settled) return
          settled = true
          if (timer !== undefined) clearTimeout(timer)
          discard()
        })
      })

    const compile = (source: string, field: string): Effect.Effect<string, MjmlError> =>
      Effect.gen(function* () {
        if (Buffer.byteLength(source, "utf8") > inputBytes) return yield* new PayloadTooLarge({ limitBytes: inputBytes, field })
        const answer = yield* lock.withPermits(1)(run(source, field))
        switch (answer.type) {
          case "compiled":
            return answer.html
          case "too-large":
            return yield* new CompiledTemplateTooLarge({ field, limitBytes: outputBytes, actualBytes: answer.bytes })
          case "invalid": {
            const first = answer.details[0]
            const detail = answer.details.map((d) => (d.line === undefined ? d.message : `line ${d.line}: ${d.message}`)).join("; ")
            return yield* new InvalidTemplateSyntax({ field, line: first?.line, detail: `the MJML does not compile: ${detail}` })
          }
        }
      })

    return { compile, close: Effect.sync(discard) }
  })
