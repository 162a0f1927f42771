import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  defaultStateDir,
  ensureStateSubdir,
  projectKey,
  STATE_DIR_ENV,
  STATE_SUBDIRS
} from "../../src/session/stateDir.js"
import { makeWorkspace } from "../../src/session/workspace.js"
import { FileWriteFailure } from "../../src/tool/errors.js"
import { tempDir, withEnv, write } from "./helpers.js"

const mode = (dir: string) => fs.statSync(dir).mode & 0o777

describe("state dir", () => {
  it("keys the project by the first 16 hex of sha256(real root)", () => {
    const key = projectKey("/work/project")
    assert.strictEqual(key, createHash("sha256").update("/work/project").digest("hex").slice(0, 16))
    assert.match(key, /^[0-9a-f]{16}$/)
    assert.strictEqual(defaultStateDir("/work/project", "/home/u"), `/home/u/.toolwright/projects/${key}`)
    assert.deepStrictEqual(STATE_SUBDIRS, ["outputs", "todos", "tasks", "history", "sessions", "cluster", "unsaved-sessions"])
  })

  it.effect("defaults to ~/.toolwright/projects/<key of the first real root>, not created eagerly", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      fs.mkdirSync(path.join(tmp, "root"))
      fs.symlinkSync(path.join(tmp, "root"), path.join(tmp, "link"))
      const ws = yield* makeWorkspace({ roots: [path.join(tmp, "link")] }).pipe(withEnv({}))
      const key = projectKey(path.join(tmp, "root"))
      assert.strictEqual(ws.stateDir, path.join(os.homedir(), ".toolwright", "projects", key))
    }))

  it.effect("TOOLWRIGHT_STATE_DIR overrides the default; the option overrides both", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      const fromEnv = yield* makeWorkspace({ roots: [tmp] }).pipe(withEnv({ [STATE_DIR_ENV]: path.join(tmp, "env") }))
      assert.strictEqual(fromEnv.stateDir, path.join(tmp, "env"))
      const fromOption = yield* makeWorkspace({ roots: [tmp], stateDir: path.join(tmp, "opt") }).pipe(
        withEnv({ [STATE_DIR_ENV]: path.join(tmp, "env") })
      )
      assert.strictEqual(fromOption.stateDir, path.join(tmp, "opt"))
      const emptyEnv = yield* makeWorkspace({ roots: [tmp] }).pipe(withEnv({ [STATE_DIR_ENV]: "" }))
      assert.strictEqual(emptyEnv.stateDir, defaultStateDir(tmp))
      assert.isFalse(fs.existsSync(path.join(tmp, "env")))
      assert.isFalse(fs.existsSync(path.join(tmp, "opt")))
    }))

  it.effect("ensureStateSubdir creates the dir and its missing parents 0700, idempotently", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      const stateDir = path.join(tmp, "a", "state")
      const ws = yield* makeWorkspace({ roots: [tmp], stateDir })
      const previous = process.umask(0o022)
      const outputs = yield* ws.ensureStateSubdir("outputs").pipe(Effect.ensuring(Effect.sync(() => process.umask(previous))))
      assert.strictEqual(outputs, path.join(stateDir, "outputs"))
      assert.strictEqual(mode(outputs), 0o700)
      assert.strictEqual(mode(stateDir), 0o700)
      assert.strictEqual(mode(path.join(tmp, "a")), 0o700)
      assert.strictEqual(mode(tmp), 0o700) // mkdtemp's own mode, untouched
      for (const name of STATE_SUBDIRS) {
        const dir = yield* ws.ensureStateSubdir(name)
        assert.isTrue(fs.statSync(dir).isDirectory())
        assert.strictEqual(mode(dir), 0o700)
      }
      assert.strictEqual(yield* ws.ensureStateSubdir("outputs"), outputs)
    }))

  it.effect("ensureStateSubdir leaves an existing state dir's mode alone", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      const stateDir = path.join(tmp, "state")
      fs.mkdirSync(stateDir, { mode: 0o755 })
      fs.chmodSync(stateDir, 0o755)
      const dir = yield* ensureStateSubdir(stateDir, "todos")
      assert.strictEqual(mode(dir), 0o700)
      assert.strictEqual(mode(stateDir), 0o755)
    }))

  it.effect("ensureStateSubdir reports a failure the model can act on", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      write(path.join(tmp, "file"))
      const e = yield* Effect.flip(ensureStateSubdir(path.join(tmp, "file"), "history"))
      assert.instanceOf(e, FileWriteFailure)
      assert.strictEqual(
        e.message,
        `Could not create the session state directory ${path.join(tmp, "file", "history")} (ENOTDIR). ` +
          `This is a problem of the tool host, not of your call: tell the user, who can set TOOLWRIGHT_STATE_DIR to a ` +
          `writable directory.`
      )
    }))
})
