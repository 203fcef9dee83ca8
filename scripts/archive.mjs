// A reproducible .tar.gz: the same files give the same bytes on every build and machine, so a krew
// manifest's sha256 stays valid when the archive is rebuilt from the same commit
// (https://reproducible-builds.org/docs/archives/).
// - entries sorted by name; one fixed mtime (SOURCE_DATE_EPOCH when set); owner root:root (uid/gid 0);
//   mode 0755 for executables and 0644 for everything else; regular files only, no directories;
// - plain POSIX ustar headers (no pax or GNU extension records carrying atimes, ctimes or user names);
// - gzip through zlib with no file name and mtime 0 in its header (Node's zlib writes both as absent).
import { Buffer } from 'node:buffer';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const BLOCK = 512;
// GNU tar's default record (blocking factor 20): the archive is padded to a multiple of it, as tar does.
const RECORD = 20 * BLOCK;

function octal(value, width) {
  // width - 1 octal digits and a NUL, as ustar numeric fields are written.
  const text = value.toString(8).padStart(width - 1, '0');
  if (text.length > width - 1) throw new Error(`${value} does not fit a ${width}-byte tar field`);
  return `${text}\0`;
}

function header(name, size, mode, mtime) {
  if (Buffer.byteLength(name) > 100) throw new Error(`${name}: tar entry name longer than 100 bytes`);
  const h = Buffer.alloc(BLOCK);
  const put = (offset, text) => h.write(text, offset, 'utf8');
  put(0, name);
  put(100, octal(mode, 8));
  put(108, octal(0, 8)); // uid
  put(116, octal(0, 8)); // gid
  put(124, octal(size, 12));
  put(136, octal(mtime, 12));
  put(148, '        '); // checksum field counts as spaces while summing
  put(156, '0'); // regular file
  put(257, 'ustar\0');
  put(263, '00');
  put(265, 'root');
  put(297, 'root');
  let sum = 0;
  for (const byte of h) sum += byte;
  put(148, `${sum.toString(8).padStart(6, '0')}\0 `);
  return h;
}

/**
 * The gzipped tar of `entries` ({ name: path inside the archive, file: path on disk }).
 * `mtime` is seconds since the epoch for every entry.
 */
export function reproducibleTarGz(entries, mtime) {
  const parts = [];
  for (const { name, file } of [...entries].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  )) {
    const data = readFileSync(file);
    const executable = (statSync(file).mode & 0o111) !== 0;
    parts.push(header(name, data.length, executable ? 0o755 : 0o644, mtime), data);
    const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(2 * BLOCK)); // end of archive
  let tar = Buffer.concat(parts);
  if (tar.length % RECORD) tar = Buffer.concat([tar, Buffer.alloc(RECORD - (tar.length % RECORD))]);
  return gzipSync(tar, { level: 9 });
}

export function writeReproducibleTarGz(out, entries, mtime) {
  writeFileSync(out, reproducibleTarGz(entries, mtime));
}
