import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { parse as shellQuoteParse } from "shell-quote"
import {
  analyzeShellCommand,
  detectBlockedSleep,
  detectBlockedSleepPattern,
  detectSelfKillCommand,
  endsWithBareAmpersand,
  getCommandRoots,
  hasCommandSubstitution,
  isReadOnlyCommand,
  isShellExitError,
  rootsNeedingApproval,
  stripShellWrapper,
  stripTrailingAmpersand
} from "../../src/shell/command/analysis.js"
import { sedScriptReadOnly } from "../../src/shell/command/readOnly.js"
import { UNPARSABLE_SUBJECT } from "../../src/shell/command/commands.js"
import { blockedSleepMessage } from "../../src/shell/command/sleep.js"
import { tryParseCommandLine } from "../../src/shell/command/commandLine.js"
import { scan } from "../../src/shell/command/syntax.js"

describe("detectBlockedSleepPattern (reference §9.2 vectors)", () => {
  const blocked: ReadonlyArray<readonly [string, string]> = [
    ["sleep 5", "standalone sleep 5"],
    ["sleep 2.5", "standalone sleep 2.5"],
    ["sleep 2s", "standalone sleep 2s"],
    ["sleep 2000ms", "standalone sleep 2000ms"],
    ["sleep 3m", "standalone sleep 3m"],
    ["sleep 5 && curl http://localhost", "sleep 5 followed by: curl http://localhost"],
    ["sleep 3; echo done", "sleep 3 followed by: echo done"],
    ["sleep 2.5 || echo done", "sleep 2.5 followed by: echo done"],
    ["sleep 2s\necho done", "sleep 2s followed by: echo done"],
    ["sleep 5 # wait", "standalone sleep 5"],
    ["sleep 5 && echo ok # trailing", "sleep 5 followed by: echo ok"],
    ["sleep 5 # intentional-sleep: 1234567", "standalone sleep 5"],
    ["sleep 601s # intentional-sleep: wait for MCP rate limit reset", "standalone sleep 601s"],
    ["sleep 5 # intentional-sleep: wait for rate limit reset\necho ok", "sleep 5 followed by: echo ok"],
    ["bash -c 'sleep 5'", "standalone sleep 5"]
  ]
  for (const [input, expected] of blocked) {
    it(`blocks ${JSON.stringify(input)}`, () => assert.strictEqual(detectBlockedSleepPattern(input), expected))
  }
  const allowed = [
    "sleep 1", "sleep 0", "sleep 0.5", "sleep 1.5", "sleep 1500ms",
    "echo hello && sleep 5", "sleep 5 | cat", "sleep 5 & echo done", "sleep 10 & wait", "",
    "sleep 5 # intentional-sleep: wait for MCP rate limit reset",
    "sleep 5 # intentional-sleep: 12345678",
    "sleep 600s # intentional-sleep: wait for MCP rate limit reset",
    "sleep 5 'arg # not a comment'"
  ]
  for (const input of allowed) {
    it(`allows ${JSON.stringify(input)}`, () => assert.isNull(detectBlockedSleepPattern(input)))
  }

  it("picks the guidance for standalone, chained, short-reason and too-long sleeps", () => {
    assert.include(blockedSleepMessage(detectBlockedSleep("sleep 5")!), "add a trailing comment like `# intentional-sleep:")
    assert.include(blockedSleepMessage(detectBlockedSleep("sleep 5; ls")!), "Split into two calls")
    assert.include(blockedSleepMessage(detectBlockedSleep("sleep 5 # intentional-sleep: short")!), "the reason is too short")
    assert.include(blockedSleepMessage(detectBlockedSleep("sleep 11m # intentional-sleep: waiting for the deploy")!), "over 10 minutes")
    assert.match(blockedSleepMessage(detectBlockedSleep("sleep 5")!), /^Blocked: standalone sleep 5\. Run blocking commands in the background with is_background: true\./)
  })
})

describe("detectSelfKillCommand (reference §9.2 vectors)", () => {
  const yes = [
    "taskkill /F /IM node.exe 2>nul", "killall -9 node", "pkill node", "pkill -f qwen-code", "pkill -f /usr/bin/node",
    "pkill -9f node", "bash -lc 'pkill -f qwen'", "echo setup && killall node", "sudo killall node",
    "env FOO=bar pkill -f qwen-code", "kill -9 $(pgrep node)", "kill -9 `pgrep node | head -1`", "pgrep node | xargs kill",
    "killall node*", "cmd.exe /c taskkill /F /IM node.exe", "pkill toolwright", "kill $(pidof node)"
  ]
  const no = [
    "taskkill /PID 1234 /F", "kill 1234", "pkill -f vite", "pkill -f \"node server.js\"", "kill -9 $(pgrep vite)",
    "pkill -F qwen-code.pid vite", "taskkill /IM notepad.exe", "echo pkill node", "node -e 'console.log(1)'"
  ]
  for (const c of yes) it(`refuses ${c}`, () => assert.isTrue(detectSelfKillCommand(c)))
  for (const c of no) it(`allows ${c}`, () => assert.isFalse(detectSelfKillCommand(c)))
})

