/**
 * The shell's permission view against the policy, without running anything: redirection targets
 * in the subjects (so a command-prefix allow rule never covers a write), deny rules that name
 * redirections, and the paths a read-only command reads (so one reaching outside the roots asks).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import { globDepth, type PathAccess, resolvePathWord } from "../../src/shell/command/access.js"
import { analyzeShellCommand, isReadOnlyCommand } from "../../src/shell/command/analysis.js"
import { scan, type Word } from "../../src/shell/command/syntax.js"
import { decide, type ApprovalMode, type PermissionRule } from "../../src/run/policy.js"
import { Kind } from "../../src/tool/kind.js"
import type { ExecConfirmation } from "../../src/tool/permission.js"
import { accessesOutside, MAX_GLOB_ENTRIES } from "../../src/shell/command/outside.js"
import { call, makeDir, textOf, withSession } from "./helpers.js"

const ROOT = "/work/proj"
const HOME = "/home/dev"
const context = { cwd: ROOT, root: ROOT, home: HOME }
const analyze = (command: string, cwd = ROOT) => analyzeShellCommand(command, { ...context, cwd })

/** The policy's answer for a shell command under `rules` (default permission as the tool gives it, paths ignored). */
const decision = (command: string, rules: ReadonlyArray<PermissionRule>, mode: ApprovalMode = "default") => {
  const analysis = analyze(command)
  return decide(
    {
      tool: { name: "run_shell_command", kind: Kind.Execute },
      defaultPermission: analysis.readOnly ? "allow" : "ask",
      paths: [],
      subject: command,
      subjects: analysis.subjects
    },
    { mode, rules, root: ROOT }
  ).permission
}

const ALLOW_GIT_STATUS: ReadonlyArray<PermissionRule> = [{ decision: "allow", pattern: "run_shell_command(git status*)" }]

const reads = (command: string, cwd = ROOT): Array<string | undefined> =>
  analyze(command, cwd).accesses.filter((a: PathAccess) => a.mode === "read").map((a) => a.path)

const word = (source: string): Word => scan(source)[0] as Word

describe("subjects include redirection targets", () => {
  it("a write redirection is part of its command and a part of its own", () => {
    assert.deepStrictEqual(analyze("git status > /tmp/out").subjects, ["git status > /tmp/out", "> /tmp/out"])
    assert.deepStrictEqual(analyze("git status 2>&1 >>/tmp/out").subjects, ["git status >> /tmp/out", ">> /tmp/out"])
    assert.deepStrictEqual(analyze("git status 2> err.log").subjects, ["git status 2> err.log", "2> err.log"])
    assert.deepStrictEqual(analyze("git status &> '/tmp/a b'").subjects, ["git status &> /tmp/a b", "&> /tmp/a b"])
    assert.deepStrictEqual(analyze("> ~/x").subjects, [`> ${HOME}/x`])
    assert.deepStrictEqual(analyze("git status > $OUT").subjects, ["git status > $OUT", "> $OUT"])
    assert.deepStrictEqual(analyze("bash -c 'git status' > ../x").subjects, ["> /work/x", "git status"])
    assert.deepStrictEqual(analyze("cat <<EOF > /etc/motd\nhi\nEOF").subjects, ["cat > /etc/motd", "> /etc/motd"])
  })

  it("harmless redirections stay out; inputs stay in their command", () => {
    assert.deepStrictEqual(analyze("git status > /dev/null 2>&1").subjects, ["git status"])
    assert.deepStrictEqual(analyze("git status 2>/dev/stderr >&2").subjects, ["git status"])
    assert.deepStrictEqual(analyze("wc -l < src/a.ts").subjects, ["wc -l < src/a.ts"])
    assert.deepStrictEqual(analyze("cat <<<hi").subjects, ["cat"])
    assert.deepStrictEqual(analyze("git status < /dev/null").subjects, ["git status"])
  })

  it("paths follow the command's directory and cd", () => {
    assert.deepStrictEqual(analyze("echo x > out", `${ROOT}/sub`).subjects, ["echo x > sub/out", "> sub/out"])
    assert.deepStrictEqual(analyze("cd /etc && echo x > passwd").subjects, ["cd /etc", "echo x > /etc/passwd", "> /etc/passwd"])
    // A cd that may not happen in this shell (a pipeline stage) leaves the directory unknown.
    assert.deepStrictEqual(analyze("cd sub | true; echo x > out").subjects.at(-1), "> out")
    assert.isUndefined(analyze("cd sub | true; echo x > out").accesses.at(-1)!.path)
    for (const command of ["(cd /tmp); echo x > out", "{ cd /tmp; }; echo x > out", "if cd /tmp; then true; fi; echo x > out"]) {
      assert.isUndefined(analyze(command).accesses.at(-1)!.path, command)
    }
  })
})

