/** The SmtpProbe port over node:net: one plain SMTP session per probe on SMTP_PROBE_PORT (25 by default), every step
 *  bounded by the request's timeout. Nothing is sent: the session ends with QUIT after RCPT TO. */
import { Socket } from "node:net"
import { hostname } from "node:os"
import { type ProbeAnswer, type ProbeRequest, SmtpProbe, type SmtpProbeService } from "@mailroom/core"
import { Effect, Layer } from "effect"

export interface NetSmtpProbeOptions {
  /** The port mail servers are asked on. Default 25 (SMTP_PROBE_PORT). */
  readonly port?: number
  /** The name sent with EHLO. Default: this machine's host name. A receiving server may refuse a name that does not
   *  resolve back to the probing address, which answers unknown, never false. */
  readonly heloName?: string
}

export const defaultSmtpProbePort = 25

/** A reply: its code, or undefined when none came in time or the connection ended. */
type Reply = number | undefined

/** Reads whole SMTP replies (the last line of a multi-line reply is `NNN ` or a bare `NNN`) from the socket. */
const makeReader = (socket: Socket) => {
  let buffer = ""
  const replies: Array<number> = []
  let waiting: ((reply: Reply) => void) | undefined
  let ended = false
  const settle = (reply: Reply) => {
    const resolve = waiting
    waiting = undefined
    resolve?.(reply)
  }
  socket.setEncoding("latin1")
  socket.on("data", (data: string) => {
    buffer += data
    let end: number
    while ((end = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, end).replace(/\r$/, "")
      buffer = buffer.slice(end + 1)
      const last = /^(\d{3})(?: |$)/.exec(line)
      if (last !== null) replies.push(Number(last[1]))
    }
    if (replies.length > 0 && waiting !== undefined) settle(replies.shift())
  })
  const close = () => {
    ended = true
    settle(undefined)
  }
  socket.on("close", close)
  socket.on("error", close)
  /** The next reply, or undefined when none comes within `timeoutMs`. */
  const next = (timeoutMs: number) =>
    new Promise<Reply>((resolve) => {
      if (replies.length > 0) return resolve(replies.shift())
      if (ended) return resolve(undefined)
      const timer = setTimeout(() => settle(undefined), timeoutMs)
      waiting = (reply) => {
        clearTimeout(timer)
        resolve(reply)
      }
    })
  return { next }
}

const connect = (socket: Socket, address: string, port: number, timeoutMs: number) =>
  new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs)
    socket.once("connect", () => {
      clearTimeout(timer)
      resolve(true)
    })
    socket.once("error", () => {
      clearTimeout(timer)
      resolve(false)
    })
    socket.connect({ host: address, port })
  })

const positive = (reply: Reply) => reply !== undefined && reply >= 200 && reply < 300

/** How long a finished session waits for the server to close the connection before dropping it. */
const closeWaitMs = 1_000

/** One session; every answer not learned is unknown. */
const session = async (request: ProbeRequest, port: number, heloName: string): Promise<ReadonlyArray<ProbeAnswer>> => {
  const answers: Array<ProbeAnswer> = request.recipients.map(() => "unknown")
  const socket = new Socket()
  const reader = makeReader(socket)
  const ask = async (command: string) => {
    socket.write(`${command}\r\n`)
    return reader.next(request.timeoutMs)
  }
  try {
    if (!(await connect(socket, request.address, port, request.timeoutMs))) return answers
    if (!positive(await reader.next(request.timeoutMs))) return answers
    const ehlo = await ask(`EHLO ${heloName}`)
    if (!positive(ehlo) && !(ehlo !== undefined && positive(await ask(`HELO ${heloName}`)))) return answers
    if (!positive(await ask("MAIL FROM:<>"))) return answers
    for (const [at, recipient] of request.recipients.entries()) {
      const reply = await ask(`RCPT TO:<${recipient}>`)
      if (reply === undefined) return answers
      answers[at] = reply >= 200 && reply < 300 ? "accepted" : reply >= 500 && reply < 600 ? "rejected" : "unknown"
    }
    socket.write("QUIT\r\n")
    return answers
  } finally {
    // The session is over once the server has closed it too: a caller that caps sessions per host counts it until then.
    const closed = new Promise<void>((resolve) => {
      if (socket.closed) return resolve()
      const timer = setTimeout(resolve, Math.min(request.timeoutMs, closeWaitMs))
      socket.once("close", () => {
        clearTimeout(timer)
        resolve()
      })
    })
    socket.end()
    await closed
    socket.destroy()
  }
}

export const makeNetSmtpProbe = (options: NetSmtpProbeOptions = {}): SmtpProbeService => {
  const port = options.port ?? defaultSmtpProbePort
  const heloName = options.heloName ?? hostname()
  return {
    probe: (request) => Effect.promise(() => session(request, port, heloName)),
  }
}

export const NetSmtpProbe = {
  layer: (options: NetSmtpProbeOptions = {}): Layer.Layer<SmtpProbe> => Layer.succeed(SmtpProbe, makeNetSmtpProbe(options)),
} as const
