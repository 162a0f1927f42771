// A private PostgreSQL for the cluster bench (initdb in a temp dir, loopback port, trust auth; as
// the postgres user when run as root), or the server at TOOLWRIGHT_BENCH_PG_URL when set.
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

export const freePort = () =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

const binDir = () => {
  const base = "/usr/lib/postgresql"
  const majors = fs.existsSync(base) ? fs.readdirSync(base).filter((d) => fs.existsSync(path.join(base, d, "bin", "initdb"))).sort((a, b) => b - a) : []
  if (majors.length > 0) return path.join(base, majors[0], "bin")
  throw new Error("no PostgreSQL binaries under /usr/lib/postgresql (install Debian's postgresql, or set TOOLWRIGHT_BENCH_PG_URL)")
}

const asServer = (bin, args) => (process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args])

const connects = (port) =>
  new Promise((resolve) => {
    const s = net.connect({ host: "127.0.0.1", port })
    s.once("connect", () => (s.destroy(), resolve(true)))
    s.once("error", () => resolve(false))
  })

/** Starts PostgreSQL; returns { url, stop }. */
export const startPg = async () => {
  if (process.env.TOOLWRIGHT_BENCH_PG_URL) return { url: process.env.TOOLWRIGHT_BENCH_PG_URL, stop: async () => {} }
  const bin = binDir()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "twbench-pg-"))
  const data = path.join(dir, "data")
  fs.mkdirSync(data)
  if (process.getuid?.() === 0) execFileSync("chown", ["-R", "postgres:postgres", dir])
  fs.chmodSync(dir, 0o755)
  execFileSync(...asServer(path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "--locale=C.UTF-8"]), { stdio: "pipe" })
  const port = await freePort()
  const server = spawn(...asServer(path.join(bin, "postgres"), [
    "-D", data, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
    "-c", "synchronous_commit=off", "-c", "max_connections=200"
  ]), { stdio: "ignore" })
  while (!(await connects(port))) await new Promise((r) => setTimeout(r, 50))
  for (let i = 0; ; i++) {
    try {
      execFileSync(...asServer(path.join(bin, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "bench"]), { stdio: "pipe" })
      break
    } catch (e) {
      if (i > 100) throw e
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  const stop = async () => {
    const exited = new Promise((r) => (server.exitCode !== null ? r() : server.once("exit", r)))
    server.kill("SIGINT") // fast shutdown
    const timer = setTimeout(() => server.kill("SIGKILL"), 10_000)
    await exited
    clearTimeout(timer)
    fs.rmSync(dir, { recursive: true, force: true })
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/bench`, stop }
}
