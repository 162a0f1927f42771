// How each sized scenario's cost grows with its size: the exponent k in cost ∝ size^k for each step
// between consecutive sizes (k ≈ 1 linear, k < 1 better, k > 1 worse), for ours and for the limit
// measured beside it. The verdict reads the last step, where fixed costs weigh least. A scenario
// explains super-linear growth with `growthWhy` on its rows.

/** The numeric size of a row ("10 MB", "10,000 files", "25 × 1 MB", "1000 deferred tools"), or undefined. */
export const sizeValue = (size) => {
  const m = /^([\d,.]+)(?:\s*×\s*([\d,.]+))?\s*(MB|MiB|GB)?\b/.exec(String(size).trim())
  if (m === null) return undefined
  const n = Number(m[1].replaceAll(",", ""))
  const times = m[2] === undefined ? 1 : Number(m[2].replaceAll(",", ""))
  return Number.isFinite(n) && Number.isFinite(times) ? n * times : undefined
}

/** Cost of a row at its size: time for time units, time per byte turned back into time for throughput. */
const cost = (row, n, value) => (row.unit === "MB/s" ? n / value : value)

/** The exponent between two (size, cost) points. */
const exponent = (a, b) => Math.log(b.cost / a.cost) / Math.log(b.n / a.n)

/** Groups rows by scenario (the "(fixed cost)" rows join their scenario) and unit. */
const groups = (rows) => {
  const out = new Map()
  for (const row of rows) {
    const n = sizeValue(row.size)
    if (n === undefined || !Number.isFinite(row.ours)) continue
    const key = `${row.scenario.replace(/\s*\(fixed cost\)$/, "")}|${row.unit}`
    const list = out.get(key) ?? []
    list.push({ row, n })
    out.set(key, list)
  }
  return [...out.entries()]
    .map(([key, list]) => ({ scenario: key.split("|")[0], list: list.sort((a, b) => a.n - b.n) }))
    .filter((g) => g.list.length >= 2 && g.list[0].n < g.list[g.list.length - 1].n)
}

/**
 * Growth rows: scenario, sizes, ours and the limit at each size, the two exponents, and a verdict.
 * `k ≤ 1.15` counts as linear or better (timer noise at small sizes moves k by a few hundredths).
 */
export const growthRows = (rows) =>
  groups(rows).map(({ scenario, list }) => {
    const point = (e, field) => ({ n: e.n, cost: cost(e.row, e.n, e.row[field]) })
    const steps = (field) => list.slice(1).map((e, i) => exponent(point(list[i], field), point(e, field)))
    const oursSteps = steps("ours")
    const limitSteps = list.every((e) => Number.isFinite(e.row.limit)) ? steps("limit") : []
    const ours = oursSteps[oursSteps.length - 1]
    const limit = limitSteps.length > 0 ? limitSteps[limitSteps.length - 1] : NaN
    const why = list.map((e) => e.row.growthWhy).find((w) => w !== undefined)
    const verdict = ours <= 1.15
      ? (ours < 0.85 ? "better than linear" : "linear")
      : `super-linear${Number.isFinite(limit) && limit > 1.15 ? ", as the limit is" : ""}${why ? `: ${why}` : ""}`
    return {
      scenario,
      sizes: list.map((e) => e.row.size).join(" → "),
      ours: list.map((e) => e.row.ours),
      limit: list.map((e) => e.row.limit),
      unit: list[0].row.unit,
      k: oursSteps,
      kLimit: limitSteps,
      verdict
    }
  })

/** The growth section of docs/benchmarks.md. */
export const growthTable = (rows, fmt) => growthRows(rows).length === 0 ? "(No scenario in this run has sizes to compare.)" : [
  "| scenario | sizes | ours | limit | unit | k per step (ours) | k per step (limit) | growth (last step) |",
  "|---|---|---|---|---|---|---|---|",
  ...growthRows(rows).map((g) =>
    `| ${g.scenario} | ${g.sizes} | ${g.ours.map((x) => fmt(x)).join(" → ")} | ${g.limit.every(Number.isFinite) ? g.limit.map((x) => fmt(x)).join(" → ") : "—"} | ${g.unit} | ${g.k.map((k) => fmt(k, 2)).join(", ")} | ${g.kLimit.length > 0 ? g.kLimit.map((k) => fmt(k, 2)).join(", ") : "—"} | ${g.verdict} |`)
].join("\n")
