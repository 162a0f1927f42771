/**
 * Recycling an inode number on purpose: replace a file atomically (temp + rename frees its inode),
 * then create files beside it until one gets the freed number. ext4, xfs and overlayfs hand a freed
 * number out again within a few tries; other processes creating files at the same moment may take it
 * first, so callers retry the whole scenario a few times.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** New files tried per attempt before giving up on this freed number. */
export const MAX_TRIES = 500

/** Scenarios a test tries before failing: each frees a new inode. */
export const MAX_ATTEMPTS = 8

/**
 * Replaces `file` atomically with `replacement` and creates files (with `content`) in its directory
 * until one reuses the old inode: that file's path, or undefined (the ones that did not are removed).
 */
export const replaceAndReuseInode = (file: string, replacement: string, content: string): string | undefined => {
  const dir = path.dirname(file)
  const oldIno = fs.statSync(file).ino
  const temp = path.join(dir, `.${path.basename(file)}.tmp`)
  fs.writeFileSync(temp, replacement)
  fs.renameSync(temp, file)
  for (let i = 0; i < MAX_TRIES; i++) {
    const candidate = path.join(dir, `new-${path.basename(file)}-${i}.txt`)
    fs.writeFileSync(candidate, content)
    if (fs.statSync(candidate).ino === oldIno) return candidate
    fs.rmSync(candidate)
  }
  return undefined
}
