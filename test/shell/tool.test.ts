import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { ToolRegistry } from "../../src/registry/registry.js"
import type { CallSuccess } from "../../src/tool/outcome.js"
import { call, codeOf, makeDir, textOf, withSession } from "./helpers.js"

const SELF_KILL =
  "Blocked: this command may terminate the running toolwright process because it targets all node/toolwright processes. Use task_stop for managed background shells, or kill a specific PID instead."

describe("run_shell_command: validation, in the reference's order", () => {
  it.live("reports each rule's message as invalid_tool_params", () =>
    withSession({}, (s) =>
      Effect.gen(function*() {
        const outside = makeDir("tw-outside-")
        fs.writeFileSync(path.join(s.root, "file.txt"), "x")
        const cases: ReadonlyArray<readonly [unknown, string]> = [
          [{ command: "   " }, "Command cannot be empty."],
          // the self-kill rule comes before the background rule and the timeout rule
          [{ command: "pkill node &", is_background: true, timeout: 1.5 }, SELF_KILL],
          [{ command: "npm run dev &", is_background: true, timeout: 1.5 }, "Background shell commands must not end with a bare \"&\". Remove the trailing \"&\" and rely on is_background: true instead."],
          [{ command: "# just a comment", timeout: 1.5 }, "Could not identify command root to obtain permission from user."],
          [{ command: "ls", timeout: 1.5, directory: "rel" }, "Timeout must be an integer number of milliseconds."],
          [{ command: "ls", timeout: 0 }, "Timeout must be a positive number."],
          [{ command: "ls", timeout: -5 }, "Timeout must be a positive number."],
          [{ command: "ls", timeout: 600_001 }, "Timeout cannot exceed 600000ms (10 minutes)."],
          [{ command: "sleep 5", directory: "relative/dir" }, "Directory must be an absolute path."],
          [{ command: "sleep 5", directory: outside }, `Directory '${outside}' is not within any of the registered workspace directories.`],
          [
            { command: "ls", directory: path.join(s.root, "missing") },
            `Directory '${path.join(s.root, "missing")}' does not exist. Pass an existing directory inside the workspace, or omit directory to run in the project root.`
          ],
          [
            { command: "ls", directory: path.join(s.root, "file.txt") },
            `Directory '${path.join(s.root, "file.txt")}' is not a directory. Pass a directory, or omit directory to run in the project root.`
          ],
          [
            { command: "sleep 5 && echo done" },
            "Blocked: sleep 5 followed by: echo done. Run blocking commands in the background with is_background: true. For streaming events (watching logs, polling APIs), start the command with is_background: true and read its output file. Split into two calls: first `sleep N # intentional-sleep: <reason>` (standalone), then the follow-up command."
          ]
        ]
        for (const [args, message] of cases) {
          const r = yield* call("run_shell_command", args)
          assert.strictEqual(codeOf(r), "invalid_tool_params", JSON.stringify(args))
          assert.strictEqual(textOf(r), message, JSON.stringify(args))
        }
        const wrongType = yield* call("run_shell_command", { command: "ls", extra: 1 })
        assert.strictEqual(codeOf(wrongType), "invalid_tool_params")
      })))

  it.live("accepts the limits at their edges: timeout 600000, a 1.5 s sleep, an intentional sleep, a background sleep", () =>
    withSession({}, () =>
      Effect.gen(function*() {
        assert.strictEqual(codeOf(yield* call("run_shell_command", { command: "echo ok", timeout: 600_000 })), "Success")
        assert.strictEqual(codeOf(yield* call("run_shell_command", { command: "sleep 1.5" })), "Success")
        assert.strictEqual(codeOf(yield* call("run_shell_command", { command: "sleep 0.1 # intentional-sleep: pacing the test run" })), "Success")
        assert.strictEqual(codeOf(yield* call("run_shell_command", { command: "sleep 5", is_background: true })), "Success")
      })), 15_000)
})

