/**
 * The write lock: two writers of one file in a process are serialized (the second one's check sees
 * the first one's result); across processes a lock file held by a live owner is waited for up to a
 * bound, and one left by a dead owner (or a pid since reused) is taken over.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Fiber } from "effect"
import { atomicWrite, withWriteTarget } from "../../src/text/atomicWrite.js"
import { fdPathsSupported } from "../../src/text/beneath.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tw-lock-")))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** Field 22 of /proc/<pid>/stat: the process start time, as the lock file records it. */
const startTime = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!
}

/** The pid of a process that has exited (and been reaped). */
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!

describe.runIf(fdPathsSupported)("write locks", () => {
  it.live("in one process: a writer holding the lock makes the second wait, and its check sees the first one's bytes", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "f.txt")
      fs.writeFileSync(file, "v0\n")
      const seen = Buffer.from("v0\n")
      const slow = yield* withWriteTarget(file, { within: [dir] }, (target) =>
        Effect.gen(function*() {
          yield* Effect.sleep("100 millis") // the other writer arrives meanwhile
          return yield* target.write(Buffer.from("first\n"), { expectedBytes: seen })
        })).pipe(Effect.forkChild)
      yield* Effect.sleep("20 millis")
      const second = yield* Effect.flip(atomicWrite(file, Buffer.from("second\n"), { within: [dir], expectedBytes: seen }))
      assert.strictEqual(second._tag, "FileChangedSinceRead")
      assert.strictEqual((yield* Fiber.join(slow)).method, "atomic")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "first\n")
      assert.deepStrictEqual(fs.readdirSync(dir), ["f.txt"], "lock file removed")
    }))

  it.effect("a lock file whose owner is dead is taken over", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "f.txt")
      fs.writeFileSync(file, "old\n")
      fs.writeFileSync(path.join(dir, ".f.txt.tw-lock"), `${deadPid()} 1\n`)
      const r = yield* atomicWrite(file, Buffer.from("new\n"), { within: [dir], expectedBytes: Buffer.from("old\n"), lockTimeoutMs: 5_000 })
      assert.strictEqual(r.method, "atomic")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "new\n")
      assert.deepStrictEqual(fs.readdirSync(dir), ["f.txt"])
    }))

  it.effect("a lock file naming a live pid with another start time (a reused pid) is taken over", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "f.txt")
      fs.writeFileSync(file, "old\n")
      fs.writeFileSync(path.join(dir, ".f.txt.tw-lock"), `${process.pid} 1\n`)
      yield* atomicWrite(file, Buffer.from("new\n"), { within: [dir], lockTimeoutMs: 5_000 })
      assert.strictEqual(fs.readFileSync(file, "utf8"), "new\n")
    }))

  it.live("a lock held by a live process: the write waits up to the bound, then fails typed and writes nothing", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "f.txt")
      fs.writeFileSync(file, "old\n")
      const owner = yield* Effect.acquireRelease(
        Effect.sync(() => spawn("sleep", ["30"], { stdio: "ignore" })),
        (child) => Effect.sync(() => child.kill("SIGKILL"))
      )
      const lock = path.join(dir, ".f.txt.tw-lock")
      fs.writeFileSync(lock, `${owner.pid} ${startTime(owner.pid!)}\n`)
      const e = yield* Effect.flip(atomicWrite(file, Buffer.from("new\n"), { within: [dir], lockTimeoutMs: 300 }))
      assert.strictEqual(e._tag, "DiskError")
      if (e._tag === "DiskError") {
        assert.strictEqual(e.op, "lock")
        assert.strictEqual(e.code, "ETIMEDOUT")
        assert.include(e.message, `pid ${owner.pid}`)
      }
      assert.strictEqual(fs.readFileSync(file, "utf8"), "old\n")
      assert.isTrue(fs.existsSync(lock), "the live owner's lock is left alone")
      // Once the owner is gone, the next write takes the lock over.
      owner.kill("SIGKILL")
      yield* Effect.callback<void>((resume) => {
        if (owner.exitCode !== null || owner.signalCode !== null) resume(Effect.void)
        else owner.once("exit", () => resume(Effect.void))
      })
      yield* atomicWrite(file, Buffer.from("new\n"), { within: [dir], lockTimeoutMs: 5_000 })
      assert.strictEqual(fs.readFileSync(file, "utf8"), "new\n")
    }))
})