describe("an allow rule for a command prefix never covers a write redirection", () => {
  const writes = [
    "git status > /tmp/out", "git status >> /tmp/out", "git status 2> /tmp/err", "git status 2>&1 > /tmp/out",
    "git status &> /tmp/out", "git status &>> /tmp/out", "git status >| /tmp/out", "git status <> /tmp/out",
    "git status >& /tmp/out", "git status 1>/tmp/out", "git status 3>/tmp/out", "git status >\"/tmp/out\"",
    "git status > $HOME/out", "git status > /tmp/*.log", "git status > ~/out", "git status > {a,b}",
    "git status > out.txt", "git status | git status > /tmp/out", "git status > /tmp/out < /dev/null",
    "git status <<EOF > /tmp/out\nx\nEOF", "bash -c 'git status > /tmp/out'", "bash -c 'git status' > /tmp/out",
    "git status && > /tmp/out", "git status 2>/tmp/err >/dev/null"
  ]
  for (const command of writes) {
    it(`asks for ${JSON.stringify(command)}`, () => assert.strictEqual(decision(command, ALLOW_GIT_STATUS), "ask"))
  }
  const harmless = ["git status > /dev/null", "git status 2>&1", "git status 2>/dev/null", "git status >/dev/stderr", "git status --short"]
  for (const command of harmless) {
    it(`still allows ${JSON.stringify(command)}`, () => assert.strictEqual(decision(command, ALLOW_GIT_STATUS), "allow"))
  }

  it("asks in auto-edit too; only yolo lets it run", () => {
    assert.strictEqual(decision("git status > /tmp/out", ALLOW_GIT_STATUS, "auto-edit"), "ask")
    assert.strictEqual(decision("git status > /tmp/out", ALLOW_GIT_STATUS, "yolo"), "allow")
  })

  it("never allows a composition of an allowed prefix with a write redirection (property)", () => {
    const prefixes = ["git status", "git status --short", "npm test", "ls -la", "make"]
    const rules: ReadonlyArray<PermissionRule> = prefixes.map((p) => ({ decision: "allow", pattern: `run_shell_command(${p}*)` }))
    const op = fc.constantFrom(">", ">>", ">|", "&>", "&>>", "<>", ">&", "1>", "2>", "9>", "2>>", "2>&1 >", "2>&1 >>")
    const outside = fc.oneof(
      fc.constantFrom("/etc/passwd", "/tmp/x", "~/.bashrc", "~", "../escape", "../../x", "/", "$HOME/x", "${OUT}", "/tmp/*", "$(echo /tmp/x)", "{/tmp/x,y}"),
      fc.stringMatching(/^\/[a-z]{1,6}(\/[a-z.]{1,6}){0,2}$/),
      fc.stringMatching(/^(\.\.\/){1,3}[a-z]{1,5}$/)
    )
    const quote = fc.constantFrom((t: string) => t, (t: string) => `"${t}"`, (t: string) => `'${t}'`)
    const space = fc.constantFrom("", " ", "  ")
    const mode = fc.constantFrom<ApprovalMode>("default", "auto-edit")
    fc.assert(
      fc.property(fc.constantFrom(...prefixes), op, space, outside, quote, fc.boolean(), mode, (prefix, o, sp, target, q, first, m) => {
        const redirect = `${o}${sp}${target.startsWith("$(") || target.startsWith("{") ? target : q(target)}`
        const command = first ? `${redirect} ${prefix}` : `${prefix} ${redirect}`
        const permission = decision(command, rules, m)
        if (permission === "allow") throw new Error(`${command} was allowed`)
      }),
      { numRuns: 2000 }
    )
  })
})