describe("run_shell_command: permissions", () => {
  it.live("allows proven read-only commands without asking, asks for the rest, and for substitution", () =>
    withSession({ settings: { pty: "off" }, mode: "default" }, (s) =>
      Effect.gen(function*() {
        fs.writeFileSync(path.join(s.root, "a.txt"), "hello\n")
        const read = yield* call("run_shell_command", { command: "cat a.txt | wc -l && git status 2>/dev/null; ls" })
        assert.strictEqual(codeOf(read), "Success")
        assert.lengthOf(yield* s.requests, 0)

        yield* call("run_shell_command", { command: "touch b.txt && ls" })
        const [touch] = yield* s.requests
        assert.deepStrictEqual(touch!.details, {
          type: "exec",
          title: "Confirm Shell Command",
          command: "touch b.txt && ls",
          rootCommand: "touch",
          // the person may rewrite the command before approving it
          amendable: { param: "command", proposal: "touch b.txt && ls" }
        })

        yield* call("run_shell_command", { command: "echo $(date)" })
        const subst = (yield* s.requests)[1]!
        assert.strictEqual(subst.details.title, "Confirm Shell Command")
        assert.deepStrictEqual(subst.details.type === "exec" ? subst.details.warnings : undefined, [
          "Contains command substitution ($(...), backticks, <(...), or >(...))."
        ])
      })))

  it.live("a declined command does not run", () =>
    withSession({ mode: "default", fallback: { _tag: "cancel", reason: "no" } }, (s) =>
      Effect.gen(function*() {
        const r = yield* call("run_shell_command", { command: "touch made.txt" })
        assert.strictEqual(r._tag, "Cancelled")
        assert.isFalse(fs.existsSync(path.join(s.root, "made.txt")))
      })))

  it.live("permission rules match the command (toAutoClassifierInput)", () =>
    withSession({ mode: "default", fallback: { _tag: "cancel" }, rules: [{ decision: "allow", pattern: "run_shell_command(touch *)" }, { decision: "deny", pattern: "run_shell_command(rm *)" }] }, (s) =>
      Effect.gen(function*() {
        assert.strictEqual(codeOf(yield* call("run_shell_command", { command: "touch x" })), "Success")
        assert.isTrue(fs.existsSync(path.join(s.root, "x")))
        const denied = yield* call("run_shell_command", { command: "rm x" })
        assert.strictEqual(codeOf(denied), "execution_denied")
        assert.isTrue(fs.existsSync(path.join(s.root, "x")))
        const tool = yield* (yield* ToolRegistry).ensure("run_shell_command")
        assert.strictEqual(tool.toAutoClassifierInput({ command: "git status -s" }), "git status -s")
      })))

  it.live("read-only foreground commands are concurrency-safe; others and background ones are not", () =>
    withSession({}, () =>
      Effect.gen(function*() {
        const tool = yield* (yield* ToolRegistry).ensure("run_shell_command")
        const safe = yield* tool.build({ command: "git status" })
        const unsafe = yield* tool.build({ command: "rm -rf x" })
        const bg = yield* tool.build({ command: "ls", is_background: true })
        assert.isTrue(safe.concurrencySafe)
        assert.isFalse(unsafe.concurrencySafe)
        assert.isFalse(bg.concurrencySafe)
        assert.strictEqual(yield* safe.defaultPermission, "allow")
        assert.strictEqual(yield* unsafe.defaultPermission, "ask")
        assert.strictEqual(safe.description, "git status")
        const described = yield* tool.build({ command: "ls", timeout: 5000, description: "list\nfiles" })
        assert.strictEqual(described.description, "ls [timeout: 5000ms] (list files)")
      })))
})

