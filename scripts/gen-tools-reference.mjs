#!/usr/bin/env node
// Generates docs/tools-reference.md from the tool declarations of a default session (every
// built-in tool, deferred ones included), through the built library (run `npm run build` first).
// The built-ins are listed from their declaration modules (src/**/*.decl.ts and the .md beside
// each): no tool module is loaded.
//
//   node scripts/gen-tools-reference.mjs          write docs/tools-reference.md
//   node scripts/gen-tools-reference.mjs --check  exit 1 if the committed file is stale
//   node scripts/gen-tools-reference.mjs --stdout print it
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Layer } from "effect"
import { Approver, mcpAnnotations, Output, Registry, SessionLayer } from "../dist/index.js"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const target = path.join(repoRoot, "docs", "tools-reference.md")

const num = (n) => n.toLocaleString("en-US").replace(/,/g, " ")

/** The declared tools of a default session, sorted by name. Paths of the temp workspace are neutralised. */
const loadTools = async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tw-ref-root-")))
  const state = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tw-ref-state-")))
  try {
    const program = Effect.gen(function*() {
      const registry = yield* Registry.ToolRegistry
      return yield* registry.tools
    }).pipe(
      Effect.provide(SessionLayer.layer({ roots: [root], stateDir: state }).pipe(Layer.provide(Approver.layerFixed({ _tag: "cancel" }))))
    )
    const tools = await Effect.runPromise(program)
    const neutral = (text) => text.split(root).join("<workspace root>").split(state).join("<state dir>")
    return [...tools]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((tool) => ({ ...tool, description: neutral(tool.description), parametersJsonSchema: JSON.parse(neutral(JSON.stringify(tool.parametersJsonSchema))) }))
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
    fs.rmSync(state, { recursive: true, force: true })
  }
}

const escapeCell = (text) => String(text).replace(/\|/g, "\\|").replace(/\r?\n/g, " ")

const typeOf = (schema) => {
  if (schema === undefined || schema === null || typeof schema !== "object") return "any"
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => `\`${JSON.stringify(v)}\``).join(" \\| ")
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``
  const union = schema.anyOf ?? schema.oneOf
  if (Array.isArray(union)) return union.map(typeOf).join(" \\| ")
  if (schema.type === "array") return `array of ${typeOf(schema.items)}`
  if (Array.isArray(schema.type)) return schema.type.join(" \\| ")
  if (typeof schema.$ref === "string") return schema.$ref.replace("#/$defs/", "")
  return schema.type ?? (schema.properties ? "object" : "any")
}

const bounds = (schema) => {
  if (schema === undefined || typeof schema !== "object") return []
  const out = []
  if (schema.minimum !== undefined && schema.minimum > -Number.MAX_SAFE_INTEGER) out.push(`≥ ${schema.minimum}`)
  if (schema.exclusiveMinimum !== undefined) out.push(`> ${schema.exclusiveMinimum}`)
  if (schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER) out.push(`≤ ${schema.maximum}`)
  if (schema.exclusiveMaximum !== undefined) out.push(`< ${schema.exclusiveMaximum}`)
  if (schema.minLength !== undefined) out.push(`min length ${schema.minLength}`)
  if (schema.maxLength !== undefined) out.push(`max length ${schema.maxLength}`)
  if (schema.minItems !== undefined) out.push(`min ${schema.minItems} items`)
  if (schema.maxItems !== undefined) out.push(`max ${schema.maxItems} items`)
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) out.push(...bounds(part))
  return out
}

const paramRows = (schema) => {
  const properties = schema.properties ?? {}
  const required = new Set(schema.required ?? [])
  return Object.entries(properties).map(([name, p]) => {
    const notes = [...bounds(p)]
    if (p.default !== undefined) notes.push(`default \`${JSON.stringify(p.default)}\``)
    const description = p.description ?? (Array.isArray(p.allOf) ? p.allOf.find((x) => x.description)?.description : undefined) ?? ""
    return `| \`${name}\` | ${escapeCell(typeOf(p))} | ${required.has(name) ? "yes" : "no"} | ${escapeCell([description, notes.join(", ")].filter(Boolean).join(" — "))} |`
  })
}

