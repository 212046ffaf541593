import { execFileSync } from "node:child_process";

/** The code a run measured: the commit, and whether the work tree differed from it. */
export interface Revision {
  readonly commit: string | null;
  /** True when apps/ or packages/ had uncommitted changes (other engineers' edits included). */
  readonly dirty: boolean;
}

/** Reads the revision of the repository at `root`; nulls when git is unavailable. */
export function readRevision(root: string): Revision {
  try {
    const git = (...args: string[]) =>
      execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();
    const commit = git("rev-parse", "--short=12", "HEAD");
    const dirty = git("status", "--porcelain", "--untracked-files=no", "--", "apps", "packages");
    return { commit, dirty: dirty.length > 0 };
  } catch {
    return { commit: null, dirty: false };
  }
}
