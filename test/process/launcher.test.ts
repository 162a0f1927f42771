/**
 * The launchers with real processes, each case on both: the posix_spawn addon and child_process.
 * Exit codes, signals, ENOENT/EACCES, cwd, PATH from the child's environment, stdin, a large
 * output read with pauses (backpressure), a process group killed whole, default signal
 * dispositions in the child, no zombie and no leaked descriptor.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { childProcessLauncher, type Launched, type LaunchOptions, type LauncherService, makeLauncher } from "../../src/process/launcher.js"

interface Ran {
  readonly code: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
  readonly error?: NodeJS.ErrnoException
  readonly pid: number | undefined
}

const collect = (child: Launched): Promise<Ran> =>
  new Promise((resolve) => {
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    child.stdout?.on("data", (chunk: Buffer) => out.push(chunk))
    child.stderr?.on("data", (chunk: Buffer) => err.push(chunk))
    child.on("error", (error) =>
      resolve({ code: null, signal: null, stdout: "", stderr: "", error, pid: child.pid }))
    child.on("close", (code, signal) =>
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
        pid: child.pid
      }))
  })

const piped: LaunchOptions["stdio"] = ["ignore", "pipe", "pipe"]
const run = (launcher: LauncherService, file: string, args: ReadonlyArray<string>, options: Partial<LaunchOptions> = {}) =>
  collect(launcher.launch(file, args, { env: process.env, stdio: piped, ...options }))

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "tw-launcher-"))

const native = makeLauncher({})
const launchers: ReadonlyArray<LauncherService> = [native, childProcessLauncher()]

describe("launcher choice", () => {
  it("on Linux with the addon built (npm ci builds it), the posix_spawn launcher is chosen", () => {
    if (process.platform !== "linux") return
    assert.strictEqual(native.name, "posix_spawn", native.fallbackReason)
  })

  it("TOOLWRIGHT_NATIVE_SPAWN=0 forces child_process and says why", () => {
    const forced = makeLauncher({ TOOLWRIGHT_NATIVE_SPAWN: "0" })
    assert.strictEqual(forced.name, "child_process")
    assert.include(forced.fallbackReason ?? "", "TOOLWRIGHT_NATIVE_SPAWN=0")
  })
})

for (const launcher of launchers) {
  describe(`launcher: ${launcher.name}`, () => {
    it("exit codes and output of both streams", async () => {
      const ran = await run(launcher, "sh", ["-c", "echo out; echo err >&2; exit 3"])
      assert.deepStrictEqual([ran.code, ran.signal, ran.stdout, ran.stderr], [3, null, "out\n", "err\n"])
    })

    it("a signal is reported by name, with no exit code", async () => {
      const child = launcher.launch("sleep", ["30"], { env: process.env, stdio: piped })
      const ran = collect(child)
      assert.isTrue(child.kill("SIGTERM"))
      const result = await ran
      assert.deepStrictEqual([result.code, result.signal], [null, "SIGTERM"])
      assert.isFalse(child.kill("SIGKILL"), "a reaped process is not signalled again")
    })

    it("ENOENT for a program on no PATH folder, and for a missing path; EACCES for a file that is not executable", async () => {
      const missing = await run(launcher, "tw-no-such-program", [])
      assert.strictEqual(missing.error?.code, "ENOENT")
      assert.include(missing.error?.message ?? "", "spawn tw-no-such-program ENOENT")
      assert.isUndefined(missing.pid)
      assert.strictEqual((await run(launcher, "/nonexistent/tw", [])).error?.code, "ENOENT")
      const dir = tempDir()
      const plain = path.join(dir, "plain")
      fs.writeFileSync(plain, "#!/bin/sh\necho no\n", { mode: 0o644 })
      assert.strictEqual((await run(launcher, plain, [])).error?.code, "EACCES")
    })

    it("cwd: the child runs there; a missing cwd is ENOENT", async () => {
      const dir = fs.realpathSync(tempDir())
      assert.strictEqual((await run(launcher, "pwd", [], { cwd: dir })).stdout, `${dir}\n`)
      assert.strictEqual((await run(launcher, "pwd", [], { cwd: path.join(dir, "gone") })).error?.code, "ENOENT")
    })

    it("a bare name is looked for on the child's PATH, not ours; a relative path is taken from the child's cwd", async () => {
      const dir = tempDir()
      fs.writeFileSync(path.join(dir, "tw-hello"), "#!/bin/sh\necho \"hello $TW_X\"\n", { mode: 0o755 })
      const env = { PATH: `${dir}:/usr/bin:/bin`, TW_X: "there" }
      assert.strictEqual((await run(launcher, "tw-hello", [], { env })).stdout, "hello there\n")
      // the same name, asked again with a PATH without that folder, is not found (no stale cache hit)
      assert.strictEqual((await run(launcher, "tw-hello", [], { env: { PATH: "/usr/bin:/bin" } })).error?.code, "ENOENT")
      assert.strictEqual((await run(launcher, "./tw-hello", [], { env, cwd: dir })).stdout, "hello there\n")
    })

    it("stdin: writes reach the child; ending it ends the child's input", async () => {
      const child = launcher.launch("cat", [], { env: process.env, stdio: ["pipe", "pipe", "pipe"] })
      const ran = collect(child)
      child.stdin?.write("line one\n")
      child.stdin?.end("line two\n")
      const result = await ran
      assert.deepStrictEqual([result.code, result.stdout], [0, "line one\nline two\n"])
    })

    it("a large output read with pauses arrives whole (the child waits on a full pipe)", async () => {
      const bytes = 32 * 1024 * 1024
      const child = launcher.launch("head", ["-c", String(bytes), "/dev/zero"], { env: process.env, stdio: piped })
      let received = 0
      let pauses = 0
      child.stdout?.on("data", (chunk: Buffer) => {
        received += chunk.length
        if (pauses < 20 && received > pauses * 1_000_000) {
          pauses++
          child.stdout?.pause()
          setTimeout(() => child.stdout?.resume(), 5)
        }
      })
      const result = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
      assert.deepStrictEqual([result, received, pauses], [0, bytes, 20])
    })

    it("detached: the child leads its own process group, killed whole", async () => {
      const dir = tempDir()
      const pidFile = path.join(dir, "grandchild")
      const child = launcher.launch("sh", ["-c", `sleep 60 & echo $! > ${pidFile}; wait`], {
        env: process.env,
        stdio: piped,
        detached: true
      })
      const ran = collect(child)
      while (!fs.existsSync(pidFile) || fs.readFileSync(pidFile, "utf8").trim() === "") {
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      const grandchild = Number(fs.readFileSync(pidFile, "utf8").trim())
      const group = fs.readFileSync(`/proc/${grandchild}/stat`, "utf8").split(") ")[1]!.split(" ")[2]
      assert.strictEqual(Number(group), child.pid)
      process.kill(-child.pid!, "SIGKILL")
      assert.strictEqual((await ran).signal, "SIGKILL")
    })

    it("the child starts with no ignored and no blocked signal (Node ignores SIGPIPE)", async () => {
      const ran = await run(launcher, "grep", ["-E", "^Sig(Ign|Blk)", "/proc/self/status"])
      const [blocked, ignored] = ran.stdout.trim().split("\n").map((line) => BigInt(`0x${line.split(/\s+/)[1]}`))
      assert.strictEqual(blocked, 0n)
      // signals 1-31 (SIGPIPE is 13); glibc's internal 32 and 33 are its own business
      assert.strictEqual(ignored! & 0x7fffffffn, 0n)
    })

    it("no zombie is left; with posix_spawn, no descriptor of ours leaks into the child", async () => {
      const ran = await run(launcher, "ls", ["/proc/self/fd"])
      // 0-2, and the one ls opened to list the folder (child_process passes on any descriptor
      // opened without O_CLOEXEC, like one vitest holds; the addon closes all above 2)
      if (launcher.name === "posix_spawn") assert.deepStrictEqual(ran.stdout.trim().split("\n").map(Number).sort(), [0, 1, 2, 3])
      assert.isFalse(fs.existsSync(`/proc/${ran.pid}`), "the process was reaped")
    })
  })
}

describe("launcher: a PTY of our own", () => {
  const onPty = (script: string, afterStart?: (pty: ReturnType<NonNullable<LauncherService["launchPty"]>>) => void) =>
    new Promise<{ output: string; code: number | null; pid: number }>((resolve) => {
      const pty = native.launchPty!("sh", ["-c", script], { cwd: os.tmpdir(), env: process.env, cols: 101, rows: 37 })
      const chunks: Array<Buffer> = []
      let code: number | null = null
      pty.master.on("data", (chunk: Buffer) => chunks.push(chunk))
      // the output is all read once the slave is let go and the master ends
      pty.onExit((exitCode) => {
        code = exitCode
        setTimeout(() => {
          fs.closeSync(pty.slave.fd!)
          pty.slave.fd = undefined
        }, 50)
      })
      pty.master.on("close", () => resolve({ output: Buffer.concat(chunks).toString(), code, pid: pty.pid }))
      afterStart?.(pty)
    })

  it("the child is a session leader whose controlling terminal is the PTY: isatty, and the size it was opened with", async () => {
    const ran = await onPty("test -t 0 && test -t 1 && test -t 2 && echo tty; stty size; ps -o sid=,tty= -p $$")
    const [tty, size, ps] = ran.output.trim().split(/\r?\n/)
    assert.strictEqual(tty, "tty")
    assert.strictEqual(size, "37 101")
    const [sid, ttyName] = ps!.trim().split(/\s+/)
    assert.strictEqual(Number(sid), ran.pid)
    assert.match(ttyName!, /^pts\/\d+$/)
    assert.strictEqual(ran.code, 0)
  })

  it("resize: the child sees the new size (SIGWINCH goes to it)", async () => {
    const ran = await onPty("trap 'stty size; exit 0' WINCH; echo ready; while :; do sleep 0.01; done", (pty) => {
      pty.master.once("data", () => pty.resize(55, 22))
    })
    assert.include(ran.output, "22 55")
  })

  it("input written to the terminal reaches the child; no zombie and no descriptor left behind", async () => {
    const before = fs.readdirSync("/proc/self/fd").length
    const ran = await onPty("read line; echo \"got $line\"", (pty) => pty.write("hello\n", (error) => assert.isUndefined(error)))
    assert.include(ran.output, "got hello")
    assert.isFalse(fs.existsSync(`/proc/${ran.pid}`), "reaped")
    assert.strictEqual(fs.readdirSync("/proc/self/fd").length, before)
  })

  it("a program not on the child's PATH is ENOENT, and nothing is left open", () => {
    const before = fs.readdirSync("/proc/self/fd").length
    assert.throws(
      () => native.launchPty!("tw-no-such-program", [], { cwd: os.tmpdir(), env: { PATH: "/usr/bin" }, cols: 80, rows: 24 }),
      /ENOENT/
    )
    assert.throws(() => native.launchPty!("sh", [], { cwd: "/nonexistent", env: process.env, cols: 80, rows: 24 }), /ENOENT/)
    assert.strictEqual(fs.readdirSync("/proc/self/fd").length, before)
  })
})

describe("launcher: the addon in a worker thread", () => {
  it("a worker ended while its child still runs takes its watch down cleanly (the process goes on)", async () => {
    const addonPath = path.resolve(__dirname, "../../build/Release/toolwright_spawn.node")
    // run in a separate process: a crash here would be a segfault of the whole runner
    const script = `
      const { Worker } = require("node:worker_threads")
      const w = new Worker(\`
        const a = require(${JSON.stringify(addonPath)})
        a.spawn("/bin/sleep", ["sleep", "5"], [], null, [-1, -1, -1], {}, () => {})
        a.spawn("/bin/true", ["true"], [], null, [-1, -1, -1], {}, () => require("node:worker_threads").parentPort.postMessage("ran"))
      \`, { eval: true })
      w.on("message", async () => { await w.terminate(); setTimeout(() => console.log("alive"), 100) })
    `
    const ran = await run(native, process.execPath, ["-e", script])
    assert.deepStrictEqual([ran.code, ran.signal, ran.stdout.trim()], [0, null, "alive"])
  })
})
