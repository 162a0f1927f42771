import { assert, describe, it } from "@effect/vitest"
import {
  directoryTarget,
  errnoCode,
  failureReason,
  isMissing,
  readRefusal,
  restateWriteFailure,
  writeFailureWith,
  writeRefusal,
  writeRefusalWith
} from "../../src/tool/errno.js"
import { DiskError } from "../../src/disk/index.js"
import { writeFailure } from "../../src/write/index.js"

const nodeError = (code: string) => Object.assign(new Error(`${code}: raw node text, open '/x'`), { code })

describe("errno → tool error, in one place", () => {
  it("EDQUOT maps like ENOSPC on every write path: the mutation path (edit, write_file, notebook_edit, sed -i), the plan files, the state directory", () => {
    const disk = (code: string) => new DiskError({ op: "rename", path: "/w/a.txt", code, message: `${code}: raw node text` })
    const text = { message: "Cannot save. Tell the user.", display: "cannot save" }
    for (const code of ["ENOSPC", "EDQUOT"]) {
      const mutation = writeFailure("/w/a.txt", disk(code))
      assert.strictEqual(mutation.code, "no_space_left", code)
      assert.isTrue(mutation.message.startsWith(`No space left on device: /w/a.txt (${code}). `), mutation.message)
      assert.strictEqual(writeFailureWith(disk(code), text).code, "no_space_left", code)
      assert.strictEqual(restateWriteFailure(writeFailureWith(disk(code), text), text).code, "no_space_left", code)
    }
    assert.include(writeFailure("/w/a.txt", disk("EDQUOT")).message, "disk quota is exhausted")
    assert.strictEqual(writeFailureWith(disk("EIO"), text).code, "file_write_failure")
    assert.strictEqual(writeFailureWith(disk("EROFS"), text).code, "permission_denied")
    assert.strictEqual(errnoCode(disk("EDQUOT")), "EDQUOT")
  })

  it("writes: EACCES/EPERM/EROFS → permission_denied, ENOSPC/EDQUOT → no_space_left, the rest is the caller's", () => {
    for (const code of ["EACCES", "EPERM", "EROFS"]) assert.strictEqual(writeRefusal(nodeError(code), "/w/a")?.code, "permission_denied", code)
    for (const code of ["ENOSPC", "EDQUOT"]) assert.strictEqual(writeRefusal(nodeError(code), "/w/a")?.code, "no_space_left", code)
    for (const code of ["EIO", "ENOENT", "EISDIR", "EBUSY", undefined]) assert.isUndefined(writeRefusal(code, "/w/a"), String(code))
  })

  it("reads: only EACCES/EPERM are refusals (a read never runs out of space)", () => {
    assert.strictEqual(readRefusal("EACCES", "/w/a")?.code, "permission_denied")
    assert.strictEqual(readRefusal({ code: "EPERM" }, "/w/a")?.code, "permission_denied")
    for (const code of ["ENOSPC", "EROFS", "EIO", "ENOENT", undefined]) assert.isUndefined(readRefusal(code, "/w/a"), String(code))
  })

  it("messages name the path, the operation and the errno, say what to do next, and never carry Node's raw text", () => {
    const denied = writeRefusal(nodeError("EACCES"), "/w/a.txt")!
    assert.isTrue(denied.message.startsWith("Permission denied writing to file: /w/a.txt (EACCES). "), denied.message)
    assert.include(denied.message, "tell the user")
    assert.notInclude(denied.message, "raw node text")
    assert.strictEqual(denied.display, "Permission denied writing to file: /w/a.txt (EACCES)")
    const read = readRefusal("EACCES", "/w/a.txt")!
    assert.isTrue(read.message.startsWith("Permission denied reading file: /w/a.txt (EACCES). "), read.message)
    assert.include(read.message, "does not let toolwright's user read it")
    const listing = readRefusal("EACCES", "/w/d", "listing directory")!
    assert.isTrue(listing.message.startsWith("Permission denied listing directory: /w/d (EACCES). "), listing.message)
    const readOnly = writeRefusal("EROFS", "/w/a.txt")!
    assert.isTrue(readOnly.message.startsWith("Read-only file system: /w/a.txt (EROFS). "), readOnly.message)
    const full = writeRefusal("ENOSPC", "/w/a.txt")!
    assert.isTrue(full.message.startsWith("No space left on device: /w/a.txt (ENOSPC). The device is full; nothing was written"), full.message)
    assert.include(writeRefusal("EDQUOT", "/w/a.txt")!.message, "disk quota is exhausted")
  })

  it("EISDIR → target_is_directory; ENOENT/ENOTDIR are 'missing'; the caller's own words keep the class", () => {
    assert.strictEqual(directoryTarget("EISDIR", "/w/d")?.code, "target_is_directory")
    assert.isUndefined(directoryTarget("EACCES", "/w/d"))
    assert.isTrue(isMissing(nodeError("ENOENT")))
    assert.isTrue(isMissing("ENOTDIR"))
    assert.isFalse(isMissing("EACCES"))
    const own = { message: "Could not create the state directory. Tell the user.", display: "cannot create" }
    assert.strictEqual(writeRefusalWith("EPERM", own)?.code, "permission_denied")
    assert.strictEqual(writeRefusalWith("ENOSPC", own)?.message, own.message)
    assert.isUndefined(writeRefusalWith("EIO", own))
  })

  it("errnoCode and failureReason: the code when there is one, else the failure's text", () => {
    assert.strictEqual(errnoCode(nodeError("EIO")), "EIO")
    assert.isUndefined(errnoCode(new Error("plain")))
    assert.isUndefined(errnoCode({ code: 3 }))
    assert.strictEqual(failureReason(nodeError("EIO")), "EIO")
    assert.strictEqual(failureReason(new Error("plain")), "plain")
    assert.strictEqual(failureReason("text"), "text")
  })
})
