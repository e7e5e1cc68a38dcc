/** Mail servers for the SMTP probe of address validation, all on one port (SMTP_PROBE_PORT) at three loopback
 *  addresses: 127.0.0.1 is a real SMTP server (smtp-server) that answers RCPT TO by the mailbox's name, 127.0.0.2
 *  accepts connections and never says a word, and nothing listens at 127.0.0.3 (the connection is refused). */
import { createServer, type Server, type Socket } from "node:net"
import { type SinkReply, type SmtpSink, startSmtpSink } from "./smtp-sink.js"

export interface ProbeTargets {
  /** The port every target shares. */
  readonly port: number
  /** The SMTP server's address and the RCPT TO it received, in order. */
  readonly smtp: { readonly address: "127.0.0.1"; readonly sink: SmtpSink; readonly recipients: ReadonlyArray<string> }
  /** A server that accepts the connection and never answers. */
  readonly silent: { readonly address: "127.0.0.2" }
  /** An address where the connection is refused. */
  readonly refused: { readonly address: "127.0.0.3" }
  /** Forgets the SMTP server's connection counts (its peak among them), keeping how it answers. */
  readonly resetCounts: () => void
  readonly close: () => Promise<void>
}

/** How the SMTP server answers RCPT TO: by the local part (`ok…` 250, `gone…` 550, `greylist…` 451), and every address
 *  of a domain starting with `catchall` 250; any other mailbox 550 (5.1.1 no such user). */
export const probeReply = (recipient: string): SinkReply => {
  const [local = "", domain = ""] = recipient.toLowerCase().split("@")
  if (domain.startsWith("catchall") || local.startsWith("ok")) return { code: 250, message: "2.1.5 OK" }
  if (local.startsWith("greylist")) return { code: 451, message: "4.7.1 Greylisted, try again later" }
  return { code: 550, message: "5.1.1 No such user" }
}

const listen = (server: Server, port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => resolve())
  })

export const startProbeTargets = async (): Promise<ProbeTargets> => {
  const recipients: Array<string> = []
  const behaviour = {
    recipient: (address: string) => {
      recipients.push(address)
      return probeReply(address)
    },
  }
  const sink = await startSmtpSink({ behaviour })
  const sockets = new Set<Socket>()
  const silent = createServer((socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await listen(silent, sink.port, "127.0.0.2")
  return {
    port: sink.port,
    smtp: { address: "127.0.0.1", sink, recipients },
    silent: { address: "127.0.0.2" },
    refused: { address: "127.0.0.3" },
    resetCounts: () => {
      sink.reset()
      sink.behave(behaviour)
    },
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => silent.close(() => resolve()))
      await sink.close()
    },
  }
}
