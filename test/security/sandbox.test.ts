/**
 * The command sandbox, attacked through the built serve door (`npm run build` first): writes
 * outside the roots, credential reads, the network, inherited secrets, a missing bubblewrap, and
 * background processes after the server is SIGKILLed. The approval of one unsandboxed run is
 * checked in-process, through the scheduler and a recording approver.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { Effect, Exit, Scope } from "effect"
import { isAlive, listDescendantPids } from "../../src/process/tree.js"
import { connectServeWith, tempDir } from "../support/serve.js"
import { call, codeOf, eventually, makeDir, textOf, withSession } from "../shell/helpers.js"

type Content = Array<{ type: string; text: string }>
interface ToolAnswer {
  readonly isError?: boolean
  readonly content: Content
  readonly _meta?: Record<string, unknown>
}
const textOfAnswer = (r: ToolAnswer) => r.content[0]!.text
const codeOfAnswer = (r: ToolAnswer) => (r.isError ? String(r._meta?.["toolwright/errorType"]) : "ok")

/** A serve door over a fresh root and state dir, with `env` as its whole environment (plus PATH). */
const serve = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const root = yield* tempDir("tw-sbx-root-")
    const state = yield* tempDir("tw-sbx-state-")
    const { client, pid } = yield* connectServeWith({
      args: ["--root", root, "--state-dir", state, ...args],
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: process.env["HOME"] ?? "/root", ...env }
    })
    const run = (args: Record<string, unknown>) =>
      Effect.promise(() => client.callTool({ name: "run_shell_command", arguments: args }) as Promise<ToolAnswer>)
    return { root, state, pid, run }
  })