describe("isShellExitError (reference §9.4 vectors)", () => {
  const cases: ReadonlyArray<readonly [string, number | null, boolean]> = [
    ["grep pattern file", 1, false],
    ["rg pattern", 1, false],
    ["diff before after", 1, false],
    ["test -f missing", 1, false],
    ["[ -f missing ]", 1, false],
    ["[[ -f missing ]]", 1, false],
    ["\"C:\\\\tools\\\\grep.exe\" pattern file", 1, false],
    ["ps aux | grep missing-process", 1, false],
    ["find missing-directory", 1, true],
    ["false && ps aux | grep pattern", 1, true],
    ["grep pattern file", 2, true],
    ["x", 0, false],
    ["x", null, false],
    ["grep x f 2>/dev/null", 1, false],
    ["grep x < f", 1, false],
    ["grep x f; echo", 1, true]
  ]
  for (const [command, code, expected] of cases) {
    it(`(${command}, ${code}) → ${expected}`, () => assert.strictEqual(isShellExitError(command, code), expected))
  }
})

describe("read-only proof", () => {
  const readOnly = [
    "ls -la", "cat a.txt | grep foo | wc -l", "git status", "git diff HEAD~1", "git log --oneline -5", "rg TODO src",
    "cd src && ls", "ls 2>/dev/null", "git status 2>&1", "find . -name '*.ts'", "sed -n '1,5p' file", "sed 's/a/b/' f",
    "FOO=1 ls", "time ls", "echo hi > /dev/null", "bash -c 'ls && pwd'", "grep -r x . | sort | uniq -c | head",
    "git branch", "git branch -a", "git remote -v", "[ -f x ] && echo yes", "awk '{print $1}' f", "cat <<EOF\nhello\nEOF",
    "ls\npwd", "git -C sub status", "xargs grep foo < list", "tree -L 2"
  ]
  const notReadOnly = [
    "rm -rf x", "ls > out.txt", "echo hi >> log", "cat a &> b", "ls >| out", "git commit -m x", "git push", "git branch new",
    "git -c core.pager=rm log", "git diff --output=x", "find . -delete", "find . -exec rm {} \\;", "sed -i 's/a/b/' f",
    "sed 's/a/b/w out' f", "sed -n 'w out' f", "sed -e 's/a/b/e' f", "awk '{system(\"rm x\")}' f", "awk '{print > \"f\"}' g",
    "sort -o out in", "uniq in out", "ls $(pwd)", "ls `pwd`", "cat <(ls)", "(ls)", "sudo ls", "$CMD x", "npm test",
    "echo 'unterminated", "FOO=1", "> file", "rg --pre cat x", "ls && rm x", "bash -c 'ls > out'", "bash -c 'ls' > out",
    "cat <<EOF\n$(rm x)\nEOF", "date -s 2020-01-01", "tree -o out", "echo $((1+2))",
    "sed --file=/tmp/s f", "sed -nf /tmp/s f", "awk -fprog f", "awk -l /tmp/lib.so 1", "awk --load=x 1", "awk -E prog f", "file -f names"
  ]
  for (const c of readOnly) it(`allows ${JSON.stringify(c)}`, () => assert.isTrue(isReadOnlyCommand(c)))
  for (const c of notReadOnly) it(`asks for ${JSON.stringify(c)}`, () => assert.isFalse(isReadOnlyCommand(c)))

  it("names only the roots that still need approval", () => {
    assert.deepStrictEqual(rootsNeedingApproval("git status && npm test && ls > out"), ["npm", "ls"])
    assert.deepStrictEqual(rootsNeedingApproval("ls"), [])
  })

  it("reads sed scripts command by command", () => {
    assert.isTrue(sedScriptReadOnly("1,5p;/x/d"))
    assert.isTrue(sedScriptReadOnly("s/we/ew/g"))
    assert.isFalse(sedScriptReadOnly("1w out"))
    assert.isFalse(sedScriptReadOnly("s/a/b/gw out"))
    assert.isTrue(sedScriptReadOnly("/w/p"))
  })
})

