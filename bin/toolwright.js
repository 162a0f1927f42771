#!/usr/bin/env node
// Runs the CLI. `npm run build` (and `npm pack`, through `prepack`) builds dist/: dist/cli (tsc output) and
// dist/bundle (the same code bundled, which starts several times faster).
import * as module from "node:module"

// Node 22+ keeps compiled code between runs; Node 20 has no such cache and simply skips this.
module.enableCompileCache?.()

// Modules given with --tools-module import `toolwright` and `effect` from node_modules: the session
// must run on that same copy of Effect, so those runs use the unbundled build.
const usesToolModules = process.argv.some((arg) => arg === "--tools-module" || arg.startsWith("--tools-module="))
await import(usesToolModules ? "../dist/cli/main.js" : "../dist/bundle/main.js")
