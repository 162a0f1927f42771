// Runs one scenario in this process and prints its rows as JSON on the last line.
import * as path from "node:path"
import { pathToFileURL } from "node:url"

const [file, smokeArg] = process.argv.slice(2)
const smoke = smokeArg === "smoke"
const mod = await import(pathToFileURL(path.resolve(file)).href)
const rows = await mod.run({ runs: smoke ? 1 : 5, smoke })
console.log(JSON.stringify(rows))
process.exit(0)
