import { assert, describe, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Fiber, Layer, Result } from "effect"
import { BOARD_FILE, BOARD_LOCK_FILE, LockTimeout, makeTaskBoardStore, withFileLock } from "../../src/plan/index.js"
import { makeWorkspace } from "../../src/session/workspace.js"
import { recordLogs } from "../support/logs.js"
import { planSession, run, tempDir, textOf } from "./helpers.js"

const fixture = path.join(import.meta.dirname, "fixtures", "holdLock.mjs")

/** Starts a process that holds `lock` until `go` exists (killed with the scope if still running). */
const holdLock = (lock: string, go: string, board?: { readonly file: string; readonly json: string }) =>
  Effect.acquireRelease(
    Effect.callback<ChildProcess>((resume) => {
      const args = [fixture, lock, go, ...(board ? [board.file, board.json] : [])]
      const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] })
      let out = ""
      let done = false
      child.stdout!.on("data", (chunk) => {
        out += String(chunk)
        if (!done && out.includes("locked")) {
          done = true
          resume(Effect.succeed(child))
        }
      })
      child.once("exit", (code) => {
        if (!done) {
          done = true
          resume(Effect.die(new Error(`lock holder exited early (${code})`)))
        }
      })
    }),
    (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
  )

const exited = (child: ChildProcess) =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) resume(Effect.void)
    else child.once("exit", () => resume(Effect.void))
  })