describe("rules that name redirections", () => {
  const DENY_ETC: ReadonlyArray<PermissionRule> = [{ decision: "deny", pattern: "run_shell_command(*> /etc/*)" }]
  for (const command of ["echo x > /etc/hosts", "echo x >/etc/hosts", "echo x 2>> \"/etc/hosts\"", "cd /etc && echo x > hosts", "bash -c 'echo x' &>/etc/hosts", "echo x > /etc/../etc/hosts"]) {
    it(`a deny rule refuses ${JSON.stringify(command)} even in yolo`, () => assert.strictEqual(decision(command, DENY_ETC, "yolo"), "deny"))
  }
  it("a deny rule leaves other targets alone", () => {
    assert.strictEqual(decision("echo x > notes/etc.txt", DENY_ETC, "yolo"), "allow")
  })
  it("an allow rule that matches the redirection part too allows exactly those writes", () => {
    const rules: ReadonlyArray<PermissionRule> = [{ decision: "allow", pattern: "run_shell_command(*> build/*.log)" }]
    assert.strictEqual(decision("make > build/out.log", rules), "allow")
    assert.strictEqual(decision("make > build/out.log 2> /tmp/err", rules), "ask")
    assert.strictEqual(decision("make > /tmp/out.log", rules), "ask")
  })
})

