/**
 * A private PostgreSQL cluster for tests: `initdb` into a temp dir, `postgres` on a free loopback
 * port (and a unix socket in the same dir), trust authentication, one database. No system service
 * is assumed: the binaries come from Debian's packages (`/usr/lib/postgresql/<major>/bin`, installed
 * by `.ci/run`), and as root the server runs as the `postgres` user (initdb refuses root).
 *
 * `startPostgres` is scoped: the server is stopped (fast mode) and the directory removed when the
 * scope closes. When no binaries exist it fails loudly with {@link PostgresUnavailable}; tests must
 * not turn that into a skip in CI (CI installs the packages).
 */
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { Data, Effect } from "effect"

/** No PostgreSQL binaries on this machine, or the server would not start. */
export class PostgresUnavailable extends Data.TaggedError("PostgresUnavailable")<{ readonly message: string }> {}

/** A running private cluster. */
export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/toolwright` */
  readonly url: string
  readonly host: string
  readonly port: number
  readonly database: string
  readonly user: string
  /** The data directory (for tests that want to inspect it). */
  readonly dataDir: string
}

/** The directory holding `initdb`, `pg_ctl` and `postgres`: the newest Debian major, or PATH. */
export const postgresBinDir = (): string | undefined => {
  const base = "/usr/lib/postgresql"
  const majors = fs.existsSync(base)
    ? fs.readdirSync(base).filter((d) => fs.existsSync(path.join(base, d, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a))
    : []
  if (majors.length > 0) return path.join(base, majors[0]!, "bin")
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir !== "" && fs.existsSync(path.join(dir, "initdb")) && fs.existsSync(path.join(dir, "pg_ctl"))) return dir
  }
  return undefined
}

/** A free loopback port (closed again: another process may take it before it is used). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

const isRoot = () => process.getuid?.() === 0

/** Runs a PostgreSQL binary, as `postgres` when we are root. */
const asServerUser = (bin: string, args: ReadonlyArray<string>): [string, Array<string>] =>
  isRoot() ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, [...args]]

const canConnect = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port })
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

const start = async (database: string): Promise<TestPostgres> => {
  const bin = postgresBinDir()
  if (bin === undefined) {
    throw new PostgresUnavailable({
      message: "no PostgreSQL binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin or on PATH: " +
        "install Debian's `postgresql` package (`.ci/run` does)"
    })
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tw-pg-"))
  const dataDir = path.join(dir, "data")
  fs.mkdirSync(dataDir)
  if (isRoot()) execFileSync("chown", ["-R", "postgres:postgres", dir])
  fs.chmodSync(dir, 0o755)
  const [initCmd, initArgs] = asServerUser(path.join(bin, "initdb"), [
    "-D", dataDir, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync", "--locale=C.UTF-8"
  ])
  execFileSync(initCmd, initArgs, { stdio: "pipe" })
  const port = await freePort()
  const [cmd, args] = asServerUser(path.join(bin, "postgres"), [
    "-D", dataDir, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1",
    "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200"
  ])
  const server = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"], detached: false })
  let log = ""
  server.stderr.on("data", (chunk: Buffer) => {
    if (log.length < 20_000) log += chunk.toString()
  })
  const deadline = Date.now() + 30_000
  while (!(await canConnect(port))) {
    if (server.exitCode !== null || Date.now() > deadline) {
      server.kill("SIGKILL")
      throw new PostgresUnavailable({ message: `postgres did not start on 127.0.0.1:${port}:\n${log}` })
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  const [createCmd, createArgs] = asServerUser(path.join(bin, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", database])
  // The socket accepts before the server is ready for logins: retry createdb briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      execFileSync(createCmd, createArgs, { stdio: "pipe" })
      break
    } catch (e) {
      if (attempt > 100) throw new PostgresUnavailable({ message: `createdb failed: ${String(e)}\n${log}` })
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  stopOnExit.set(dataDir, { server, dir })
  return { url: `postgres://postgres@127.0.0.1:${port}/${database}`, host: "127.0.0.1", port, database, user: "postgres", dataDir }
}

/** Servers to stop if the test process exits without closing its scope (a crash, a timeout). */
const stopOnExit = new Map<string, { readonly server: ReturnType<typeof spawn>; readonly dir: string }>()
process.once("exit", () => {
  for (const { server, dir } of stopOnExit.values()) {
    server.kill("SIGKILL")
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

const stop = async (pg: TestPostgres) => {
  const entry = stopOnExit.get(pg.dataDir)
  if (entry === undefined) return
  stopOnExit.delete(pg.dataDir)
  const exited = new Promise<void>((resolve) => {
    if (entry.server.exitCode !== null) resolve()
    else entry.server.once("exit", () => resolve())
  })
  entry.server.kill("SIGINT") // fast shutdown
  const timer = setTimeout(() => entry.server.kill("SIGKILL"), 10_000)
  await exited
  clearTimeout(timer)
  fs.rmSync(entry.dir, { recursive: true, force: true })
}

/**
 * Starts a private PostgreSQL cluster for the scope, with database `database` (default
 * `toolwright`). Fails with {@link PostgresUnavailable} when it cannot run here.
 */
export const startPostgres = (database = "toolwright") =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => start(database),
      catch: (e) => e instanceof PostgresUnavailable ? e : new PostgresUnavailable({ message: String(e) })
    }),
    (pg) => Effect.promise(() => stop(pg))
  )