/** The lock a recorded "removed an abandoned lock" warning names (the warning is logged, not printed). */
const abandoned = (line: string) => /^WARN toolwright: removed an abandoned lock (\S+) \(/.exec(line)?.[1] ?? line

const holderJson = (fields: Record<string, unknown>) =>
  JSON.stringify({ pid: process.pid, host: os.hostname(), process: "p", since: Date.now(), token: "t", ...fields })

/** A workspace with its tasks dir created; `lock` and `board` are the board's files. */
const board = Effect.gen(function*() {
  const root = yield* tempDir()
  const stateDir = yield* tempDir()
  const dir = path.join(stateDir, "tasks")
  fs.mkdirSync(dir, { mode: 0o700 })
  return { root, stateDir, dir, lock: path.join(dir, BOARD_LOCK_FILE), board: path.join(dir, BOARD_FILE), go: path.join(root, "go") }
})

describe("task board lock across processes", () => {
  it.live("a writer waits while another process holds the lock, then builds on that process's write", () =>
    Effect.gen(function*() {
      const b = yield* board
      const theirs = {
        version: 1,
        nextId: 2,
        tasks: [{ id: "1", subject: "from the other process", description: "d", status: "pending", blocks: [], blockedBy: [], createdAt: 1, updatedAt: 1 }]
      }
      const holder = yield* holdLock(b.lock, b.go, { file: b.board, json: JSON.stringify(theirs) })
      const context = yield* Layer.build(planSession({ root: b.root, stateDir: b.stateDir }))
      const mine = yield* Effect.forkChild(Effect.provideContext(run("task_create", { subject: "mine", description: "d" }), context))
      yield* Effect.sleep("300 millis")
      // while the other process holds the lock, nothing has been written
      assert.isFalse(fs.existsSync(b.board))
      fs.writeFileSync(b.go, "")
      const result = yield* Fiber.join(mine)
      assert.strictEqual(textOf(result), `Task #2 created: "mine"`)
      yield* exited(holder)
      const stored = JSON.parse(fs.readFileSync(b.board, "utf8"))
      assert.deepStrictEqual(stored.tasks.map((t: { id: string; subject: string }) => [t.id, t.subject]), [
        ["1", "from the other process"],
        ["2", "mine"]
      ])
      assert.isFalse(fs.existsSync(b.lock))
    }), 30_000)

  it.live("a lock held by a live process for the whole timeout fails with the busy message and changes nothing", () =>
    Effect.gen(function*() {
      const b = yield* board
      const holder = yield* holdLock(b.lock, b.go)
      const workspace = yield* makeWorkspace({ roots: [b.root], stateDir: b.stateDir })
      const store = makeTaskBoardStore(workspace, { timeoutMs: 150 })
      const error = yield* Effect.flip(store.modify(() => Result.succeed({ value: 1, board: undefined })))
      assert.strictEqual(error._tag, "ExecutionFailed")
      assert.include(error.message, "The task board is busy: another session (process ")
      assert.include(error.message, `${holder.pid} on ${os.hostname()}`)
      assert.include(error.message, "Nothing was changed. Try the call again")
      assert.isTrue(fs.existsSync(b.lock))
      fs.writeFileSync(b.go, "")
      yield* exited(holder)
    }), 30_000)

  it.live("a lock left by a process that died is broken and the write goes through", () => {
    const logs = recordLogs()
    return Effect.gen(function*() {
      const b = yield* board
      const holder = yield* holdLock(b.lock, b.go)
      holder.kill("SIGKILL")
      yield* exited(holder)
      assert.isTrue(fs.existsSync(b.lock))
      const result = yield* run("task_create", { subject: "after the crash", description: "d" }).pipe(
        Effect.provide(planSession({ root: b.root, stateDir: b.stateDir }))
      )
      assert.strictEqual(textOf(result), `Task #1 created: "after the crash"`)
      assert.deepStrictEqual(fs.readdirSync(b.dir), [BOARD_FILE])
      assert.deepStrictEqual(logs.lines.map(abandoned), [b.lock])
    }).pipe(Effect.provide(logs.layer))
  }, 30_000)
})

describe("withFileLock", () => {
  it.live("a lock written by an earlier process that had our pid is stale", () => {
    const logs = recordLogs()
    return Effect.gen(function*() {
      const b = yield* board
      fs.writeFileSync(b.lock, holderJson({ process: "an-earlier-incarnation" }))
      assert.strictEqual(yield* withFileLock(b.lock, Effect.succeed("ran"), { timeoutMs: 100 }), "ran")
      assert.isFalse(fs.existsSync(b.lock))
      assert.deepStrictEqual(logs.lines.map(abandoned), [b.lock])
    }).pipe(Effect.provide(logs.layer))
  })

  it.live("unreadable or foreign-host locks are waited for while fresh and broken when older than the stale age", () => {
    const logs = recordLogs()
    return Effect.gen(function*() {
      const b = yield* board
      for (const content of ["", "{ half-written", holderJson({ host: "another-host", pid: 1 })]) {
        fs.writeFileSync(b.lock, content)
        const timedOut = yield* Effect.flip(withFileLock(b.lock, Effect.succeed(1), { timeoutMs: 60, staleMs: 30_000 }))
        assert.instanceOf(timedOut, LockTimeout)
        const old = new Date(Date.now() - 60_000)
        fs.utimesSync(b.lock, old, old)
        assert.strictEqual(yield* withFileLock(b.lock, Effect.succeed(2), { timeoutMs: 1_000, staleMs: 30_000 }), 2)
        assert.isFalse(fs.existsSync(b.lock))
      }
      assert.deepStrictEqual(logs.lines.map(abandoned), [b.lock, b.lock, b.lock])
      assert.match(logs.lines[0]!, /\(empty\)$/)
    }).pipe(Effect.provide(logs.layer))
  })

  it.live("a break lock left by a crashed breaker is cleared after its own stale age", () => {
    const logs = recordLogs()
    return Effect.gen(function*() {
      const b = yield* board
      const holder = yield* holdLock(b.lock, b.go)
      holder.kill("SIGKILL")
      yield* exited(holder)
      fs.writeFileSync(`${b.lock}.break`, "{}")
      const old = new Date(Date.now() - 60_000)
      fs.utimesSync(`${b.lock}.break`, old, old)
      assert.strictEqual(yield* withFileLock(b.lock, Effect.succeed("ok"), { timeoutMs: 2_000 }), "ok")
      assert.deepStrictEqual(fs.readdirSync(b.dir), [])
      assert.deepStrictEqual(logs.lines.map(abandoned), [b.lock])
    }).pipe(Effect.provide(logs.layer))
  })

  it.live("release removes only our own lock; interruption releases it", () =>
    Effect.gen(function*() {
      const b = yield* board
      yield* withFileLock(b.lock, Effect.sync(() => fs.writeFileSync(b.lock, holderJson({ token: "someone-else" }))))
      assert.isTrue(fs.existsSync(b.lock))
      fs.unlinkSync(b.lock)

      const held = yield* Effect.forkChild(withFileLock(b.lock, Effect.never))
      while (!fs.existsSync(b.lock)) yield* Effect.sleep("5 millis")
      yield* Fiber.interrupt(held)
      assert.isFalse(fs.existsSync(b.lock))
    }))
})