const budgetOf = (tool) =>
  tool.maxOutputChars === undefined
    ? `default (${num(Output.DEFAULT_TRUNCATE_CHARS)} chars, ${num(Output.DEFAULT_TRUNCATE_LINES)} lines)`
    : tool.maxOutputChars === null || tool.maxOutputChars === Infinity
    ? "self-managed (no per-call cut)"
    : `${num(tool.maxOutputChars)} chars, keeps ${tool.truncateKeep === "both" ? "head and tail" : tool.truncateKeep}`

const shownOf = (tool) => (tool.alwaysLoad ? "always" : tool.shouldDefer ? "after `tool_search`" : "always")

const summaryOf = (description) => {
  const first = description.split(/\n\s*\n/)[0].replace(/\s+/g, " ").trim()
  const sentence = /^(.*?[.!?])(\s|$)/.exec(first)
  const text = sentence ? sentence[1] : first
  return text.length > 140 ? `${text.slice(0, 139)}…` : text
}

const fence = (text) => {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length))
  const ticks = "`".repeat(longest + 1)
  return `${ticks}text\n${text}\n${ticks}`
}

const render = (tools) => {
  const lines = [
    "# Tools reference",
    "",
    "<!-- GENERATED by scripts/gen-tools-reference.mjs from the tool declarations. Do not edit by hand: run `npm run gen:docs`. -->",
    "",
    `Every built-in tool of a default session (${tools.length} tools), exactly as a model sees it: the name, the description and`,
    "the JSON Schema of the params are the declaration itself (`toolwright tools --all` prints the same in the MCP, OpenAI,",
    "Anthropic or Gemini format). A deferred tool is not declared until `tool_search` reveals it; MCP upstream tools (from",
    "`--config`) are added behind `tool_search` as well and are not listed here.",
    "",
    "The hints are the MCP tool annotations derived from the Kind. \"Output\" is the per-call budget before truncation",
    "(see [output budgets](output-budgets.md)); every batch also shares the batch budget. Error codes are in [errors](errors.md).",
    "",
    "| tool | kind | declared | output | what it does |",
    "|---|---|---|---|---|",
    ...tools.map((t) => `| [\`${t.name}\`](#${t.name.replace(/[^a-z0-9_-]/gi, "").toLowerCase()}) | ${t.kind} | ${shownOf(t)} | ${escapeCell(budgetOf(t))} | ${escapeCell(summaryOf(t.description))} |`),
    ""
  ]
  for (const tool of tools) {
    const hints = mcpAnnotations(tool)
    const flags = [
      hints.readOnlyHint ? "read-only" : null,
      hints.destructiveHint ? "destructive" : null,
      hints.idempotentHint ? "idempotent" : null,
      hints.openWorldHint ? "open world" : null
    ].filter(Boolean)
    const params = paramRows(tool.parametersJsonSchema)
    lines.push(
      `## ${tool.name}`,
      "",
      `**${tool.displayName}** · Kind \`${tool.kind}\` · declared ${shownOf(tool)} · output ${budgetOf(tool)}` +
        (flags.length > 0 ? ` · ${flags.join(", ")}` : "") +
        (tool.searchHint ? ` · search hint: _${tool.searchHint}_` : ""),
      "",
      fence(tool.description),
      "",
      ...(params.length > 0
        ? ["| param | type | required | description |", "|---|---|---|---|", ...params]
        : ["No params."]),
      "",
      "<details><summary>JSON Schema of the params</summary>",
      "",
      "```json",
      JSON.stringify(tool.parametersJsonSchema, null, 2),
      "```",
      "",
      "</details>",
      ""
    )
  }
  return lines.join("\n")
}

const main = async () => {
  const text = render(await loadTools())
  const mode = process.argv[2]
  if (mode === "--stdout") {
    process.stdout.write(text)
    return
  }
  if (mode === "--check") {
    const committed = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : ""
    if (committed !== text) {
      process.stderr.write("docs/tools-reference.md is stale: the tool declarations changed. Run `npm run gen:docs` and commit the result.\n")
      process.exitCode = 1
    }
    return
  }
  fs.writeFileSync(target, text)
  process.stdout.write(`wrote ${path.relative(repoRoot, target)}\n`)
}

await main()
