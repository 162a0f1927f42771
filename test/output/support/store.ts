// A fresh OutputStore over a fresh temp dir, for the store tests.
import { createHash } from "node:crypto"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import { OutputStore } from "../../../src/output/index.js"

/** Runs `body` with a fresh store whose dir (`subdirs` inside a temp dir) does not exist yet. */
export const withStore = <A, E>(
  options: { readonly maxFileBytes?: number; readonly maxSessionBytes?: number },
  body: (store: OutputStore["Service"], dir: string) => Effect.Effect<A, E, FileSystem.FileSystem | Path.Path>,
  subdirs: ReadonlyArray<string> = ["sub", "outputs"]
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const root = yield* fs.makeTempDirectoryScoped({ prefix: "toolwright-output-" })
    const dir = path.join(root, ...subdirs)
    return yield* Effect.gen(function*() {
      return yield* body(yield* OutputStore, dir)
    }).pipe(Effect.provide(OutputStore.layer({ dir, ...options })))
  }).pipe(Effect.provide(NodeServices.layer))

/** SHA-256 of a string's UTF-8 bytes, hex. */
export const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex")