describe("what a read-only command reads", () => {
  it("resolves words: ~ from HOME, relative to the directory, globs to their static directory", () => {
    assert.strictEqual(resolvePathWord(word("~/.ssh/id_rsa"), ROOT, HOME), `${HOME}/.ssh/id_rsa`)
    assert.strictEqual(resolvePathWord(word("'~/x'"), ROOT, HOME), `${ROOT}/~/x`)
    assert.isUndefined(resolvePathWord(word("~root/x"), ROOT, HOME))
    assert.strictEqual(resolvePathWord(word("../x"), `${ROOT}/sub`, HOME), `${ROOT}/x`)
    assert.strictEqual(resolvePathWord(word("src/*.ts"), ROOT, HOME), `${ROOT}/src`)
    assert.strictEqual(resolvePathWord(word("/etc/*"), ROOT, HOME), "/etc")
    assert.isUndefined(resolvePathWord(word("*/../../x"), ROOT, HOME))
    assert.isUndefined(resolvePathWord(word(".*/x"), ROOT, HOME))
    assert.isUndefined(resolvePathWord(word("$HOME/x"), ROOT, HOME))
    assert.isUndefined(resolvePathWord(word("{a,/etc/passwd}"), ROOT, HOME))
    assert.isUndefined(resolvePathWord(word("x"), undefined, HOME))
    assert.strictEqual(globDepth(word("src/*.ts")), 1)
    assert.strictEqual(globDepth(word("*/secret")), 2)
    assert.strictEqual(globDepth(word("/etc/*")), 1)
    assert.strictEqual(globDepth(word("'*'")), 0)
  })

  it("lists operands and input redirections, skipping scripts, patterns and find's expression", () => {
    assert.deepStrictEqual(reads("cat /outside/secret"), ["/outside/secret"])
    assert.deepStrictEqual(reads("cat inside.txt"), [`${ROOT}/inside.txt`])
    assert.deepStrictEqual(reads("wc -l < /etc/passwd"), ["/etc/passwd"])
    assert.deepStrictEqual(reads("grep -rn /etc src"), [`${ROOT}/src`])
    assert.deepStrictEqual(reads("grep -e foo -f /tmp/pats src"), ["/tmp/pats", `${ROOT}/src`])
    assert.deepStrictEqual(reads("sed -n '/x/p' f"), [`${ROOT}/f`])
    assert.deepStrictEqual(reads("awk '/a/ {print $1}' f"), [`${ROOT}/f`])
    assert.deepStrictEqual(reads("find / -name '/etc'"), ["/"])
    assert.deepStrictEqual(reads("find -H /etc -type f"), ["/etc"])
    assert.deepStrictEqual(reads("git --git-dir=/other/.git log"), ["/other/.git", `${ROOT}/log`])
    assert.deepStrictEqual(reads("ls -I/etc/x"), ["/etc/x"])
    assert.deepStrictEqual(reads("grep --file=~/.ssh/id_rsa x"), [`${HOME}/.ssh/id_rsa`, `${ROOT}/x`])
    assert.deepStrictEqual(reads("echo /etc/passwd; pwd"), [])
    assert.deepStrictEqual(reads("cd /etc && cat passwd"), ["/etc", "/etc", "/etc/passwd"])
    assert.deepStrictEqual(reads("cd && ls"), [HOME])
    assert.deepStrictEqual(reads("cd sub && ls"), [`${ROOT}/sub`, `${ROOT}/sub`])
    assert.deepStrictEqual(reads("cat ~/.aws/credentials"), [`${HOME}/.aws/credentials`])
  })

  it("counts reads it cannot see as unknown", () => {
    assert.deepStrictEqual(reads("echo /etc/passwd | xargs cat"), [undefined])
    assert.deepStrictEqual(reads("env -C /etc cat passwd"), [undefined, undefined])
    assert.deepStrictEqual(reads("env --chdir=/etc ls"), [undefined])
    assert.deepStrictEqual(reads("sort --files0-from=-"), [undefined, `${ROOT}/-`])
    assert.deepStrictEqual(reads("sha256sum -c sums"), [undefined, `${ROOT}/sums`])
    assert.deepStrictEqual(reads("cat \"$F\""), [undefined])
    assert.deepStrictEqual(reads("cd \"$D\" && cat x"), [undefined, undefined, undefined])
    // Scripts that pick their own files, and walks that follow links.
    assert.include(reads("sed '1r /etc/passwd' f"), undefined)
    assert.include(reads("sed -e 'R /etc/passwd' f"), undefined)
    assert.notInclude(reads("sed -n '/r/p' f"), undefined)
    assert.include(reads("awk 'BEGIN{ARGV[1]=\"/etc/passwd\";ARGC=2}{print}'"), undefined)
    assert.include(reads("grep -Rn x ."), undefined)
    assert.include(reads("rg --follow x"), undefined)
    assert.include(reads("find -L ."), undefined)
    assert.notInclude(reads("grep -rn x ."), undefined)
    // Where cd lands: prefix assignments and CDPATH make it unknown.
    assert.deepStrictEqual(reads("CDPATH=/ cd etc && cat passwd").at(-1), undefined)
    assert.deepStrictEqual(analyzeShellCommand("cd etc && cat passwd", { ...context, cdPath: "/" }).accesses.at(-1)!.path, undefined)
    assert.deepStrictEqual(analyzeShellCommand("cd ./etc && cat passwd", { ...context, cdPath: "/" }).accesses.at(-1)!.path, `${ROOT}/etc/passwd`)
  })

  it("its read-only proof agrees with isReadOnlyCommand (property)", () => {
    const atom = fc.constantFrom(
      "ls", "cat a", "git status", "rm x", "echo hi", "> out", "2>&1", ">/dev/null", "< in", "|", "&&", ";", "\n", "bash -c 'ls'",
      "$(pwd)", "FOO=1", "sudo", "xargs", "grep x", "(", ")", "<<EOF\nx\nEOF\n", "sed -n 1p", "cd sub", "'q'", "&", ">&2", "2>err"
    )
    fc.assert(
      fc.property(fc.array(atom, { minLength: 1, maxLength: 8 }), (parts) => {
        const command = parts.join(" ")
        assert.strictEqual(analyze(command).readOnly, isReadOnlyCommand(command), JSON.stringify(command))
      }),
      { numRuns: 2000 }
    )
  })

  it("stays read-only as a program-level proof (the path check is the tool's)", () => {
    assert.isTrue(analyze("cat /outside/secret").readOnly)
    assert.isFalse(analyze("cat a > b").readOnly)
    assert.isFalse(analyze("cat $(pwd)").readOnly)
    assert.isTrue(analyze("git status 2>&1 | head").readOnly)
  })
})

describe("run_shell_command's permission (in a session)", () => {
  it.live("a read-only command reading outside asks with the paths as warnings; inside it runs unasked", () =>
    Effect.suspend(() => {
      const outside = makeDir("tw-outside-")
      fs.writeFileSync(path.join(outside, "secret"), "SECRET\n")
      return withSession({ mode: "default", fallback: { _tag: "cancel" } }, (s) =>
        Effect.gen(function*() {
          fs.writeFileSync(path.join(s.root, "inside.txt"), "inside\n")
          const refused = yield* call("run_shell_command", { command: `cat inside.txt ${outside}/secret` })
          assert.strictEqual(refused._tag, "Cancelled")
          const [request] = yield* s.requests
          const details = request!.details as ExecConfirmation
          assert.deepStrictEqual(details.warnings, [`Reads outside the workspace (or a path not known before it runs): ${outside}/secret.`])
          assert.strictEqual(details.rootCommand, "cat")
          const inside = yield* call("run_shell_command", { command: "cat inside.txt" })
          assert.include(textOf(inside), "inside")
          const written = yield* call("run_shell_command", { command: `echo x > ${outside}/out` })
          assert.strictEqual(written._tag, "Cancelled")
          const requests = yield* s.requests
          assert.lengthOf(requests, 2)
          assert.include((requests[1]!.details as ExecConfirmation).warnings ?? [], `Writes outside the workspace (or to a path not known before it runs): ${outside}/out.`)
          assert.isFalse(fs.existsSync(path.join(outside, "out")))
        })).pipe(Effect.ensuring(Effect.sync(() => fs.rmSync(outside, { recursive: true, force: true }))))
    }))
})

