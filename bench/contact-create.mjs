// contact-create: POST /v1/contacts with a unique address per request, 50 connections, through the Hono mount on
// SQLite and Postgres beside a bare Hono route doing the same INSERT with the raw driver (target 0.50); then the
// Fastify mount against the Hono mount (target 0.90) and the Express mount against a bare Express route (target 0.50).
import { freshPostgresUrl, freshSqliteFile, interleave, load, report, startServer, uniqueEmail } from "./lib.mjs"

const seconds = Number(process.env.MAILROOM_BENCH_SECONDS ?? 3)

const databaseFor = async (backend, name) =>
  backend === "sqlite" ? `sqlite:${freshSqliteFile(name)}` : await freshPostgresUrl(name)

const throughput = (server) => () =>
  load({
    url: server.url,
    path: "/v1/contacts",
    headers: { authorization: `Bearer ${server.apiKey}` },
    makeBody: () => JSON.stringify({ email: uniqueEmail("create"), firstName: "Ada" }),
    seconds,
  })

const compare = async (label, a, b, target) => {
  try {
    const [x, y] = await interleave(throughput(a), throughput(b))
    return report("contact-create", label, x, y, target)
  } finally {
    await Promise.all([a.stop(), b.stop()])
  }
}

export const run = async ({ backends }) => {
  for (const backend of backends) {
    const mailroomDb = await databaseFor(backend, "bench_create_mailroom")
    const floorDb = await databaseFor(backend, "bench_create_floor")
    if (!mailroomDb || !floorDb) {
      console.log(`bench contact-create ${backend}: skipped (no database server answers)`)
      continue
    }
    const mailroom = await startServer("mailroom.mjs", { FRAMEWORK: "hono", DATABASE_URL: mailroomDb })
    const floor = await startServer("floor.mjs", { FRAMEWORK: "hono", DATABASE_URL: floorDb })
    await compare(backend, mailroom, floor, 0.5)
  }
  const sqlite = () => `sqlite:${freshSqliteFile(`bench_create_${Date.now()}`)}`
  const fastify = await startServer("mailroom.mjs", { FRAMEWORK: "fastify", DATABASE_URL: sqlite() })
  const hono = await startServer("mailroom.mjs", { FRAMEWORK: "hono", DATABASE_URL: sqlite() })
  await compare("sqlite fastify-vs-hono", fastify, hono, 0.9)
  const express = await startServer("mailroom.mjs", { FRAMEWORK: "express", DATABASE_URL: sqlite() })
  const bareExpress = await startServer("floor.mjs", { FRAMEWORK: "express", DATABASE_URL: sqlite() })
  await compare("sqlite express", express, bareExpress, 0.5)
}
