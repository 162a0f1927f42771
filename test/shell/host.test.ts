import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Fiber, Layer } from "effect"
import { ProcessHost } from "../../src/shell/terminal/host.js"
import type { LiveOutput } from "../../src/tool/tool.js"
import { DEFAULT_SHELL_SETTINGS, settingsInEffect } from "../../src/shell/config.js"
import { Session } from "../../src/session/session.js"
import { recordLogs } from "../support/logs.js"
import { eventually, hostLayer, makeDir, UNSANDBOXED, ptyLoads, readPids, settings, survivors, TREE_PIDS, TREE_SCRIPT } from "./helpers.js"

const run = (command: string, extra: { timeoutMs?: number; onOutput?: (c: LiveOutput) => Effect.Effect<void>; cwd?: string } = {}) =>
  Effect.gen(function*() {
    const host = yield* ProcessHost
    const dir = makeDir()
    return yield* host.run({ command, cwd: extra.cwd ?? dir, timeoutMs: extra.timeoutMs ?? 30_000, spillDir: path.join(dir, "spill"), onOutput: extra.onOutput })
  })

describe("ProcessHost: PTY path", () => {
  it.live("runs under a PTY with a rendered ANSI screen when node-pty loads; otherwise reports the fallback", () =>
    Effect.gen(function*() {
      const host = yield* ProcessHost
      const info = yield* host.backend
      const result = yield* run("printf '\\033[31mred\\033[0m plain\\n'; if [ -t 1 ]; then echo tty; else echo notty; fi")
      if (ptyLoads()) {
        assert.strictEqual(info.backend, "pty")
        assert.strictEqual(result.backend, "pty")
        assert.strictEqual(result.output.kind === "text" ? result.output.text : "", "red plain\ntty\n")
        assert.include(result.ansi ?? "", "\x1b[31mred\x1b[0m plain")
        assert.isUndefined(result.fallbackReason)
      } else {
        assert.strictEqual(info.backend, "child_process")
        assert.include(info.reason ?? "", "node-pty could not be loaded")
        assert.strictEqual(result.backend, "child_process")
        assert.include(result.fallbackReason ?? "", "node-pty")
        assert.strictEqual(result.output.kind === "text" ? result.output.text : "", "red plain\nnotty\n")
      }
      assert.strictEqual(result.exitCode, 0)
    }).pipe(Effect.provide(hostLayer())))

  it.live("plain output is its own screen: no replay, no ANSI; a lone carriage return or a non-ASCII byte still renders", () =>
    Effect.gen(function*() {
      const plain = yield* run("printf 'one\\ttwo\\nthree\\n'")
      assert.strictEqual(plain.output.kind === "text" ? plain.output.text : "", "one\ttwo\nthree\n")
      assert.isUndefined(plain.ansi)
      const overwritten = yield* run("printf 'abc\\rX\\n'")
      const accented = yield* run("printf 'caf\\303\\251\\n'")
      if (ptyLoads()) {
        assert.strictEqual(overwritten.ansi, "Xbc")
        assert.strictEqual(accented.ansi, "café")
      } else {
        assert.isUndefined(overwritten.ansi)
        assert.isUndefined(accented.ansi)
      }
    }).pipe(Effect.provide(hostLayer())))
})

describe("ProcessHost: PTY live output and load failure", () => {
  it.live("streams the rendered screen as AnsiOutput under a PTY (plain text when the fallback runs)", () =>
    Effect.gen(function*() {
      const chunks: Array<LiveOutput> = []
      const result = yield* run("printf '\\033[34mblue\\033[0m\\n'", { onOutput: (c) => Effect.sync(() => void chunks.push(c)) })
      const last = chunks[chunks.length - 1]
      if (result.backend === "pty") assert.deepStrictEqual(last, { _tag: "AnsiOutput", ansi: "\x1b[34mblue\x1b[0m" })
      else assert.strictEqual(last, "blue\n")
      assert.strictEqual(result.backend, ptyLoads() ? "pty" : "child_process")
    }).pipe(Effect.provide(hostLayer({ liveIntervalMs: 50 }))))

  it.live("falls back to pipes, and says why, when node-pty cannot be loaded", () => {
    const logs = recordLogs()
    return Effect.gen(function*() {
      const host = yield* ProcessHost
      const info = yield* host.backend
      assert.strictEqual(info.backend, "child_process")
      assert.match(info.reason ?? "", /^node-pty could not be loaded: Cannot find module 'node-pty-missing-for-test'/)
      const result = yield* run("[ -t 1 ] && echo tty || echo notty")
      assert.strictEqual(result.backend, "child_process")
      assert.strictEqual(result.fallbackReason, info.reason)
      assert.strictEqual(result.output.kind === "text" ? result.output.text : "", "notty\n")
      // ...and says it once in the log too (recorded here, not printed).
      assert.deepStrictEqual(logs.lines, [`WARN toolwright: shell commands run without a PTY (pipes instead): ${info.reason}`])
    }).pipe(Effect.provide(hostLayer({ ptyModule: "node-pty-missing-for-test" })), Effect.provide(logs.layer))
  })
})

