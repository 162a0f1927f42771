/**
 * A private PostgreSQL cluster for tests: `initdb` into a temp dir, `postgres` on a free loopback
 * port (and a unix socket in the same dir), trust authentication, one database. No system service
 * is assumed: the binaries come from Debian's packages (`/usr/lib/postgresql/<major>/bin`, installed
 * by `.ci/run`), and as root the server runs as the `postgres` user (initdb refuses root).
 *
 * `startPostgres` is scoped: the server is stopped (fast mode) and the directory removed when the
 * scope closes. When no binaries exist it fails loudly with {@link PostgresUnavailable}; tests must
 * not turn that into a skip in CI (CI installs the packages).
 *
 * Outages, for the failure-path tests: {@link stopServer} shuts the server down (fast mode, the data
 * kept), {@link startServer} starts it again on the same port, {@link pauseServer} /
 * {@link resumeServer} freeze and thaw every server process (SIGSTOP/SIGCONT: connections stay open
 * and nothing answers, a hung database). With `password`, TCP logins need it (scram-sha-256).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process"
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
  /** The password of `user` over TCP (in `url` too), when the cluster was started with one. */
  readonly password?: string | undefined
}

/** How {@link startPostgres} sets the cluster up. */
export interface PostgresOptions {
  /** Require this password for TCP logins (scram-sha-256); the unix socket stays trusted. */
  readonly password?: string | undefined
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

/** The running server of each cluster (by data dir); replaced by {@link startServer}. */
interface Running {
  server: ReturnType<typeof spawn> | undefined
  readonly dir: string
  readonly bin: string
  readonly port: number
  log: string
}

const spawnServer = async (run: Running, dataDir: string): Promise<void> => {
  const [cmd, args] = asServerUser(path.join(run.bin, "postgres"), [
    "-D", dataDir, "-p", String(run.port), "-k", run.dir, "-c", "listen_addresses=127.0.0.1",
    "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200"
  ])
  const server = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"], detached: false })
  run.server = server
  server.stderr.on("data", (chunk: Buffer) => {
    if (run.log.length < 20_000) run.log += chunk.toString()
  })
  const deadline = Date.now() + 30_000
  while (!(await canConnect(run.port))) {
    if (server.exitCode !== null || Date.now() > deadline) {
      server.kill("SIGKILL")
      throw new PostgresUnavailable({ message: `postgres did not start on 127.0.0.1:${run.port}:\n${run.log}` })
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  // The port accepts before the server takes logins ("the database system is starting up").
  while (spawnSync(path.join(run.bin, "pg_isready"), ["-q", "-h", "127.0.0.1", "-p", String(run.port)]).status !== 0) {
    if (server.exitCode !== null || Date.now() > deadline) {
      server.kill("SIGKILL")
      throw new PostgresUnavailable({ message: `postgres on 127.0.0.1:${run.port} never took logins:\n${run.log}` })
    }
    await new Promise((r) => setTimeout(r, 50))
  }
}

const start = async (database: string, options: PostgresOptions): Promise<TestPostgres> => {
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
  const password = options.password
  const pwfile = path.join(dir, "pwfile")
  if (password !== undefined) fs.writeFileSync(pwfile, `${password}\n`)
  if (isRoot()) execFileSync("chown", ["-R", "postgres:postgres", dir])
  fs.chmodSync(dir, 0o755)
  const [initCmd, initArgs] = asServerUser(path.join(bin, "initdb"), [
    "-D", dataDir, "-U", "postgres", "--encoding=UTF8", "--no-sync", "--locale=C.UTF-8",
    ...(password === undefined ? ["--auth=trust"] : ["--auth-local=trust", "--auth-host=scram-sha-256", `--pwfile=${pwfile}`])
  ])
  execFileSync(initCmd, initArgs, { stdio: "pipe" })
  if (password !== undefined) fs.rmSync(pwfile)
  const run: Running = { server: undefined, dir, bin, port: await freePort(), log: "" }
  await spawnServer(run, dataDir)
  // Over the unix socket (trusted whatever the password).
  const [createCmd, createArgs] = asServerUser(path.join(bin, "createdb"), ["-h", dir, "-p", String(run.port), "-U", "postgres", database])
  // The socket accepts before the server is ready for logins: retry createdb briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      execFileSync(createCmd, createArgs, { stdio: "pipe" })
      break
    } catch (e) {
      if (attempt > 100) throw new PostgresUnavailable({ message: `createdb failed: ${String(e)}\n${run.log}` })
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  stopOnExit.set(dataDir, run)
  const auth = password === undefined ? "postgres" : `postgres:${encodeURIComponent(password)}`
  return {
    url: `postgres://${auth}@127.0.0.1:${run.port}/${database}`,
    host: "127.0.0.1",
    port: run.port,
    database,
    user: "postgres",
    dataDir,
    password
  }
}

/** Servers to stop if the test process exits without closing its scope (a crash, a timeout). */
const stopOnExit = new Map<string, Running>()
process.once("exit", () => {
  for (const [dataDir, { server, dir }] of stopOnExit) {
    signalAll(dataDir, "SIGKILL")
    server?.kill("SIGKILL")
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

const runningOf = (pg: TestPostgres): Running => {
  const run = stopOnExit.get(pg.dataDir)
  if (run === undefined) throw new Error(`no test PostgreSQL at ${pg.dataDir}`)
  return run
}

/** The postmaster's pid (as root the spawned process is `runuser`, which does not pass SIGINT on as is). */
const postmasterPid = (dataDir: string): number | undefined => {
  const text = fs.existsSync(path.join(dataDir, "postmaster.pid")) ? fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8") : ""
  const pid = Number(text.split("\n")[0])
  return Number.isInteger(pid) && pid > 0 ? pid : undefined
}

/** Fast shutdown of the running server (clients are disconnected); the data stays. */
const shutdown = async (run: Running, dataDir: string) => {
  const server = run.server
  if (server === undefined) return
  run.server = undefined
  const exited = new Promise<void>((resolve) => {
    if (server.exitCode !== null || server.signalCode !== null) resolve()
    else server.once("exit", () => resolve())
  })
  signalAll(dataDir, "SIGCONT")
  const main = postmasterPid(dataDir)
  if (main !== undefined) process.kill(main, "SIGINT") // fast shutdown
  else server.kill("SIGINT")
  const timer = setTimeout(() => {
    signalAll(dataDir, "SIGKILL")
    server.kill("SIGKILL")
  }, 10_000)
  await exited
  clearTimeout(timer)
}

const stop = async (pg: TestPostgres) => {
  const run = stopOnExit.get(pg.dataDir)
  if (run === undefined) return
  stopOnExit.delete(pg.dataDir)
  await shutdown(run, pg.dataDir)
  fs.rmSync(run.dir, { recursive: true, force: true })
}

/** The pids of the cluster's processes: the postmaster and its children (backends, workers). */
const serverPids = (dataDir: string): Array<number> => {
  const main = postmasterPid(dataDir)
  if (main === undefined) return []
  const children: Array<number> = []
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8")
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === main) children.push(Number(name))
    } catch {
      // gone meanwhile
    }
  }
  return [main, ...children]
}

const signalAll = (dataDir: string, signal: NodeJS.Signals) => {
  for (const pid of serverPids(dataDir)) {
    try {
      process.kill(pid, signal)
    } catch {
      // gone meanwhile
    }
  }
}

/** Stops the server (fast shutdown: open connections are closed); the data and the port stay for {@link startServer}. */
export const stopServer = (pg: TestPostgres) => Effect.promise(() => shutdown(runningOf(pg), pg.dataDir))

/** Starts a stopped server again on the same port and waits until it accepts connections. */
export const startServer = (pg: TestPostgres) =>
  Effect.tryPromise({
    try: async () => {
      const run = runningOf(pg)
      if (run.server === undefined) await spawnServer(run, pg.dataDir)
    },
    catch: (e) => e instanceof PostgresUnavailable ? e : new PostgresUnavailable({ message: String(e) })
  })

/** Freezes every server process (SIGSTOP): connections stay open and nothing answers, as a hung database. */
export const pauseServer = (pg: TestPostgres) => Effect.sync(() => {
  runningOf(pg)
  signalAll(pg.dataDir, "SIGSTOP")
})

/** Thaws a paused server (SIGCONT). */
export const resumeServer = (pg: TestPostgres) => Effect.sync(() => {
  runningOf(pg)
  signalAll(pg.dataDir, "SIGCONT")
})

/**
 * Starts a private PostgreSQL cluster for the scope, with database `database` (default
 * `toolwright`). Fails with {@link PostgresUnavailable} when it cannot run here.
 */
export const startPostgres = (database = "toolwright", options: PostgresOptions = {}) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => start(database, options),
      catch: (e) => e instanceof PostgresUnavailable ? e : new PostgresUnavailable({ message: String(e) })
    }),
    (pg) => Effect.promise(() => stop(pg))
  )