describe("the command sandbox through `toolwright serve` (workspace-write, network off by default)", () => {
  it.live("a write outside the roots is blocked and reported as such; inside the root and in TMPDIR it works", () =>
    Effect.gen(function*() {
      const outside = yield* tempDir("tw-sbx-outside-")
      const s = yield* serve([])
      const target = path.join(outside, "escaped.txt")
      const blocked = yield* s.run({ command: `echo pwned > ${target}` })
      assert.strictEqual(codeOfAnswer(blocked), "shell_execute_error")
      assert.include(textOfAnswer(blocked), `blocked by the sandbox: ${target} is read-only in workspace-write mode`)
      assert.include(textOfAnswer(blocked), "\"sandbox\": false")
      assert.isFalse(fs.existsSync(target))
      const rm = yield* s.run({ command: `rm -rf ${outside}` })
      assert.strictEqual(codeOfAnswer(rm), "shell_execute_error")
      assert.isTrue(fs.existsSync(outside))

      const inside = yield* s.run({ command: "echo ok > inside.txt && mktemp && touch \"$TMPDIR/t\" && echo tmp-ok" })
      assert.strictEqual(codeOfAnswer(inside), "ok", textOfAnswer(inside))
      assert.include(textOfAnswer(inside), "tmp-ok")
      assert.strictEqual(fs.readFileSync(path.join(s.root, "inside.txt"), "utf8"), "ok\n")
    }).pipe(Effect.scoped), 60_000)

  it.live("credential paths are not readable (a fake HOME with .ssh/id_rsa, .aws and .netrc)", () =>
    Effect.gen(function*() {
      const home = yield* tempDir("tw-sbx-home-")
      fs.mkdirSync(path.join(home, ".ssh"))
      fs.writeFileSync(path.join(home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY----- sekrit\n")
      fs.mkdirSync(path.join(home, ".aws"))
      fs.writeFileSync(path.join(home, ".aws", "credentials"), "aws_secret_access_key=sekrit\n")
      fs.writeFileSync(path.join(home, ".netrc"), "machine x login y password sekrit\n")
      fs.writeFileSync(path.join(home, "notes.txt"), "plain\n")
      const s = yield* serve([], { HOME: home })
      const key = yield* s.run({ command: "cat ~/.ssh/id_rsa" })
      assert.strictEqual(codeOfAnswer(key), "shell_execute_error")
      assert.notInclude(textOfAnswer(key), "sekrit")
      assert.include(textOfAnswer(key), `blocked by the sandbox: ${path.join(home, ".ssh", "id_rsa")} is a credential path, hidden from commands in workspace-write mode`)
      const listing = yield* s.run({ command: "ls -A ~/.ssh ~/.aws | grep -c . ; cat ~/notes.txt; cat ~/.aws/credentials ~/.netrc" })
      assert.strictEqual(codeOfAnswer(listing), "shell_execute_error")
      assert.notInclude(textOfAnswer(listing), "sekrit")
      assert.notInclude(textOfAnswer(listing), "id_rsa")
      assert.match(textOfAnswer(listing), /Output: 2\r?\n/) // only the two "dir:" headers
      assert.include(textOfAnswer(listing), "plain")
      assert.include(textOfAnswer(listing), `blocked by the sandbox: ${path.join(home, ".netrc")} is a credential path`)
    }).pipe(Effect.scoped), 60_000)

  it.live("a TCP connection to a listener on 127.0.0.1 fails with the network off and works with --sandbox-network on", () =>
    Effect.gen(function*() {
      const server = net.createServer((socket) => socket.end("hello from the host\n"))
      yield* Effect.acquireRelease(
        Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))),
        () => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
      )
      const port = (server.address() as net.AddressInfo).port
      const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`
      const off = yield* serve([])
      const refused = yield* off.run({ command: connect })
      assert.strictEqual(codeOfAnswer(refused), "shell_execute_error")
      assert.notInclude(textOfAnswer(refused), "hello from the host")
      const on = yield* serve(["--sandbox-network", "on"])
      const reached = yield* on.run({ command: connect })
      assert.strictEqual(codeOfAnswer(reached), "ok", textOfAnswer(reached))
      assert.include(textOfAnswer(reached), "hello from the host")
    }).pipe(Effect.scoped), 60_000)

  it.live("an inherited secret variable is not visible to `env` unless allowed by name; the allow-list passes", () =>
    Effect.gen(function*() {
      const env = { MY_API_TOKEN: "tok-123", DB_PASSWORD: "pw-456", SOME_SETTING: "plain", LC_ALL: "C.UTF-8", LANG: "C.UTF-8" }
      const strict = yield* serve([], env)
      const shown = textOfAnswer(yield* strict.run({ command: "env" }))
      assert.notInclude(shown, "tok-123")
      assert.notInclude(shown, "pw-456")
      assert.notInclude(shown, "SOME_SETTING")
      assert.include(shown, "LC_ALL=C.UTF-8")
      assert.include(shown, "PATH=")
      assert.match(shown, /TMPDIR=\/\S+toolwright-tmp-/)
      // A wildcard does not admit a secret-looking name; the exact name does.
      const allowed = yield* serve(["--env-allow", "MY_API_TOKEN", "--env-allow", "SOME_*", "--env-allow", "DB_*"], env)
      const shownAllowed = textOfAnswer(yield* allowed.run({ command: "env" }))
      assert.include(shownAllowed, "MY_API_TOKEN=tok-123")
      assert.include(shownAllowed, "SOME_SETTING=plain")
      assert.notInclude(shownAllowed, "pw-456")
      // The policy holds with the sandbox off too.
      const off = yield* serve(["--sandbox", "off"], env)
      assert.notInclude(textOfAnswer(yield* off.run({ command: "env" })), "tok-123")
    }).pipe(Effect.scoped), 60_000)

  it.live("read-only mode: the root is not writable either, only TMPDIR", () =>
    Effect.gen(function*() {
      const s = yield* serve(["--sandbox", "read-only"])
      const r = yield* s.run({ command: "echo x > in-root.txt" })
      assert.strictEqual(codeOfAnswer(r), "shell_execute_error")
      assert.include(textOfAnswer(r), `blocked by the sandbox: ${path.join(s.root, "in-root.txt")} is read-only in read-only mode`)
      assert.isFalse(fs.existsSync(path.join(s.root, "in-root.txt")))
      const tmp = yield* s.run({ command: "echo x > \"$TMPDIR/x\" && cat \"$TMPDIR/x\"" })
      assert.strictEqual(codeOfAnswer(tmp), "ok", textOfAnswer(tmp))
    }).pipe(Effect.scoped), 60_000)

  it.live("no bubblewrap: sandbox_unavailable says what is missing and how to choose --sandbox off; never a silent fallback", () =>
    Effect.gen(function*() {
      const s = yield* serve([], { TOOLWRIGHT_BWRAP: "/nonexistent/bwrap" })
      const marker = path.join(s.root, "ran.txt")
      const r = yield* s.run({ command: `touch ${marker}` })
      assert.strictEqual(codeOfAnswer(r), "sandbox_unavailable")
      assert.include(textOfAnswer(r), "bubblewrap was not found (looked for \"/nonexistent/bwrap\")")
      assert.include(textOfAnswer(r), "--sandbox off")
      assert.isFalse(fs.existsSync(marker))
      const bg = yield* s.run({ command: `touch ${marker}`, is_background: true })
      assert.strictEqual(codeOfAnswer(bg), "sandbox_unavailable")
      assert.isFalse(fs.existsSync(marker))
      const off = yield* serve(["--sandbox", "off"], { TOOLWRIGHT_BWRAP: "/nonexistent/bwrap" })
      assert.strictEqual(codeOfAnswer(yield* off.run({ command: "true" })), "ok")
    }).pipe(Effect.scoped), 60_000)
})

describe("an MCP stdio server that opts into the sandbox", () => {
  const fixtureServer = path.join(import.meta.dirname, "..", "fixtures", "mcp", "server.mjs")

  /** A gateway over one fixture server that appends to `log` at start-up; answers whether its echo tool works. */
  const gatewayWith = (root: string, log: string, sandbox: unknown) =>
    Effect.gen(function*() {
      const dir = yield* tempDir("tw-sbx-mcp-")
      const config = path.join(dir, "mcp.json")
      fs.writeFileSync(config, JSON.stringify({
        mcpServers: {
          fixture: { command: process.execPath, args: [fixtureServer], env: { FIXTURE_LOG: log }, alwaysLoadTools: true, discoveryTimeout: 20_000, ...(sandbox !== undefined ? { sandbox } : {}) }
        }
      }))
      const state = yield* tempDir("tw-sbx-state-")
      const { client } = yield* connectServeWith({ args: ["--root", root, "--state-dir", state, "--config", config] })
      const answer = yield* Effect.promise(() => client.callTool({ name: "mcp__fixture__echo", arguments: { message: "hi" } }) as Promise<ToolAnswer>)
      return answer
    })

  it.live("confined: it cannot write outside the roots (so it fails to start), and works when it writes inside", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("tw-sbx-mcproot-")
      const outside = yield* tempDir("tw-sbx-mcpout-")
      // The premise: unconfined, the server writes its log outside the roots.
      const free = yield* gatewayWith(root, path.join(outside, "free.log"), undefined).pipe(Effect.scoped)
      assert.isUndefined(free.isError, textOfAnswer(free))
      assert.isTrue(fs.existsSync(path.join(outside, "free.log")))
      // Confined with its log outside the roots: the write fails, the server never comes up.
      const boxed = yield* gatewayWith(root, path.join(outside, "boxed.log"), true).pipe(Effect.scoped)
      assert.isTrue(boxed.isError)
      assert.isFalse(fs.existsSync(path.join(outside, "boxed.log")))
      // Confined with its log inside the root: it starts and answers.
      const inside = yield* gatewayWith(root, path.join(root, "inside.log"), { mode: "workspace-write" }).pipe(Effect.scoped)
      assert.isUndefined(inside.isError, textOfAnswer(inside))
      assert.include(textOfAnswer(inside), "hi")
      assert.match(fs.readFileSync(path.join(root, "inside.log"), "utf8"), /^start \d+\n/)
    }).pipe(Effect.scoped), 90_000)
})

const pidOf = (answer: ToolAnswer) => Number(/^pid: (\d+)$/m.exec(textOfAnswer(answer))![1])

/** Every process a SIGKILLed server left: polled until none is alive or `ms` passed. */
const allGone = (pids: ReadonlyArray<number>, ms = 5_000) => eventually(() => pids.every((p) => !isAlive(p)), ms)

describe("no orphans after `kill -9` of the server", () => {
  it.live("sandboxed: background sleeps and a double-forked daemon that dropped its tag and group die with the server", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const s = yield* serve([]).pipe(Scope.provide(scope))
      const started = [
        yield* s.run({ command: "sleep 1000", is_background: true }),
        yield* s.run({ command: "sleep 1000", is_background: true }),
        yield* s.run({ command: "setsid env -i sh -c 'sleep 1001 &' ; sleep 1000", is_background: true })
      ]
      const roots = started.map(pidOf)
      assert.isTrue(yield* eventually(() => roots.every(isAlive)))
      // The host's view of every process of the three sandboxes (the daemon is re-parented inside its sandbox).
      let all: Array<number> = []
      for (let tries = 0; tries < 100 && all.length < 3 + 3 * 2 + 1; tries++) {
        if (tries > 0) yield* Effect.sleep("50 millis")
        all = [...roots, ...(yield* Effect.forEach(roots, (p) => listDescendantPids(p))).flat()]
      }
      assert.isAtLeast(all.length, 3 + 3 * 2 + 1)
      process.kill(s.pid!, "SIGKILL")
      assert.isTrue(yield* allGone(all), `survivors: ${all.filter(isAlive).join(", ")}`)
      yield* Scope.close(scope, Exit.void)
    }), 60_000)

  it.live("--sandbox off: background sleeps and tagged or grouped daemons die through the orphan guard", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const s = yield* serve(["--sandbox", "off"]).pipe(Scope.provide(scope))
      const pidDir = makeDir("tw-sbx-pids-")
      const started = [
        yield* s.run({ command: "sleep 1000", is_background: true }),
        // double-forked, own session, keeps the tag
        yield* s.run({ command: `setsid sh -c 'sleep 1002 & echo $! > ${pidDir}/tagged' ; sleep 1000`, is_background: true }),
        // dropped the tag, kept the group
        yield* s.run({ command: `env -i sh -c 'sleep 1003 & echo $! > ${pidDir}/grouped'; sleep 1000`, is_background: true })
      ]
      const roots = started.map(pidOf)
      assert.isTrue(yield* eventually(() => fs.existsSync(`${pidDir}/tagged`) && fs.existsSync(`${pidDir}/grouped`)))
      const daemons = ["tagged", "grouped"].map((f) => Number(fs.readFileSync(path.join(pidDir, f), "utf8")))
      const all = [...roots, ...daemons]
      assert.isTrue(all.every(isAlive))
      process.kill(s.pid!, "SIGKILL")
      assert.isTrue(yield* allGone(all), `survivors: ${all.filter(isAlive).join(", ")}`)
      yield* Scope.close(scope, Exit.void)
    }), 60_000)
})

describe("one unsandboxed run needs a person", () => {
  it.live("sandbox: false goes to the approver in yolo and under an allow rule, is never remembered, and a decline cancels it", () =>
    Effect.gen(function*() {
      const outside = makeDir("tw-sbx-out-")
      const target = path.join(outside, "approved.txt")
      yield* withSession({ mode: "yolo", rules: [{ decision: "allow", pattern: "run_shell_command(touch *)" }], answers: [{ _tag: "proceed_always" }, { _tag: "cancel" }] }, (s) =>
        Effect.gen(function*() {
          const sandboxed = yield* call("run_shell_command", { command: `touch ${target}` })
          assert.strictEqual(codeOf(sandboxed), "shell_execute_error")
          assert.isFalse(fs.existsSync(target))
          assert.lengthOf(yield* s.requests, 0)
          const approved = yield* call("run_shell_command", { command: `touch ${target}`, sandbox: false })
          assert.strictEqual(codeOf(approved), "Success", textOf(approved))
          assert.isTrue(fs.existsSync(target))
          const asked = yield* s.requests
          assert.lengthOf(asked, 1)
          assert.include(JSON.stringify(asked[0]), "WITHOUT the command sandbox")
          fs.rmSync(target)
          // "always" was not remembered: asked again, declined, nothing ran
          const declined = yield* call("run_shell_command", { command: `touch ${target}`, sandbox: false })
          assert.strictEqual(codeOf(declined), "Cancelled")
          assert.lengthOf(yield* s.requests, 2)
          assert.isFalse(fs.existsSync(target))
        }))
      yield* withSession({ mode: "plan" }, (s) =>
        Effect.gen(function*() {
          const denied = yield* call("run_shell_command", { command: `touch ${target}`, sandbox: false })
          assert.strictEqual(codeOf(denied), "execution_denied")
          assert.lengthOf(yield* s.requests, 0)
        }))
    }), 60_000)
})

describe("read-only mode and sed -i", () => {
  it.live("a sed -i is not turned into an edit the server would write: it runs confined and is refused", () =>
    withSession({ sandbox: { mode: "read-only" } }, (s) =>
      Effect.gen(function*() {
        const file = path.join(s.root, "a.txt")
        fs.writeFileSync(file, "foo\n")
        const r = yield* call("run_shell_command", { command: "sed -i 's/foo/bar/' a.txt" })
        assert.strictEqual(codeOf(r), "shell_execute_error")
        assert.include(textOf(r), "blocked by the sandbox")
        assert.strictEqual(fs.readFileSync(file, "utf8"), "foo\n")
      })), 30_000)
})
