// CPU per grep_search call through a session: this process plus the ripgrep processes it reaped
// (utime/stime and cutime/cstime of /proc/self/stat, 10 ms ticks), for the build in
// TOOLWRIGHT_BENCH_DIST (default: this checkout's dist). Linux only. Where wall time is swamped by
// load, run it for two builds in turn (docs/benchmarks.md, issue 18, session 19):
//   node bench/grep-cpu.mjs ROOT CALLS [PATTERN] [LIMIT]
// ROOT: a tree such as bench/lib.mjs's generateSearchTree(root, 100_000) makes.
import * as fs from "node:fs"
import { benchSession } from "./lib.mjs"

const [root, calls = "4", pattern = "needle 99990", limit] = process.argv.slice(2)
if (root === undefined) throw new Error("usage: node bench/grep-cpu.mjs ROOT CALLS [PATTERN] [LIMIT]")
const ticks = () => fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ").slice(11, 15).map(Number)
const s = await benchSession(root)
const args = limit === undefined ? { pattern } : { pattern, limit: Number(limit) }
for (let i = 0; i < 2; i++) await s.call("grep_search", args)
const [u0, s0, cu0, cs0] = ticks()
const t0 = performance.now()
for (let i = 0; i < Number(calls); i++) await s.call("grep_search", args)
const [u1, s1, cu1, cs1] = ticks()
const per = (t) => Math.round((t * 10) / Number(calls))
console.log(JSON.stringify({
  wallMs: Math.round((performance.now() - t0) / Number(calls)),
  nodeCpuMs: per(u1 - u0 + s1 - s0),
  rgCpuMs: per(cu1 - cu0 + cs1 - cs0),
  totalCpuMs: per(u1 - u0 + s1 - s0 + cu1 - cu0 + cs1 - cs0)
}))
await s.dispose()
