/** A Dovecot IMAP server of the test's own (Debian's dovecot-imapd): a config in a temporary directory, plain login of
 *  one user from a passwd-file, a free port on 127.0.0.1, mail in a Maildir that the test delivers into (`deliver`, as
 *  an MTA would: a Received header with the connecting address, then the message). Started and stopped by the test.
 *  Where Dovecot is not installed, `startDovecot` answers undefined, unless MAILROOM_REQUIRE_DOVECOT=1 or CI=true, where
 *  it throws: CI installs it (.ci/run). */
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { connect, createServer } from "node:net"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"

export interface TestDovecot {
  /** `imap://user:password@127.0.0.1:port/INBOX`, for CANARY_IMAP_URL. */
  readonly url: string
  readonly port: number
  /** Files a message into the user's INBOX as an MTA on 127.0.0.1 that received it from `clientAddress` with the
   *  envelope sender `mailFrom` would: Return-Path and Received headers first, then the message. */
  readonly deliver: (raw: string, mailFrom: string, clientAddress?: string) => void
  readonly close: () => Promise<void>
}

const dovecotBinary = () => process.env["MAILROOM_DOVECOT"] ?? "/usr/sbin/dovecot"

/** Whether a missing Dovecot is a failure rather than a reason to skip. */
export const dovecotRequired = () => process.env["MAILROOM_REQUIRE_DOVECOT"] === "1" || process.env["CI"] === "true"

const freePort = () => new Promise<number>((resolve, reject) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address() as { port: number }
    probe.close(() => resolve(port))
  }).on("error", reject)
})

const accepts = (port: number) => new Promise<boolean>((resolve) => {
  const socket = connect(port, "127.0.0.1", () => { socket.end(); resolve(true) }).on("error", () => resolve(false))
})

export const startDovecot = async (): Promise<TestDovecot | undefined> => {
  if (!existsSync(dovecotBinary())) {
    if (dovecotRequired()) throw new Error(`Dovecot is required (CI=true or MAILROOM_REQUIRE_DOVECOT=1) but ${dovecotBinary()} is missing: apt-get install -y dovecot-imapd`)
    return undefined
  }
  const dir = mkdtempSync(join(tmpdir(), "mailroom-dovecot-"))
  chmodSync(dir, 0o755)
  const port = await freePort()
  const user = "canary"
  const password = randomBytes(8).toString("hex")
  // Dovecot refuses mail access as root: as root, mail belongs to nobody; otherwise to the user running the tests.
  const me = userInfo()
  const owner = me.uid === 0 ? { uid: 65534, gid: 65534, name: "nobody", login: "dovenull" } : { uid: me.uid, gid: me.gid, name: me.username, login: me.username }
  const maildir = join(dir, "home", user, "Maildir")
  for (const sub of ["new", "cur", "tmp"]) mkdirSync(join(maildir, sub), { recursive: true })
  for (const path of [join(dir, "home"), join(dir, "home", user), maildir, ...["new", "cur", "tmp"].map((sub) => join(maildir, sub))]) {
    if (me.uid === 0) chownSync(path, owner.uid, owner.gid)
  }
  writeFileSync(join(dir, "passwd"), `${user}:{PLAIN}${password}:${owner.uid}:${owner.gid}::${join(dir, "home", user)}\n`)
  writeFileSync(join(dir, "dovecot.conf"), `
base_dir = ${join(dir, "run")}
state_dir = ${join(dir, "state")}
log_path = ${join(dir, "dovecot.log")}
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_login_user = ${owner.login}
default_internal_user = ${owner.name}
default_internal_group = ${me.uid === 0 ? "nogroup" : owner.name}
first_valid_uid = ${owner.uid}
mail_location = maildir:~/Maildir
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${join(dir, "passwd")}
}
userdb {
  driver = passwd-file
  args = username_format=%u ${join(dir, "passwd")}
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
`)
  const child = spawn(dovecotBinary(), ["-F", "-c", join(dir, "dovecot.conf")], { stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => { stderr += chunk.toString() })
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const deadline = Date.now() + 10_000
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`Dovecot did not start: ${stderr}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  let delivered = 0
  return {
    url: `imap://${user}:${password}@127.0.0.1:${port}/INBOX`,
    port,
    deliver: (raw, mailFrom, clientAddress = "127.0.0.1") => {
      const received = `Return-Path: <${mailFrom}>\r\nReceived: from relay.test (relay.test [${clientAddress}])\r\n\tby mx.canary.test with ESMTP; ${new Date().toUTCString()}\r\n`
      const name = `${Date.now()}.${process.pid}_${++delivered}.mailroom-test`
      const path = join(maildir, "new", name)
      writeFileSync(path, received + raw)
      if (me.uid === 0) chownSync(path, owner.uid, owner.gid)
    },
    close: async () => {
      child.kill("SIGTERM")
      await exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