describe("command structure", () => {
  it("finds substitutions in every form, including wrappers and here-docs, but not in single quotes", () => {
    for (const c of ["echo $(whoami)", "echo `id`", "diff <(ls) <(ls)", "tee >(cat)", "echo \"$(id)\"", "bash -c 'echo $(id)'", "FOO=$(id) ls", "cat <<EOF\n`id`\nEOF", "echo $((1+2))"]) {
      assert.isTrue(hasCommandSubstitution(c), c)
    }
    for (const c of ["echo '$(whoami)'", "echo \\$(id)", "ls", "cat <<'EOF'\n$(id)\nEOF", "echo $HOME"]) {
      assert.isFalse(hasCommandSubstitution(c), c)
    }
    assert.isTrue(hasCommandSubstitution("echo $(unterminated"))
  })

  it("lists roots behind prefixes and wrappers", () => {
    assert.deepStrictEqual(getCommandRoots("FOO=1 sudo -u me env A=b git status && bash -c 'npm test | tee log'"), ["git", "npm", "tee"])
    assert.deepStrictEqual(getCommandRoots("# only a comment"), [])
    assert.deepStrictEqual(getCommandRoots("FOO=bar"), [])
    assert.deepStrictEqual(getCommandRoots("/usr/bin/python3 -m http.server"), ["python3"])
  })

  it("detects a trailing bare & and strips it", () => {
    assert.isTrue(endsWithBareAmpersand("npm run dev &"))
    assert.isTrue(endsWithBareAmpersand("bash -c 'npm run dev &'"))
    assert.isFalse(endsWithBareAmpersand("a && b"))
    assert.isFalse(endsWithBareAmpersand("echo \\&"))
    assert.isFalse(endsWithBareAmpersand("echo '&'"))
    assert.isFalse(endsWithBareAmpersand("sleep 1 & echo x"))
    assert.strictEqual(stripTrailingAmpersand("npm run dev &"), "npm run dev")
    assert.strictEqual(stripTrailingAmpersand("a && b"), "a && b")
  })

  it("strips exactly one shell wrapper", () => {
    assert.strictEqual(stripShellWrapper("bash -c 'sleep 5'"), "sleep 5")
    assert.strictEqual(stripShellWrapper("sh -lc \"ls -la\""), "ls -la")
    assert.strictEqual(stripShellWrapper("bash -c 'a' && b"), "bash -c 'a' && b")
    assert.strictEqual(stripShellWrapper("bash script.sh"), "bash script.sh")
  })

  it("scans redirections with their descriptors and here-document bodies", () => {
    const tokens = scan("cmd 2>&1 >out <<EOF arg\nbody $X\nEOF\nnext")
    const redirects = tokens.filter((t) => t.kind === "redirect")
    assert.deepStrictEqual(redirects.map((r) => r.kind === "redirect" ? [r.fd, r.op, r.target?.text, r.body] : []), [
      ["2", ">&", "1", undefined],
      [undefined, ">", "out", undefined],
      [undefined, "<<", "EOF", "body $X\n"]
    ])
    const line = tryParseCommandLine("cmd <<EOF arg\nbody\nEOF\nnext")!
    assert.deepStrictEqual(line.commands.map((c) => c.words.map((w) => w.text)), [["cmd", "arg"], ["next"]])
  })

  it("agrees with shell-quote on the words of plain commands (property)", () => {
    const atom = fc.oneof(
      fc.stringMatching(/^[a-zA-Z0-9_.\/-]{1,8}$/),
      fc.stringMatching(/^[a-zA-Z0-9 _.-]{0,8}$/).map((s) => `'${s}'`),
      fc.stringMatching(/^[a-zA-Z0-9 _.-]{0,8}$/).map((s) => `"${s}"`)
    )
    fc.assert(
      fc.property(fc.array(atom, { minLength: 1, maxLength: 6 }), (atoms) => {
        const source = atoms.join(" ")
        const ours = scan(source).flatMap((t) => (t.kind === "word" ? [t.text] : []))
        assert.deepStrictEqual(ours, shellQuoteParse(source))
      }),
      { seed: 42, numRuns: 300 }
    )
  })
})

describe("permission subjects", () => {
  const subjects = (source: string) => analyzeShellCommand(source, { cwd: "/w", root: "/w", home: "/home/u" }).subjects
  it("splits a command line into its simple commands and substitutions", () => {
    assert.deepStrictEqual(subjects("git status; rm -rf ~"), ["git status", "rm -rf ~"])
    assert.deepStrictEqual(subjects("ls | grep x && echo done"), ["ls", "grep x", "echo done"])
    assert.deepStrictEqual(subjects("bash -c 'git log | head'"), ["git log", "head"])
    assert.includeMembers([...subjects("git log $(rm -rf /)")], ["rm -rf /"])
    assert.deepStrictEqual(subjects("echo 'unterminated"), [UNPARSABLE_SUBJECT])
  })
})
