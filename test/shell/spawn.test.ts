/**
 * spawn.ts on both launchers: the PTY (our own under the posix_spawn addon, node-pty under
 * child_process) and the pipes. A fast command's whole output arrives before `exited`, the exit is
 * exact, the launcher is reported, and nothing is left behind (no zombie, no descriptor of ours).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import { Effect } from "effect"
import { childProcessLauncher, Launcher, type LauncherService, makeLauncher } from "../../src/process/launcher.js"
import { loadNodePty, spawnPiped, spawnPty } from "../../src/shell/terminal/spawn.js"
import { makeDir } from "./helpers.js"

const launchers: ReadonlyArray<LauncherService> = [makeLauncher({}), childProcessLauncher()]

const specOf = (command: string, sink: Array<Buffer>) => ({
  shell: "/bin/sh",
  command,
  cwd: makeDir(),
  env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" },
  onData: (chunk: Buffer) => void sink.push(Buffer.from(chunk))
})

const openDescriptors = () => fs.readdirSync("/proc/self/fd").length

for (const launcher of launchers) {
  describe(`spawn.ts over ${launcher.name}`, () => {
    it.live("PTY: a fast command's 200 KB arrive whole, the exit code is exact, nothing is left behind", () =>
      Effect.gen(function*() {
        const pty = yield* loadNodePty()
        const before = openDescriptors()
        for (const code of [0, 7]) {
          const out: Array<Buffer> = []
          const spawned = yield* spawnPty(pty, specOf(`head -c 200000 /dev/zero | tr '\\0' x; exit ${code}`, out))
          assert.strictEqual(spawned.launcher, launcher.name)
          const exit = yield* spawned.exited
          assert.deepStrictEqual([exit.exitCode, exit.signal], [code, null])
          const text = Buffer.concat(out).toString()
          assert.isTrue(text === "x".repeat(200_000), `got ${text.length} chars: ${JSON.stringify(text.replace(/x+/g, (m) => `x*${m.length}`))}`)
          assert.isTrue(spawned.hasExited())
          assert.isFalse(fs.existsSync(`/proc/${spawned.pid}`), "reaped")
        }
        // libuv closes a stream's descriptor a loop turn or so after its end: wait for it (bounded)
        for (let i = 0; i < 100 && openDescriptors() !== before; i++) yield* Effect.sleep(20)
        assert.strictEqual(openDescriptors(), before)
      }).pipe(Effect.provideService(Launcher, launcher)), 60_000)

    it.live("PTY: a signal is reported by name, and writes reach the program", () =>
      Effect.gen(function*() {
        const pty = yield* loadNodePty()
        const out: Array<Buffer> = []
        const spawned = yield* spawnPty(pty, specOf("read line; echo \"got $line\"; kill -TERM $$", out))
        yield* spawned.write("abc\n")
        const exit = yield* spawned.exited
        assert.deepStrictEqual([exit.exitCode, exit.signal], [null, "SIGTERM"])
        assert.include(Buffer.concat(out).toString(), "got abc")
        const late = yield* Effect.flip(spawned.write("more\n"))
        assert.strictEqual(late._tag, "StdinClosed")
      }).pipe(Effect.provideService(Launcher, launcher)), 60_000)

    it.live("PTY: a background grandchild still holding the terminal does not hold up `exited` (PTY_CLOSE_WAIT_MS)", () =>
      Effect.gen(function*() {
        const pty = yield* loadNodePty()
        const out: Array<Buffer> = []
        const spawned = yield* spawnPty(pty, specOf("echo first; sleep 30 &", out))
        const exit = yield* spawned.exited
        assert.strictEqual(exit.exitCode, 0)
        assert.strictEqual(Buffer.concat(out).toString(), "first\r\n")
        // the sleep is in the command's process group
        process.kill(-spawned.pid!, "SIGKILL")
      }).pipe(Effect.provideService(Launcher, launcher)), 20_000)

    it.live("pipes: output of both streams, stdin, exit code; a missing shell is reported through exited", () =>
      Effect.gen(function*() {
        const out: Array<Buffer> = []
        const spawned = yield* spawnPiped({ ...specOf("read line; echo \"out $line\"; echo err >&2; exit 4", out), stdin: "pipe" })
        assert.strictEqual(spawned.launcher, launcher.name)
        yield* spawned.write("in\n")
        const exit = yield* spawned.exited
        assert.strictEqual(exit.exitCode, 4)
        assert.sameMembers(Buffer.concat(out).toString().trim().split("\n"), ["out in", "err"])
        const missing = yield* spawnPiped({ ...specOf("true", []), shell: "/nonexistent/sh" })
        const failed = yield* missing.exited
        assert.include(failed.error ?? "", "ENOENT")
      }).pipe(Effect.provideService(Launcher, launcher)), 60_000)
  })
}