describe("an \"always\" answer covers the parts it approved", () => {
  it.live("always for one command does not cover a write redirection, nor another command", () =>
    Effect.suspend(() => {
      const outside = makeDir("tw-outside-")
      return withSession({ mode: "default", answers: [{ _tag: "proceed_always" }], fallback: { _tag: "cancel" } }, (s) =>
        Effect.gen(function*() {
          const first = yield* call("run_shell_command", { command: "echo one > inside.txt" })
          assert.strictEqual(first._tag, "Success")
          // the same parts again: covered by the earlier "always", not asked
          const again = yield* call("run_shell_command", { command: "echo one > inside.txt" })
          assert.strictEqual(again._tag, "Success")
          assert.lengthOf(yield* s.requests, 1)
          const outsideWrite = yield* call("run_shell_command", { command: `echo one > ${outside}/out` })
          assert.strictEqual(outsideWrite._tag, "Cancelled")
          const other = yield* call("run_shell_command", { command: "touch other.txt" })
          assert.strictEqual(other._tag, "Cancelled")
          assert.lengthOf(yield* s.requests, 3)
          assert.isFalse(fs.existsSync(path.join(outside, "out")))
          assert.isFalse(fs.existsSync(path.join(s.root, "other.txt")))
        })).pipe(Effect.ensuring(Effect.sync(() => fs.rmSync(outside, { recursive: true, force: true }))))
    }))
})

describe("accessesOutside", () => {
  const realWithin = (root: string) => (p: string) =>
    Effect.sync(() => {
      let real = p
      try {
        real = fs.realpathSync(p)
      } catch {
        // a missing path stays as named
      }
      return real === root || real.startsWith(`${root}/`)
    })

  it.effect("a glob is outside when a link its pattern reaches leads out, and past MAX_GLOB_ENTRIES entries", () =>
    Effect.gen(function*() {
      const root = makeDir("tw-glob-")
      const away = makeDir("tw-away-")
      try {
        const within = realWithin(root)
        const globRead = (text: string) => analyzeShellCommand(`cat ${text}`, { cwd: root, root, home: HOME }).accesses
        fs.mkdirSync(path.join(root, "many"))
        for (let i = 0; i < MAX_GLOB_ENTRIES; i++) fs.writeFileSync(path.join(root, "many", `f${i}`), "")
        assert.lengthOf(yield* accessesOutside(globRead("many/*"), within), 0)
        fs.writeFileSync(path.join(root, "many", "one-more"), "")
        assert.lengthOf(yield* accessesOutside(globRead("many/*"), within), 1)

        fs.mkdirSync(path.join(root, "src", "deep"), { recursive: true })
        fs.writeFileSync(path.join(root, "src", "a.ts"), "")
        assert.lengthOf(yield* accessesOutside(globRead("src/*"), within), 0)
        fs.writeFileSync(path.join(away, "x"), "")
        fs.symlinkSync(away, path.join(root, "src", "deep", "door"))
        assert.lengthOf(yield* accessesOutside(globRead("src/*"), within), 0, "the link is two levels down")
        assert.lengthOf(yield* accessesOutside(globRead("src/*/*"), within), 1)
        assert.lengthOf(yield* accessesOutside(globRead("src/deep/door/x"), within), 1, "a plain path through the link")
        assert.lengthOf(yield* accessesOutside(globRead("$X"), within), 1, "unknown")
        assert.lengthOf(yield* accessesOutside(globRead("/dev/null"), within), 0, "nothing to read")
      } finally {
        fs.rmSync(root, { recursive: true, force: true })
        fs.rmSync(away, { recursive: true, force: true })
      }
    }))
})
