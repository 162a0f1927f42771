/**
 * The sandbox's pieces in-process: settings and their errors, the bubblewrap command line, the
 * environment policy, the "blocked by the sandbox" report, the MCP `sandbox` field, and a
 * sandboxed process tree killed from the host (pid namespace included).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Duration, Effect, Exit, Fiber, Layer } from "effect"
import { LaunchGate, makeLaunchGate } from "../../src/process/launchGate.js"
import { LaunchQueueTimeout, SandboxUnavailable } from "../../src/tool/index.js"
import { inheritedEnvironment, looksSecret } from "../../src/process/environment.js"
import {
  bwrapArgs,
  confine,
  DEFAULT_DENY_READ,
  probeSandbox,
  resolveSandboxSettings,
  SANDBOX_FAILURE_TTL,
  sandboxCheckTtl,
  type SandboxSettings,
  seatbeltProfile,
  writableProblem
} from "../../src/process/sandbox.js"
import { sandboxBlocks } from "../../src/process/sandboxBlocked.js"
import { isAlive, listDescendantPids } from "../../src/process/tree.js"
import { parseMcpConfig } from "../../src/mcp/config.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import { Approver } from "../../src/run/approver.js"
import { ProcessHost, signalFromSandboxExit } from "../../src/shell/terminal/host.js"
import { eventually, hostLayer, makeDir } from "../shell/helpers.js"

const settings = (over: Partial<SandboxSettings> = {}): SandboxSettings => ({ ...(resolveSandboxSettings({}, {}) as SandboxSettings), ...over })

describe("sandbox settings", () => {
  it("defaults: workspace-write, network off, the credential deny list, bwrap on the PATH", () => {
    const s = resolveSandboxSettings({}, {})
    assert.deepStrictEqual(s, { mode: "workspace-write", network: false, writable: [], denyRead: DEFAULT_DENY_READ, bwrapPath: "bwrap", envAllow: [] })
  })

  it("environment variables apply under explicit options; unusable values are named", () => {
    const env = { TOOLWRIGHT_SANDBOX: "read-only", TOOLWRIGHT_SANDBOX_NETWORK: "on", TOOLWRIGHT_SANDBOX_WRITABLE: "/a:/b", TOOLWRIGHT_BWRAP: "/opt/bwrap", TOOLWRIGHT_ENV_ALLOW: "FOO,BAR_*" }
    assert.deepStrictEqual(resolveSandboxSettings({}, env), { mode: "read-only", network: true, writable: ["/a", "/b"], denyRead: DEFAULT_DENY_READ, bwrapPath: "/opt/bwrap", envAllow: ["FOO", "BAR_*"] })
    assert.strictEqual((resolveSandboxSettings({ mode: "off", network: false }, env) as SandboxSettings).mode, "off")
    assert.deepStrictEqual(resolveSandboxSettings({}, { TOOLWRIGHT_SANDBOX: "strict" }), { problem: "TOOLWRIGHT_SANDBOX must be one of read-only, workspace-write, off, got \"strict\"." })
    assert.deepStrictEqual(resolveSandboxSettings({}, { TOOLWRIGHT_SANDBOX_NETWORK: "maybe" }), { problem: "TOOLWRIGHT_SANDBOX_NETWORK must be on or off, got \"maybe\"." })
  })

  it.effect("a session refuses to start on an unusable TOOLWRIGHT_SANDBOX", () =>
    Effect.gen(function*() {
      const before = process.env["TOOLWRIGHT_SANDBOX"]
      process.env["TOOLWRIGHT_SANDBOX"] = "strict"
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(SessionLayer.layer({ roots: [makeDir()], stateDir: makeDir() }).pipe(Layer.provide(Approver.layerFixed({ _tag: "cancel" }))))))
      if (before === undefined) delete process.env["TOOLWRIGHT_SANDBOX"]
      else process.env["TOOLWRIGHT_SANDBOX"] = before
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "TOOLWRIGHT_SANDBOX must be one of")
    }))

  it("extra writable directories must exist, be directories and not be /; other modes ignore them", () => {
    const dir = makeDir()
    const file = path.join(dir, "f")
    fs.writeFileSync(file, "")
    assert.isUndefined(writableProblem(settings({ writable: [dir] })))
    assert.match(writableProblem(settings({ writable: [dir, "/nonexistent/tw"] }))!, /^The sandbox's writable directory \/nonexistent\/tw does not exist/)
    assert.match(writableProblem(settings({ writable: [file] }))!, /is not a directory/)
    assert.match(writableProblem(settings({ writable: ["/"] }))!, /cannot make \/ writable .* --sandbox off/)
    assert.isUndefined(writableProblem(settings({ mode: "read-only", writable: ["/nonexistent/tw"] })))
  })

  it.effect("a session refuses to start with a writable directory that does not exist (not dropped silently)", () =>
    Effect.gen(function*() {
      const layer = SessionLayer.layer({ roots: [makeDir()], stateDir: makeDir(), sandbox: { writable: ["/nonexistent/tw"] } })
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(layer.pipe(Layer.provide(Approver.layerFixed({ _tag: "cancel" }))))))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "/nonexistent/tw does not exist")
    }))
})

describe("the bubblewrap command line", () => {
  it("binds / read-only, the writable dirs over it (parents first), hides the deny list last, network and caps off", () => {
    const home = makeDir("tw-sbx-home-")
    fs.mkdirSync(path.join(home, ".ssh"))
    fs.writeFileSync(path.join(home, ".netrc"), "x")
    const root = makeDir("tw-sbx-root-")
    fs.mkdirSync(path.join(root, "sub"))
    const tmp = makeDir("tw-sbx-tmp-")
    const s = settings({ denyRead: [path.join(home, ".ssh"), path.join(home, ".netrc"), path.join(home, "missing")] })
    const args = bwrapArgs(s, { writable: [path.join(root, "sub"), root, "/nonexistent/dir"], tmpDir: tmp, cwd: root }, { file: "bash", args: ["-c", "true"] })
    const line = args.join(" ")
    assert.isTrue(line.startsWith("--ro-bind / / --dev /dev --tmpfs /dev/shm --proc /proc --unshare-all --die-with-parent --cap-drop ALL"))
    assert.notInclude(line, "--share-net")
    assert.isBelow(line.indexOf(`--bind ${root} ${root}`), line.indexOf(`--bind ${root}/sub`))
    assert.include(line, `--bind ${tmp} ${tmp}`)
    assert.notInclude(line, "/nonexistent/dir")
    assert.include(line, `--tmpfs ${home}/.ssh --remount-ro ${home}/.ssh`)
    assert.include(line, `--ro-bind /dev/null ${home}/.netrc`)
    assert.notInclude(line, "missing")
    assert.isBelow(line.lastIndexOf("--bind"), line.indexOf("--tmpfs " + home))
    assert.isTrue(line.endsWith(`--chdir ${root} -- bash -c true`))
    assert.include(bwrapArgs({ ...s, network: true }, { writable: [], tmpDir: tmp, cwd: root }, { file: "x", args: [] }).join(" "), "--share-net")
    // read-only: only the temp dir
    const ro = bwrapArgs({ ...s, mode: "read-only" }, { writable: [root], tmpDir: tmp, cwd: root }, { file: "x", args: [] })
    assert.deepStrictEqual(ro.filter((a, i) => ro[i - 1] === "--bind"), [tmp])
    assert.deepStrictEqual(confine({ ...s, mode: "off" }, { writable: [], tmpDir: tmp, cwd: root }, { file: "x", args: ["y"] }), { file: "x", args: ["y"] })
  })

  it("the deny list is looked at per command: a credential path made later is hidden, one under a file or dangling is skipped, a symlink hides its target", () => {
    const home = makeDir("tw-sbx-home-")
    const root = makeDir("tw-sbx-root-")
    fs.writeFileSync(path.join(home, "afile"), "x")
    fs.mkdirSync(path.join(home, "real-aws"))
    fs.symlinkSync(path.join(home, "real-aws"), path.join(home, ".aws"))
    fs.symlinkSync(path.join(home, "nowhere"), path.join(home, ".kube"))
    const s = settings({ denyRead: ["~/.ssh", "~/afile/inner", "~/.aws", "~/.kube"].map((p) => p.replace("~", home)) })
    const argsOf = () => bwrapArgs(s, { writable: [root], tmpDir: root, cwd: root }, { file: "x", args: [] }).join(" ")
    const before = argsOf()
    assert.notInclude(before, ".ssh")
    assert.notInclude(before, "afile")
    assert.notInclude(before, ".kube")
    assert.include(before, `--tmpfs ${home}/real-aws --remount-ro ${home}/real-aws`)
    fs.mkdirSync(path.join(home, ".ssh"))
    assert.include(argsOf(), `--tmpfs ${home}/.ssh --remount-ro ${home}/.ssh`)
  })

  it("macOS gets a sandbox-exec profile of the same settings", () => {
    const root = makeDir("tw-sbx-root-")
    const line = confine(settings(), { writable: [root], tmpDir: root, cwd: root }, { file: "bash", args: ["-c", "true"] }, "darwin")
    assert.strictEqual(line.file, "/usr/bin/sandbox-exec")
    const profile = seatbeltProfile(settings(), { writable: [root], tmpDir: root, cwd: root })
    assert.include(profile, "(deny file-write*)")
    assert.include(profile, `(subpath "${root}")`)
    assert.include(profile, "(deny network*)")
  })

  it.effect("a bwrap that does not exist, or cannot make its namespaces, is sandbox_unavailable", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.flip(probeSandbox(settings({ bwrapPath: "/nonexistent/bwrap" }), "linux"))
      assert.strictEqual(missing.code, "sandbox_unavailable")
      assert.include(missing.message, "bubblewrap was not found")
      const broken = yield* Effect.flip(probeSandbox(settings({ bwrapPath: "/bin/false" }), "linux"))
      assert.include(broken.message, "could not create the sandbox's namespaces")
      assert.include(broken.message, "--sandbox off")
      const other = yield* Effect.flip(probeSandbox(settings(), "win32"))
      assert.include(other.message, "no sandbox for the platform win32")
      yield* probeSandbox(settings({ mode: "off", bwrapPath: "/nonexistent" }), "linux")
    }))

  it("signal deaths reported by bubblewrap as 128+N read as signals", () => {
    assert.deepStrictEqual(signalFromSandboxExit({ exitCode: 137, signal: null }), { exitCode: null, signal: "SIGKILL" })
    assert.deepStrictEqual(signalFromSandboxExit({ exitCode: 143, signal: null }), { exitCode: null, signal: "SIGTERM" })
    assert.deepStrictEqual(signalFromSandboxExit({ exitCode: 128, signal: null }), { exitCode: 128, signal: null })
    assert.deepStrictEqual(signalFromSandboxExit({ exitCode: 2, signal: null }), { exitCode: 2, signal: null })
  })
})

describe("the environment policy", () => {
  it("passes the allow-list, drops the rest and every secret-looking name unless named exactly", () => {
    const source = { PATH: "/bin", HOME: "/h", LC_ALL: "C", GITHUB_TOKEN: "t", AWS_SECRET_ACCESS_KEY: "s", DB_PASSWORD: "p", RANDOM_THING: "r", BASH_FUNC_x: "() { :; }", XDG_CONFIG_HOME: "/x", EVIL: "() { :; }" }
    assert.deepStrictEqual(inheritedEnvironment(source), { PATH: "/bin", HOME: "/h", LC_ALL: "C", XDG_CONFIG_HOME: "/x" })
    const allowed = inheritedEnvironment(source, { allow: ["RANDOM_*", "GITHUB_TOKEN", "DB_*", "AWS_*"] })
    assert.strictEqual(allowed["RANDOM_THING"], "r")
    assert.strictEqual(allowed["GITHUB_TOKEN"], "t")
    assert.isUndefined(allowed["DB_PASSWORD"])
    assert.isUndefined(allowed["AWS_SECRET_ACCESS_KEY"])
    for (const name of ["NPM_TOKEN", "OPENAI_API_KEY", "MY_SECRET", "PGPASSWORD", "GOOGLE_APPLICATION_CREDENTIALS", "SSH_PRIVATE", "GH_PAT"]) assert.isTrue(looksSecret(name), name)
    for (const name of ["PATH", "HOME", "KEYBOARD", "LANG", "TERM"]) assert.isFalse(looksSecret(name), name)
  })

  it("decisions kept by name (a host's) give the same environment, and the values are read each time", () => {
    const policy = { allow: ["RANDOM_*", "GITHUB_TOKEN", "DB_*"] }
    const source: Record<string, string> = { PATH: "/bin", GITHUB_TOKEN: "t", DB_PASSWORD: "p", RANDOM_THING: "r", EVIL: "x", BASH_FUNC_x: "() { :; }" }
    const decided = new Map<string, boolean>()
    assert.deepStrictEqual(inheritedEnvironment(source, policy, decided), inheritedEnvironment(source, policy))
    assert.deepStrictEqual(Object.fromEntries(decided), { PATH: true, GITHUB_TOKEN: true, DB_PASSWORD: false, RANDOM_THING: true, EVIL: false })
    const later = { ...source, PATH: "/usr/bin", RANDOM_OTHER: "o", RANDOM_THING: "() { :; }" }
    assert.deepStrictEqual(inheritedEnvironment(later, policy, decided), { PATH: "/usr/bin", GITHUB_TOKEN: "t", RANDOM_OTHER: "o" })
  })
})

describe("blocked by the sandbox", () => {
  const root = makeDir("tw-sbx-root-")
  const home = makeDir("tw-sbx-home-")
  fs.mkdirSync(path.join(home, ".ssh"))
  const s = settings({ denyRead: [path.join(home, ".ssh")] })
  const scope = { writable: [root], tmpDir: makeDir("tw-sbx-tmp-"), cwd: root }

  it("names read-only paths outside the writable dirs, hidden credentials and the network; nothing for the rest", () => {
    assert.deepStrictEqual(sandboxBlocks("touch: cannot touch '/etc/x': Read-only file system\n", s, scope), ["blocked by the sandbox: /etc/x is read-only in workspace-write mode"])
    assert.deepStrictEqual(sandboxBlocks("bash: line 1: /etc/hosts: Read-only file system\n", s, scope), ["blocked by the sandbox: /etc/hosts is read-only in workspace-write mode"])
    assert.deepStrictEqual(sandboxBlocks(`cat: ${home}/.ssh/id_rsa: No such file or directory\n`, s, scope), [`blocked by the sandbox: ${home}/.ssh/id_rsa is a credential path, hidden from commands in workspace-write mode`])
    assert.deepStrictEqual(sandboxBlocks("curl: (6) Could not resolve host: example.com\n", s, scope), ["blocked by the sandbox: the network is off (only the sandbox's own loopback is reachable)"])
    assert.deepStrictEqual(sandboxBlocks(`cat: ${root}/missing: No such file or directory\nrm: cannot remove '${root}/x': Permission denied\n`, s, scope), [])
    assert.deepStrictEqual(sandboxBlocks("bash: x.txt: Read-only file system", { ...s, mode: "read-only" }, scope), [`blocked by the sandbox: ${root}/x.txt is read-only in read-only mode`])
    assert.deepStrictEqual(sandboxBlocks("touch: cannot touch '/etc/x': Read-only file system", { ...s, mode: "off" }, scope), [])
    assert.deepStrictEqual(sandboxBlocks("curl: (6) Could not resolve host: example.com", { ...s, network: true }, scope), [])
  })
})

describe("the MCP `sandbox` field", () => {
  it.effect("is opt-in per local server: true, a mode, or { mode, network }", () =>
    Effect.gen(function*() {
    const config = yield* parseMcpConfig({
      mcpServers: {
        plain: { command: "srv" },
        yes: { command: "srv", sandbox: true },
        ro: { command: "srv", sandbox: "read-only" },
        net: { command: "srv", sandbox: { network: true } },
        remote: { url: "https://example.com/mcp", sandbox: true }
      }
    })
    const byName = Object.fromEntries(config.servers.map((s) => [s.name, s.transport]))
    assert.isUndefined((byName["plain"] as { sandbox?: unknown }).sandbox)
    assert.deepStrictEqual((byName["yes"] as { sandbox?: unknown }).sandbox, { mode: "workspace-write" })
    assert.deepStrictEqual((byName["ro"] as { sandbox?: unknown }).sandbox, { mode: "read-only" })
    assert.deepStrictEqual((byName["net"] as { sandbox?: unknown }).sandbox, { mode: "workspace-write", network: true })
    assert.isTrue(config.problems.some((p) => p.server === "remote" && p.field === "sandbox"))
  }))
})

describe("a sandboxed process tree, seen from the host", () => {
  it.live("interrupting a sandboxed command kills every process of its pid namespace, a setsid daemon without the tag included", () =>
    Effect.gen(function*() {
      const host = yield* ProcessHost
      const dir = makeDir()
      const fiber = yield* Effect.forkChild(host.run({ command: "setsid env -i sh -c 'sleep 1001 &'; sleep 1000 & sleep 1000", cwd: dir, timeoutMs: 0, spillDir: dir }))
      let pids: Array<number> = []
      // bwrap → its pid 1 → bash → two sleeps, and the daemon re-parented to pid 1
      yield* eventually(() => {
        const roots = fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p)).map(Number).filter((p) => {
          try {
            return fs.readFileSync(`/proc/${p}/cmdline`, "utf8").startsWith("bwrap\0") && fs.readFileSync(`/proc/${p}/environ`, "utf8").includes(host.sessionTag)
          } catch {
            return false
          }
        })
        pids = roots
        return roots.length > 0
      })
      let all: Array<number> = []
      for (let i = 0; i < 100 && all.length < 5; i++) {
        if (i > 0) yield* Effect.sleep("50 millis")
        all = [...pids, ...(yield* Effect.forEach(pids, (p) => listDescendantPids(p))).flat()]
      }
      assert.isAtLeast(all.length, 5)
      yield* Fiber.interrupt(fiber)
      assert.isTrue(yield* eventually(() => all.every((p) => !isAlive(p)), 5_000), `survivors ${all.filter(isAlive)}`)
    }).pipe(Effect.provide(hostLayer({ pty: "off" }))), 30_000)
})

describe("the sandbox check, once per process", () => {
  /** A bwrap that notes each run's last argument (the probe runs `true`), then runs the real one, or fails. */
  const countingBwrap = (dir: string, fail: boolean) => {
    const script = path.join(dir, "bwrap")
    const log = path.join(dir, "runs.log")
    fs.writeFileSync(script, `#!/bin/sh\nfor last; do :; done\necho "$last" >> '${log}'\n${fail ? "echo 'no namespaces here' >&2; exit 1" : "exec bwrap \"$@\""}\n`, { mode: 0o755 })
    return { script, probes: () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter((l) => l === "true").length : 0) }
  }
  const runIn = (bwrapPath: string, gate: LaunchGate.Service) =>
    Effect.gen(function*() {
      const host = yield* ProcessHost
      const dir = makeDir()
      return yield* host.run({ command: "echo hi", cwd: dir, timeoutMs: 30_000, spillDir: dir })
    }).pipe(Effect.provide(hostLayer({ pty: "off" }, { bwrapPath })), Effect.provideService(LaunchGate, gate))

  it.live("sessions sharing a launch gate probe bwrap once; a failure is shared for a while, not tried by each session", () =>
    Effect.gen(function*() {
      const good = countingBwrap(makeDir("tw-sbx-bin-"), false)
      const gate = makeLaunchGate()
      for (let session = 0; session < 3; session++) {
        const result = yield* runIn(good.script, gate)
        assert.strictEqual(result.exitCode, 0)
        assert.strictEqual(result.sandbox, "workspace-write")
      }
      assert.strictEqual(good.probes(), 1)
      // a gate of its own: its own probe
      yield* runIn(good.script, makeLaunchGate())
      assert.strictEqual(good.probes(), 2)

      const bad = countingBwrap(makeDir("tw-sbx-bin-"), true)
      for (let session = 0; session < 2; session++) {
        const error = yield* Effect.flip(runIn(bad.script, gate))
        assert.strictEqual(error.code, "sandbox_unavailable")
        assert.include(error.message, "no namespaces here")
      }
      assert.strictEqual(bad.probes(), 1)
    }), 60_000)

  it("a failed check is kept SANDBOX_FAILURE_TTL (30 s), a success for the process, a check given up in the launch queue not at all", () => {
    assert.strictEqual(Duration.toMillis(SANDBOX_FAILURE_TTL), 30_000)
    assert.isTrue(Duration.isFinite(sandboxCheckTtl(Exit.fail(new SandboxUnavailable({ message: "x", display: "x" })))))
    assert.isFalse(Duration.isFinite(sandboxCheckTtl(Exit.void)))
    assert.strictEqual(Duration.toMillis(sandboxCheckTtl(Exit.fail(new LaunchQueueTimeout({ message: "x", display: "x" })))), 0)
  })
})