describe("ProcessHost: child-process fallback (forced)", () => {
  const layer = hostLayer({ pty: "off" })

  it.live("reports the fallback and why, and strips ANSI for the model", () =>
    Effect.gen(function*() {
      const info = yield* (yield* ProcessHost).backend
      assert.deepStrictEqual(info, { backend: "child_process", reason: "the PTY is turned off (pty: \"off\")" })
      const result = yield* run("printf '\\033[1;32mok\\033[0m\\n'; [ -t 1 ] || echo notty; echo err >&2; exit 3")
      assert.strictEqual(result.backend, "child_process")
      assert.isUndefined(result.ansi)
      assert.strictEqual(result.exitCode, 3)
      assert.isNull(result.signal)
      assert.strictEqual(result.output.kind === "text" ? result.output.text : "", "ok\nnotty\nerr\n")
    }).pipe(Effect.provide(layer)))

  it.live("reports a signal death and a spawn error", () =>
    Effect.gen(function*() {
      const killed = yield* run("kill -TERM $$")
      assert.strictEqual(killed.signal, "SIGTERM")
      assert.isNull(killed.exitCode)
      const host = yield* ProcessHost
      const missing = yield* host.run({ command: "true", cwd: "/nonexistent-dir-xyz", timeoutMs: 5_000, spillDir: makeDir() })
      assert.include(missing.error ?? "", "ENOENT")
    }).pipe(Effect.provide(layer)))

  it.live("throttles live output to the interval and flushes the last state", () =>
    Effect.gen(function*() {
      const chunks: Array<LiveOutput> = []
      const result = yield* run("for i in 1 2 3 4 5 6; do echo line$i; sleep 0.1; done", {
        onOutput: (c) => Effect.sync(() => void chunks.push(c))
      })
      assert.strictEqual(result.exitCode, 0)
      // 0.6 s of output with a 1 s interval: only the trailing flush
      assert.deepStrictEqual(chunks, ["line1\nline2\nline3\nline4\nline5\nline6\n"])
    }).pipe(Effect.provide(layer)))

  it.live("detects binary output and says so live", () =>
    Effect.gen(function*() {
      const chunks: Array<LiveOutput> = []
      const result = yield* run("printf 'abc\\000def'", { onOutput: (c) => Effect.sync(() => void chunks.push(c)) })
      assert.strictEqual(result.output.kind, "binary")
      assert.strictEqual(result.output.totalBytes, 7)
      assert.match(String(chunks[0]), /^\[Receiving binary output\.\.\. 7 B received\]$/)
    }).pipe(Effect.provide(layer)))

  it.live("a timeout kills the whole tree", () =>
    Effect.gen(function*() {
      const dir = makeDir()
      fs.writeFileSync(path.join(dir, "tree.sh"), TREE_SCRIPT)
      const pidFile = path.join(dir, "pids")
      const fiber = yield* Effect.forkChild(run(`bash tree.sh ${pidFile}`, { cwd: dir, timeoutMs: 2_000 }))
      const pids = yield* readPids(pidFile, TREE_PIDS)
      const result = yield* Fiber.join(fiber)
      assert.isTrue(result.timedOut)
      assert.deepStrictEqual(survivors(pids), [])
    }).pipe(Effect.provide(hostLayer({ pty: "off" }, UNSANDBOXED))), 20_000)
})

describe("process-tree kill on interruption: zero survivors", () => {
  for (const pty of ["auto", "off"] as const) {
    it.live(`kills a nested tree, a setsid grandchild, a SIGTERM-ignoring child and a daemon (pty: ${pty})`, () =>
      Effect.gen(function*() {
        const dir = makeDir()
        fs.writeFileSync(path.join(dir, "tree.sh"), TREE_SCRIPT)
        const pidFile = path.join(dir, "pids")
        const fiber = yield* Effect.forkChild(run(`bash tree.sh ${pidFile}`, { cwd: dir, timeoutMs: 60_000 }))
        const pids = yield* readPids(pidFile, TREE_PIDS)
        assert.strictEqual(survivors(pids).length, TREE_PIDS)
        yield* Fiber.interrupt(fiber)
        assert.deepStrictEqual(survivors(pids), [])
      }).pipe(Effect.provide(hostLayer({ pty }, UNSANDBOXED))), 20_000)
  }
})

