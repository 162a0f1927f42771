import { assert, describe, it } from "@effect/vitest"
import { decide, type PermissionRule, type PolicyInput, ruleMatches, validateRule } from "../../src/run/policy.js"
import { globToRegExp } from "../../src/run/pattern.js"

const shell = (command: string, defaultPermission: PolicyInput["defaultPermission"] = "ask"): PolicyInput => ({
  tool: { name: "run_shell_command", kind: "execute" },
  defaultPermission,
  paths: [],
  subject: command
})
const edit = (file: string): PolicyInput => ({ tool: { name: "edit", kind: "edit" }, defaultPermission: "ask", paths: [file], subject: "" })
const read = (file: string): PolicyInput => ({ tool: { name: "read_file", kind: "read" }, defaultPermission: "allow", paths: [file], subject: "" })
const root = "/work/app"

describe("rule matching", () => {
  it("matches a shell command by prefix wildcard", () => {
    const rule: PermissionRule = { decision: "allow", pattern: "run_shell_command(git status*)" }
    assert.isTrue(ruleMatches(rule, shell("git status"), root))
    assert.isTrue(ruleMatches(rule, shell("git status --short"), root))
    assert.isFalse(ruleMatches(rule, shell("git push"), root))
    assert.isFalse(ruleMatches(rule, { ...shell("git status"), tool: { name: "other", kind: "execute" } }, root))
  })

  it("matches path params as globs, relative to the first root or absolute", () => {
    const rule: PermissionRule = { decision: "allow", pattern: "edit(src/**)" }
    assert.isTrue(ruleMatches(rule, edit("/work/app/src/a.ts"), root))
    assert.isTrue(ruleMatches(rule, edit("/work/app/src/deep/er/b.ts"), root))
    assert.isFalse(ruleMatches(rule, edit("/work/app/test/a.ts"), root))
    assert.isFalse(ruleMatches(rule, edit("/work/app/srcx/a.ts"), root))
    assert.isTrue(ruleMatches({ decision: "deny", pattern: "edit(/etc/*)" }, edit("/etc/passwd"), root))
    assert.isTrue(ruleMatches({ decision: "deny", pattern: "edit(**/*.lock)" }, edit("/work/app/package.lock"), root))
    assert.isTrue(ruleMatches({ decision: "deny", pattern: "edit(**/*.lock)" }, edit("/work/app/a/b/yarn.lock"), root))
  })

  it("matches tool names with wildcards (an MCP server's tools)", () => {
    const rule: PermissionRule = { decision: "deny", pattern: "mcp__github__*" }
    const mcp = (name: string): PolicyInput => ({ tool: { name, kind: "other" }, defaultPermission: "ask", paths: [], subject: "" })
    assert.isTrue(ruleMatches(rule, mcp("mcp__github__create_issue"), root))
    assert.isFalse(ruleMatches(rule, mcp("mcp__gitlab__create_issue"), root))
  })

  it("a * in a path glob stays within one segment", () => {
    assert.isTrue(globToRegExp("src/*.ts", true).test("src/a.ts"))
    assert.isFalse(globToRegExp("src/*.ts", true).test("src/x/a.ts"))
    assert.isTrue(globToRegExp("a?c", false).test("abc"))
    assert.isTrue(globToRegExp("x.y(z)", false).test("x.y(z)"))
    assert.isFalse(globToRegExp("x.y", false).test("xzy"))
  })

  it("validates rule syntax", () => {
    assert.isUndefined(validateRule("edit(src/**)"))
    assert.include(validateRule("(src)")!, "no tool name")
    assert.include(validateRule("edit()")!, "empty specifier")
    assert.include(validateRule("ed(it(x)")!, "unbalanced")
  })
})

describe("decide", () => {
  const rules: ReadonlyArray<PermissionRule> = [
    { decision: "allow", pattern: "run_shell_command(git *)" },
    { decision: "ask", pattern: "run_shell_command(git push*)" },
    { decision: "deny", pattern: "run_shell_command(git push --force*)" }
  ]
  it("deny beats ask beats allow", () => {
    assert.strictEqual(decide(shell("git status"), { mode: "default", rules }).permission, "allow")
    assert.strictEqual(decide(shell("git push origin"), { mode: "default", rules }).permission, "ask")
    const denied = decide(shell("git push --force"), { mode: "default", rules })
    assert.deepStrictEqual(denied, { permission: "deny", reason: "rule", rule: "run_shell_command(git push --force*)" })
  })

  it("a deny rule holds even in yolo; yolo allows everything else", () => {
    assert.strictEqual(decide(shell("git push --force"), { mode: "yolo", rules }).permission, "deny")
    assert.strictEqual(decide(shell("git push origin"), { mode: "yolo", rules }).permission, "allow")
    assert.strictEqual(decide(shell("rm -rf build"), { mode: "yolo", rules }).permission, "allow")
  })

  it("starts from the invocation's default permission", () => {
    assert.deepStrictEqual(decide(shell("make"), { mode: "default", rules: [] }), { permission: "ask", reason: "default" })
    assert.strictEqual(decide(read("/work/app/a"), { mode: "default", rules: [] }).permission, "allow")
    // a tool's own deny (e.g. a security violation) is not lifted by yolo
    assert.strictEqual(decide(shell("x", "deny"), { mode: "yolo", rules: [] }).permission, "deny")
  })

  it("plan denies mutating kinds only; auto-edit allows Edit kinds only", () => {
    assert.deepStrictEqual(decide(edit("/work/app/a"), { mode: "plan", rules: [] }), { permission: "deny", reason: "mode" })
    assert.strictEqual(decide(shell("ls"), { mode: "plan", rules: [] }).permission, "deny")
    assert.strictEqual(decide(read("/work/app/a"), { mode: "plan", rules: [] }).permission, "allow")
    assert.strictEqual(decide(edit("/work/app/a"), { mode: "auto-edit", rules: [] }).permission, "allow")
    assert.strictEqual(decide(shell("make"), { mode: "auto-edit", rules: [] }).permission, "ask")
  })
})

describe("compound shell commands", () => {
  const compound = (subject: string, subjects: ReadonlyArray<string>): PolicyInput => ({ ...shell(subject), subjects })
  it("an allow rule must match every simple command; deny and ask fire on any", () => {
    const allowStatus: PermissionRule = { decision: "allow", pattern: "run_shell_command(git status*)" }
    assert.isTrue(ruleMatches(allowStatus, compound("git status && git status -s", ["git status", "git status -s"]), root))
    assert.isFalse(ruleMatches(allowStatus, compound("git status; rm -rf ~", ["git status", "rm -rf ~"]), root))
    assert.strictEqual(
      decide(compound("git status; rm -rf ~", ["git status", "rm -rf ~"]), { mode: "default", rules: [allowStatus] }).permission,
      "ask"
    )
    const denyRm: PermissionRule = { decision: "deny", pattern: "run_shell_command(rm *)" }
    assert.isTrue(ruleMatches(denyRm, compound("ls && rm -rf build", ["ls", "rm -rf build"]), root))
    assert.strictEqual(decide(compound("ls && rm -rf build", ["ls", "rm -rf build"]), { mode: "yolo", rules: [denyRm] }).permission, "deny")
  })
})
