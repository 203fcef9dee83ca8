// Types of scripts/archive.mjs for the TypeScript tests.
export interface ArchiveEntry {
  /** Path inside the archive. */
  name: string;
  /** Path on disk. */
  file: string;
}
export function reproducibleTarGz(entries: readonly ArchiveEntry[], mtime: number): Buffer;
export function writeReproducibleTarGz(out: string, entries: readonly ArchiveEntry[], mtime: number): void;
