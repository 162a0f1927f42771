/**
 * The user docs stay true: the generated tools reference matches the declarations (run
 * `npm run gen:docs` when this fails), every wire code is documented, every limit matches its
 * constant, every flag and environment variable is in the configuration, and the embedding
 * examples are the type-checked code of examples/embedding.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { Command } from "effect/cli"
import { TestConsole } from "effect/testing"
import { cli, VERSION } from "../../src/cli/commands.js"
import * as Library from "../../src/index.js"
import * as EffectAi from "../../src/serve/effectAi.js"
import { DEFAULT_MAX_STEPS } from "../../src/serve/effectAi.js"
import { DEFAULT_PAGE_LINES } from "../../src/serve/outputResources.js"
import { MAX_ARGUMENT_DEPTH } from "../../src/serve/argumentDepth.js"
import { MAX_SERVE_MESSAGE_BYTES } from "../../src/serve/stdioTransport.js"
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_SESSIONS } from "../../src/serve/httpAccess.js"
import { ROOTS_TIMEOUT_MS } from "../../src/serve/httpRoots.js"
import { PARENT_POLL_MS } from "../../src/serve/parentWatch.js"
import { MAX_AMENDABLE_CHARS } from "../../src/serve/elicitation.js"
import { AMENDMENT_DIFF_MAX_CHARS } from "../../src/run/amendment.js"
import { DEFAULT_APPROVAL_WAIT_MS } from "../../src/cluster/pending.js"
import { TOOL_ERROR_CODES } from "../../src/tool/errors.js"
import * as OutputConstants from "../../src/output/constants.js"
import { MIN_PREVIEW_CHARS } from "../../src/output/pipeline.js"
import * as Shell from "../../src/shell/config.js"
import * as Search from "../../src/search/constants.js"
import * as Mcp from "../../src/mcp/constants.js"
import { DEFAULT_MAX_EDIT_FILE_BYTES } from "../../src/write/config.js"
import { MAX_MEDIA_BYTES } from "../../src/files/readKinds.js"
import { MAX_PDF_PAGES_PER_READ } from "../../src/files/pdf.js"
import * as History from "../../src/text/history.js"
import { MAX_ENTRIES } from "../../src/session/readCache.js"
import { MAX_SYMLINK_HOPS } from "../../src/session/realPath.js"
import { MAX_DEPTH, MAX_DESCENDANTS } from "../../src/process/tree.js"
import { LAUNCH_QUEUE_TIMEOUT_MS } from "../../src/process/launchGate.js"
import { MAX_MESSAGE_LENGTH } from "../../src/shell/background/sendMessage.js"
import { MAX_GLOB_ENTRIES } from "../../src/shell/command/outside.js"
import { DEFAULT_MAX_RESULTS, HARD_MAX_RESULTS } from "../../src/registry/toolSearch/select.js"
import { MAX_DEFERRED_TOOL_DESC_LEN } from "../../src/registry/toolSearch/reminder.js"
import { MAX_TOOL_NAME_LENGTH } from "../../src/registry/toolSearch/mcpNames.js"
import { MAX_OPTIONS, MAX_QUESTIONS } from "../../src/plan/askUserQuestion.js"
import { MAX_DESCRIPTION_CHARS, MAX_SUBJECT_CHARS } from "../../src/plan/board.js"
import { LOCK_TIMEOUT_MS } from "../../src/plan/lock.js"
import { DEFAULT_LOCK_TIMEOUT_MS } from "../../src/text/writeLock.js"
import * as Web from "../../src/web/index.js"
import { repoRoot } from "../support/serve.js"

const doc = (name: string) => fs.readFileSync(path.join(repoRoot, "docs", name), "utf8")

describe("docs/tools-reference.md", () => {
  it("is what scripts/gen-tools-reference.mjs generates from the current declarations (else: npm run gen:docs)", () => {
    const run = spawnSync(process.execPath, [path.join(repoRoot, "scripts", "gen-tools-reference.mjs"), "--check"], {
      cwd: repoRoot,
      encoding: "utf8",
      timeout: 120_000
    })
    assert.strictEqual(run.status, 0, `${run.stderr}${run.stdout}`)
  }, 130_000)
})

describe("docs/errors.md", () => {
  it("has a row for every wire code, and no row for a code that does not exist", () => {
    const text = doc("errors.md")
    const rows = [...text.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!)
    assert.deepStrictEqual([...rows].sort(), [...TOOL_ERROR_CODES].sort())
    assert.include(text, "`cancelled`")
  })
})

const MiB = 1024 * 1024
const spaced = (n: number) => n.toLocaleString("en-US").replace(/,/g, " ")
const renderings = (n: number) => [spaced(n), `${n / MiB} MiB`, `${Math.round((n / MiB) * 10) / 10} MiB`, `${spaced(n)} ms`]

describe("docs/limits.md", () => {
  const constants: Record<string, number> = {
    DEFAULT_TRUNCATE_CHARS: OutputConstants.DEFAULT_TRUNCATE_CHARS,
    DEFAULT_TRUNCATE_LINES: OutputConstants.DEFAULT_TRUNCATE_LINES,
    DEFAULT_BATCH_BUDGET: OutputConstants.DEFAULT_BATCH_BUDGET,
    DEFAULT_PERSIST_HEADROOM: OutputConstants.DEFAULT_PERSIST_HEADROOM,
    DEFAULT_PREVIEW_CHARS: OutputConstants.DEFAULT_PREVIEW_CHARS,
    MIN_PREVIEW_CHARS,
    SHELL_MAX_OUTPUT_CHARS: Shell.SHELL_MAX_OUTPUT_CHARS,
    GREP_MAX_OUTPUT_CHARS: Search.GREP_MAX_OUTPUT_CHARS,
    MCP_TOOL_MAX_OUTPUT_CHARS: Mcp.MCP_TOOL_MAX_OUTPUT_CHARS,
    DEFAULT_MAX_OUTPUT_FILE_BYTES: OutputConstants.DEFAULT_MAX_OUTPUT_FILE_BYTES,
    DEFAULT_MAX_SESSION_OUTPUT_BYTES: OutputConstants.DEFAULT_MAX_SESSION_OUTPUT_BYTES,
    DEFAULT_PAGE_LINES,
    DEFAULT_MAX_TOOL_CONCURRENCY: OutputConstants.DEFAULT_MAX_TOOL_CONCURRENCY,
    DEFAULT_MAX_STEPS,
    MAX_ENTRIES,
    MAX_SYMLINK_HOPS,
    DEFAULT_MAX_EDIT_FILE_BYTES,
    MAX_SERVE_MESSAGE_BYTES,
    MAX_ARGUMENT_DEPTH,
    MAX_MEDIA_BYTES,
    MAX_PDF_PAGES_PER_READ,
    DEFAULT_HISTORY_MAX_ENTRIES: History.DEFAULT_HISTORY_MAX_ENTRIES,
    DEFAULT_HISTORY_MAX_BYTES: History.DEFAULT_HISTORY_MAX_BYTES,
    DEFAULT_HISTORY_MAX_FILE_BYTES: History.DEFAULT_HISTORY_MAX_FILE_BYTES,
    DEFAULT_TIMEOUT_MS: Shell.DEFAULT_TIMEOUT_MS,
    MAX_TIMEOUT_MS: Shell.MAX_TIMEOUT_MS,
    OUTPUT_UPDATE_INTERVAL_MS: Shell.OUTPUT_UPDATE_INTERVAL_MS,
    MAX_DESCENDANTS,
    LAUNCH_QUEUE_TIMEOUT_MS,
    MAX_DEPTH,
    MAX_MESSAGE_LENGTH,
    MAX_GLOB_ENTRIES,
    MAX_FILE_COUNT: Search.MAX_FILE_COUNT,
    MAX_ENTRY_COUNT: Search.MAX_ENTRY_COUNT,
    MAX_SEARCH_FILE_BYTES: Search.MAX_SEARCH_FILE_BYTES,
    GREP_TIMEOUT_MS: Search.GREP_TIMEOUT_MS,
    REGEX_BATCH_TIMEOUT_MS: Search.REGEX_BATCH_TIMEOUT_MS,
    REGEX_WORKER_HEAP_MB: Search.REGEX_WORKER_HEAP_MB,
    MAX_GLOB_BRACE_EXPANSIONS: Search.MAX_GLOB_BRACE_EXPANSIONS,
    MAX_SEARCH_PATTERN_CHARS: Search.MAX_SEARCH_PATTERN_CHARS,
    DEFAULT_MAX_RESULTS,
    HARD_MAX_RESULTS,
    MAX_DEFERRED_TOOL_DESC_LEN,
    MAX_TOOL_NAME_LENGTH,
    DEFAULT_MCP_TOOL_TIMEOUT_MS: Mcp.DEFAULT_MCP_TOOL_TIMEOUT_MS,
    DEFAULT_MCP_TOOL_IDLE_TIMEOUT_MS: Mcp.DEFAULT_MCP_TOOL_IDLE_TIMEOUT_MS,
    DEFAULT_STDIO_DISCOVERY_TIMEOUT_MS: Mcp.DEFAULT_STDIO_DISCOVERY_TIMEOUT_MS,
    DEFAULT_REMOTE_DISCOVERY_TIMEOUT_MS: Mcp.DEFAULT_REMOTE_DISCOVERY_TIMEOUT_MS,
    DEFAULT_STARTUP_WAIT_MS: Mcp.DEFAULT_STARTUP_WAIT_MS,
    MAX_TOOLS_PER_SERVER: Mcp.MAX_TOOLS_PER_SERVER,
    MAX_TOOL_DESCRIPTION_CHARS: Mcp.MAX_TOOL_DESCRIPTION_CHARS,
    MAX_STDIO_MESSAGE_BYTES: Mcp.MAX_STDIO_MESSAGE_BYTES,
    MAX_QUESTIONS,
    MAX_OPTIONS,
    MAX_SUBJECT_CHARS,
    MAX_DESCRIPTION_CHARS,
    LOCK_TIMEOUT_MS,
    DEFAULT_LOCK_TIMEOUT_MS,
    WEB_FETCH_MAX_REDIRECTS: Web.WEB_FETCH_MAX_REDIRECTS,
    WEB_FETCH_MAX_BYTES: Web.WEB_FETCH_MAX_BYTES,
    WEB_FETCH_TIMEOUT_MS: Web.WEB_FETCH_TIMEOUT_MS,
    ERROR_BODY_PREVIEW_CHARS: Web.ERROR_BODY_PREVIEW_CHARS,
    SNIFF_BYTES: Web.SNIFF_BYTES,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_IDLE_TIMEOUT_MS,
    ROOTS_TIMEOUT_MS,
    PARENT_POLL_MS,
    MAX_AMENDABLE_CHARS,
    AMENDMENT_DIFF_MAX_CHARS,
    DEFAULT_APPROVAL_WAIT_MS
  }

  it("states every limit at its constant's value, and names only constants it checks", () => {
    const text = doc("limits.md")
    const named = [...text.matchAll(/^\|[^|]*\| `([A-Z_]+)` \|([^|]*)\|/gm)].map((m) => ({ name: m[1]!, cell: m[2]! }))
    assert.deepStrictEqual(named.map((n) => n.name).sort(), Object.keys(constants).sort())
    for (const { name, cell } of named) {
      const value = constants[name]!
      assert.isTrue(renderings(value).some((r) => cell.includes(r)), `${name} = ${value}, but the table says "${cell.trim()}"`)
    }
  })
})

const helpOf = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    yield* Command.runWith(cli, { version: VERSION })(args).pipe(Effect.provide(NodeServices.layer))
    return (yield* TestConsole.logLines).join("\n")
  })

describe("docs/configuration.md", () => {
  it.effect("documents every flag of every command", () =>
    Effect.gen(function*() {
      const text = doc("configuration.md")
      for (const command of ["serve", "tools", "call", "run"]) {
        const help = yield* helpOf([command, "--help"])
        const flags = help.slice(help.indexOf("FLAGS"), help.indexOf("GLOBAL FLAGS")).match(/^ {2}(--[a-z-]+)/gm) ?? []
        assert.isAbove(flags.length, 0)
        for (const flag of flags.map((f) => f.trim())) assert.include(text, `\`${flag}`, `${command} ${flag}`)
      }
    }))

  it("documents every TOOLWRIGHT_* environment variable the source reads", () => {
    const text = doc("configuration.md")
    const found = new Set<string>()
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name)
        if (entry.isDirectory()) walk(full)
        else if (entry.name.endsWith(".ts")) {
          for (const m of fs.readFileSync(full, "utf8").matchAll(/"(TOOLWRIGHT_[A-Z_]+)"/g)) found.add(m[1]!)
        }
      }
    }
    walk(path.join(repoRoot, "src"))
    assert.isAbove(found.size, 5)
    for (const variable of found) assert.include(text, `\`${variable}\``, variable)
  })
})

describe("docs/embedding.md", () => {
  const text = doc("embedding.md")
  const blocks = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)
  const withoutImports = (code: string) => code.split("\n").filter((l) => !l.startsWith("import ")).join("\n").trim()

  it("every code block is type-checked code of examples/embedding.ts", () => {
    const example = fs.readFileSync(path.join(repoRoot, "examples", "embedding.ts"), "utf8")
    assert.isAtLeast(blocks.length, 6)
    for (const block of blocks) assert.include(example, withoutImports(block))
  })

  it("imports only what the package entry points export", () => {
    const entries: Record<string, Record<string, unknown>> = {
      toolwright: Library as unknown as Record<string, unknown>,
      "toolwright/effect-ai": EffectAi as unknown as Record<string, unknown>
    }
    for (const block of blocks) {
      for (const m of block.matchAll(/^import \{ (.+) \} from "(toolwright[^"]*)"$/gm)) {
        for (const name of m[1]!.split(",").map((s) => s.trim())) {
          assert.property(entries[m[2]!], name, `${m[2]} exports ${name}`)
        }
      }
    }
  })
})

describe("docs links", () => {
  it("every relative link of the user docs points to a file that exists", () => {
    for (const name of ["getting-started.md", "configuration.md", "embedding.md", "errors.md", "limits.md"]) {
      for (const m of doc(name).matchAll(/\]\(([^)#:\s]+)(#[^)]*)?\)/g)) {
        assert.isTrue(fs.existsSync(path.join(repoRoot, "docs", m[1]!)), `${name} links ${m[1]}`)
      }
    }
    const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8")
    for (const m of readme.matchAll(/\]\((docs\/[^)#]+)\)/g)) assert.isTrue(fs.existsSync(path.join(repoRoot, m[1]!)), m[1])
  })
})
