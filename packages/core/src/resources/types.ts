/** One file of a resource set: where it comes from in the pinned repository and where it goes locally. */
export interface ResourceFile {
  /** Path inside the installed resource directory. */
  path: string;
  /** Path inside the source repository at the pinned commit (defaults to `path`). */
  source?: string;
  /**
   * Hex sha256 of the file's bytes. Downloads that do not match are rejected. Required unless `gitBlobSha1` pins the
   * file; a file with neither makes `fetchResourceSet` refuse the whole set before downloading anything.
   */
  sha256?: string;
  /**
   * Git blob id of the file at the pinned commit (hex sha1 of `"blob <size>\0" + bytes`, what `git hash-object`
   * prints and the repository's tree lists): pins a file whose sha256 could not be computed when the set was declared
   * (no copy available). Downloads are verified against it; the sha256 of the verified bytes goes to the manifest.
   */
  gitBlobSha1?: string;
  /** Size in bytes, when known (shown by `resources list`). */
  bytes?: number;
  /** Repository (`owner/name`) of this file when it is not the set's `repo`; `commit` is then required too. */
  repo?: string;
  /** Full 40-hex commit of this file's `repo`. */
  commit?: string;
}

/** A named set of files at a pinned commit of a public repository. */
export interface ResourceSet {
  name: string;
  description: string;
  /** `owner/name` on GitHub. */
  repo: string;
  /** Full 40-hex commit. */
  commit: string;
  /** Licence of the files as stated by their repository. */
  license: string;
  /** Environment variable that points at an existing directory with these files. */
  envVar: string;
  /** Packages that read this set. */
  usedBy: string[];
  files: ResourceFile[];
  /**
   * Named post-install step (run by whoever fetches, e.g. the CLI, with the package that owns it):
   * for sets whose final layout is derived from the downloaded files.
   */
  prepare?: string;
}