describe("run_shell_command: results", () => {
  for (const pty of ["auto", "off"] as const) {
    it.live(`returns the seven lines (pty: ${pty})`, () =>
      withSession({ settings: { pty } }, (s) =>
        Effect.gen(function*() {
          fs.mkdirSync(path.join(s.root, "sub"))
          const r = yield* call("run_shell_command", { command: "printf 'a\\nb\\n'; pwd", directory: path.join(s.root, "sub") })
          assert.strictEqual(r._tag, "Success")
          const pid = /Process Group PGID: (\d+)/.exec(textOf(r))?.[1]
          assert.strictEqual(
            textOf(r),
            `Command: printf 'a\\nb\\n'; pwd\nDirectory: ${path.join(s.root, "sub")}\nOutput: a\nb\n${path.join(s.root, "sub")}\n\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: ${pid}`
          )
          const empty = yield* call("run_shell_command", { command: "true" })
          assert.include(textOf(empty), "Directory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 0")
        })))
  }

  it.live("exit 1 of grep (also at the end of a pipeline) is not an error; exit 2 and a failing && chain are", () =>
    withSession({ settings: { pty: "off" } }, (s) =>
      Effect.gen(function*() {
        fs.writeFileSync(path.join(s.root, "f.txt"), "alpha\n")
        const none = yield* call("run_shell_command", { command: "grep zzz f.txt" })
        assert.strictEqual(codeOf(none), "Success")
        assert.include(textOf(none), "Exit Code: 1")
        assert.strictEqual(codeOf(yield* call("run_shell_command", { command: "cat f.txt | grep zzz" })), "Success")
        assert.strictEqual(codeOf(yield* call("run_shell_command", { command: "[ -f missing ]" })), "Success")
        const two = yield* call("run_shell_command", { command: "grep zzz missing.txt" })
        assert.strictEqual(codeOf(two), "shell_execute_error")
        assert.include(textOf(two), "Exit Code: 2")
        assert.include(textOf(two), "No such file or directory")
        assert.strictEqual(codeOf(yield* call("run_shell_command", { command: "true && grep zzz f.txt" })), "shell_execute_error")
        const killed = yield* call("run_shell_command", { command: "kill -KILL $$" })
        assert.strictEqual(codeOf(killed), "shell_execute_error")
        assert.include(textOf(killed), "Signal: SIGKILL")
        assert.strictEqual(killed._tag === "Failure" ? killed.display : "", "Command terminated by signal: SIGKILL")
      })))

  it.live("a timeout is execution_timeout with the output so far, and kills the command", () =>
    withSession({}, (s) =>
      Effect.gen(function*() {
        const marker = path.join(s.root, "late")
        const r = yield* call("run_shell_command", { command: `echo started; sleep 3; touch ${marker}`, timeout: 500 })
        assert.strictEqual(codeOf(r), "execution_timeout")
        assert.strictEqual(textOf(r), "Command timed out after 500ms before it could complete. Below is the output before it timed out:\nstarted\n")
        const silent = yield* call("run_shell_command", { command: "sleep 1.9", timeout: 200 })
        assert.strictEqual(textOf(silent), "Command timed out after 200ms before it could complete. There was no output before it timed out.")
        yield* Effect.sleep("3500 millis")
        assert.isFalse(fs.existsSync(marker))
      })), 15_000)

  it.live("a command that ran for at least half its timeout gets the long-run hint", () =>
    withSession({ settings: { pty: "off" } }, () =>
      Effect.gen(function*() {
        const r = yield* call("run_shell_command", { command: "sleep 1.2; echo done", timeout: 2000 })
        assert.include(textOf(r), "\n\nNote: this foreground command ran for 1s. Next time you run a similar long-running process")
        const quick = yield* call("run_shell_command", { command: "echo done", timeout: 2000 })
        assert.notInclude(textOf(quick), "Note: this foreground command")
      })))

  it.live("self-truncates above 30 000 chars with head and tail and saves the full text; the pipeline's 28 000-char gate comes first", () =>
    withSession({ settings: { pty: "off" } }, () =>
      Effect.gen(function*() {
        // a result text of exactly `total` chars (the PGID's width may vary: adjust until it fits)
        const sized = (n: number) => call("run_shell_command", { command: `head -c ${String(n).padStart(5, "0")} /dev/zero | tr '\\0' x` })
        const overhead = textOf(yield* sized(100)).length - 100
        const ofLength = (total: number) =>
          Effect.gen(function*() {
            let n = total - overhead
            let r = yield* sized(n)
            for (let i = 0; i < 5; i++) {
              const full = /Process Group PGID: (\d+)$/.exec(textOf(r))
              const length = full ? textOf(r).length : overhead + n
              if (length === total) break
              n -= length - total
              r = yield* sized(n)
            }
            return r
          })
        const gateEdge = yield* ofLength(28_000)
        assert.strictEqual(textOf(gateEdge).length, 28_000)
        assert.match(textOf(gateEdge), /^Command: /)
        assert.match(textOf(yield* ofLength(28_001)), /^<persisted-output>\nOutput too large/)
        assert.match(textOf(yield* ofLength(30_000)), /^<persisted-output>\nOutput too large/)
        assert.match(textOf(yield* ofLength(30_001)), /^Tool output was too large and has been truncated\./)

        const big = yield* call("run_shell_command", { command: "seq 1 20000" })
        const text = textOf(big)
        assert.match(text, /^Tool output was too large and has been truncated\.\nThe full output has been saved to: (\S+)\n/)
        assert.include(text, "... [CONTENT TRUNCATED] ...")
        assert.include(text, "Command: seq 1 20000")
        assert.include(text, "\n20000\n")
        const file = /saved to: (\S+)/.exec(text)![1]!
        const saved = fs.readFileSync(file, "utf8")
        assert.include(saved, "Output: 1\n2\n3\n")
        assert.include(saved, "\n19999\n20000\n")
        assert.isBelow(text.length, 6_000)
        assert.strictEqual(((big as CallSuccess).data as { outputFile?: string }).outputFile, file)
      })))

  it.live("an output over the memory cap spills to a file that holds all of it; the cap on that file is reported", () =>
    withSession({ settings: { pty: "off", memoryChars: 50_000, maxCapturedBytes: 200_000 } }, () =>
      Effect.gen(function*() {
        const r = yield* call("run_shell_command", { command: "seq 1 30000" })
        const text = textOf(r)
        const file = /saved to: (\S+)/.exec(text)![1]!
        assert.strictEqual(fs.readFileSync(file, "utf8"), Array.from({ length: 30000 }, (_, i) => `${i + 1}\n`).join(""))
        assert.include(text, "\n29999\n30000\n")
        assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)

        const capped = yield* call("run_shell_command", { command: "seq 1 100000" })
        const cappedText = textOf(capped)
        const cappedFile = /saved to: (\S+)/.exec(cappedText)![1]!
        assert.strictEqual(fs.statSync(cappedFile).size, 200_000)
        assert.include(cappedText, "[Output exceeded the maximum captured size of 195 KB; captured the first 195 KB of 575 KB and discarded the rest.]")
      })))

  it.live("binary output is detected and not shown", () =>
    withSession({ settings: { pty: "off" } }, () =>
      Effect.gen(function*() {
        const r = yield* call("run_shell_command", { command: "head -c 5000 /dev/zero" })
        assert.include(textOf(r), "Output: [Binary output detected: 4.9 KB (5000 bytes) not shown. The raw bytes were saved to: ")
      })))

  it.live("streams live output to the caller", () =>
    withSession({ settings: { pty: "off", liveIntervalMs: 100 } }, () =>
      Effect.gen(function*() {
        const { Scheduler } = yield* Effect.promise(() => import("../../src/run/scheduler.js"))
        const scheduler = yield* Scheduler
        const chunks: Array<unknown> = []
        yield* scheduler.runOne(
          { callId: "live", name: "run_shell_command", args: { command: "echo one; sleep 0.4; echo two" } },
          { onOutput: (id, chunk) => Effect.sync(() => void chunks.push([id, chunk])) }
        )
        assert.deepStrictEqual(chunks[0], ["live", "one\n"])
        assert.deepStrictEqual(chunks[chunks.length - 1], ["live", "one\ntwo\n"])
      })))
})