describe("TOOLWRIGHT_SHELL_PTY", () => {
  it("turns the PTY off for sessions on the defaults, and leaves provided settings alone", () => {
    for (const value of ["0", "off", "false"]) {
      assert.strictEqual(settingsInEffect(DEFAULT_SHELL_SETTINGS, { TOOLWRIGHT_SHELL_PTY: value }).pty, "off")
    }
    assert.strictEqual(settingsInEffect(DEFAULT_SHELL_SETTINGS, { TOOLWRIGHT_SHELL_PTY: "1" }), DEFAULT_SHELL_SETTINGS)
    assert.strictEqual(settingsInEffect(DEFAULT_SHELL_SETTINGS, {}), DEFAULT_SHELL_SETTINGS)
    const provided = settings({ pty: "auto" })
    assert.strictEqual(settingsInEffect(provided, { TOOLWRIGHT_SHELL_PTY: "0" }), provided)
  })

  // Effect computes a Reference's default once per process: the variable must be read per host.
  it.live("is read each time a host is built, not once per process", () =>
    Effect.gen(function*() {
      const backendNow = Effect.flatMap(ProcessHost, (host) => host.backend).pipe(
        Effect.provide(ProcessHost.layer.pipe(Layer.provideMerge(Session.layer)))
      )
      const before = process.env["TOOLWRIGHT_SHELL_PTY"]
      try {
        process.env["TOOLWRIGHT_SHELL_PTY"] = "0"
        assert.deepStrictEqual(yield* backendNow, { backend: "child_process", reason: "the PTY is turned off (pty: \"off\")" })
        process.env["TOOLWRIGHT_SHELL_PTY"] = "1"
        assert.strictEqual((yield* backendNow).backend, ptyLoads() ? "pty" : "child_process")
      } finally {
        if (before === undefined) delete process.env["TOOLWRIGHT_SHELL_PTY"]
        else process.env["TOOLWRIGHT_SHELL_PTY"] = before
      }
    }))
})

// Issue 18: the waiting-for-input check once scanned every process on the machine, for every
// command, at every poll; with many commands at once the scans stalled the event loop past their
// timeouts. It now reads each run's own process tree (test/process/tree.test.ts: `treePids`).
describe("ProcessHost: many commands waiting for input at once", () => {
  it.live("each is handed off as waiting for input (sandboxed, one session each)", () =>
    Effect.gen(function*() {
      const sessions = 12
      const results = yield* Effect.forEach(Array.from({ length: sessions }, (_, i) => i), (i) =>
        Effect.gen(function*() {
          const host = yield* ProcessHost
          const dir = makeDir()
          return yield* host.run({
            command: `read -p "Name ${i}? " x; echo "hi $x"`,
            cwd: dir,
            timeoutMs: 60_000,
            spillDir: path.join(dir, "spill"),
            autoBackground: { idleMs: 300, wallMs: 0 }
          })
        }).pipe(Effect.provide(hostLayer())), { concurrency: "unbounded" })
      for (const [i, result] of results.entries()) {
        if (ptyLoads()) {
          assert.strictEqual(result.handoff?.reason, "input", `session ${i}: ${JSON.stringify({ exitCode: result.exitCode, timedOut: result.timedOut })}`)
        } else {
          // without a PTY nothing reads a terminal: read gets end of input and the command ends
          assert.isUndefined(result.handoff)
          assert.isFalse(result.timedOut)
        }
      }
    }), 120_000)
})

describe("the session's end", () => {
  /** The host pids of processes whose command line is `sleep <seconds>` (a marker number). */
  const sleepers = (seconds: string) =>
    fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p)).map(Number).filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/cmdline`, "utf8") === `sleep\0${seconds}\0`
      } catch {
        return false
      }
    })

  it.live("an unconfined run's daemon still running when the session ends is killed (its tag is looked for)", () =>
    Effect.gen(function*() {
      const dir = makeDir()
      yield* Effect.gen(function*() {
        const host = yield* ProcessHost
        const result = yield* host.run({ command: "nohup setsid sleep 1011.5 >/dev/null 2>&1 &", cwd: dir, timeoutMs: 30_000, spillDir: dir })
        assert.strictEqual(result.exitCode, 0)
        assert.isTrue(yield* eventually(() => sleepers("1011.5").length === 1, 5_000), "the daemon runs on after its command")
      }).pipe(Effect.provide(hostLayer({ pty: "off" }, UNSANDBOXED)))
      assert.deepStrictEqual(survivors(sleepers("1011.5")), [])
    }), 30_000)

  it.live("a sandboxed run leaves nothing behind once it ended, daemons included (why the session's end skips the scan for such runs)", () =>
    Effect.gen(function*() {
      const host = yield* ProcessHost
      const dir = makeDir()
      const result = yield* host.run({ command: "sleep 1012.5 & setsid sleep 1013.5 >/dev/null 2>&1 & echo started", cwd: dir, timeoutMs: 30_000, spillDir: dir })
      assert.strictEqual(result.exitCode, 0)
      assert.strictEqual(result.sandbox, "workspace-write")
      assert.include(result.output.kind === "text" ? result.output.text : "", "started")
      assert.isTrue(yield* eventually(() => sleepers("1012.5").length === 0 && sleepers("1013.5").length === 0, 5_000))
    }).pipe(Effect.provide(hostLayer())), 30_000)
})
