import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ConfigProvider, Effect } from "effect"

/** A fresh temp directory (real path), removed when the test's scope closes. */
export const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tw-session-")))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** Runs `effect` with a config provider that sees only `env` (not the process environment). */
export const withEnv = (env: Record<string, string>) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(effect, ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(env))

/** Writes `content` to `file`, creating parent directories. */
export const write = (file: string, content = "") => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, content)
}
