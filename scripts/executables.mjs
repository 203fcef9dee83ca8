// Readers of the three executable formats `npm run package` writes (ELF, Mach-O, PE), enough to check a
// single executable application without running it: the format and CPU, the entry point, and that Node's
// SEA blob is where Node looks for it (postject-api.h):
// - ELF: a PT_NOTE segment holding a note named NODE_SEA_BLOB whose descriptor is the blob;
// - Mach-O: the section __NODE_SEA_BLOB of the segment NODE_SEA;
// - PE: the RT_RCDATA resource named NODE_SEA_BLOB.
// and that the sentinel fuse is flipped (NODE_SEA_FUSE_...:1), which tells Node the blob is there.
// Layouts: the ELF-64 gABI, Apple's <mach-o/loader.h>, Microsoft's PE/COFF specification. Only what the
// checks need is read: 64-bit little-endian files.
import { Buffer } from 'node:buffer';

export const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
export const SEA_RESOURCE = 'NODE_SEA_BLOB';
export const MACHO_SEA_SEGMENT = 'NODE_SEA';

const cstring = (buf, start, max) => {
  const end = buf.indexOf(0, start);
  return buf.toString('latin1', start, end < 0 || end > start + max ? start + max : end);
};

function fail(what, why) {
  throw new Error(`${what}: ${why}`);
}

/** The sentinel fuse's state: '1' once a blob was injected, '0' in a plain Node binary. */
export function fuseState(buf) {
  const at = buf.indexOf(`${SEA_FUSE}:`);
  if (at < 0) return undefined;
  if (buf.indexOf(`${SEA_FUSE}:`, at + 1) >= 0) return 'duplicate';
  return String.fromCharCode(buf[at + SEA_FUSE.length + 1]);
}

// ---------------------------------------------------------------------------------------------- ELF
const ELF_MACHINES = { 0x3e: 'x64', 0xb7: 'arm64' };

export function readElf(buf, what = 'ELF file') {
  if (buf.readUInt32BE(0) !== 0x7f454c46) fail(what, 'not an ELF file');
  if (buf[4] !== 2 || buf[5] !== 1) fail(what, 'not a 64-bit little-endian ELF file');
  const type = buf.readUInt16LE(16);
  const machine = ELF_MACHINES[buf.readUInt16LE(18)] ?? `machine ${buf.readUInt16LE(18)}`;
  const entry = buf.readBigUInt64LE(24);
  const phoff = Number(buf.readBigUInt64LE(32));
  const phentsize = buf.readUInt16LE(54);
  const phnum = buf.readUInt16LE(56);
  const notes = [];
  let interpreter;
  for (let i = 0; i < phnum; i++) {
    const p = phoff + i * phentsize;
    const ptype = buf.readUInt32LE(p);
    const offset = Number(buf.readBigUInt64LE(p + 8));
    const filesz = Number(buf.readBigUInt64LE(p + 32));
    if (ptype === 3) interpreter = cstring(buf, offset, filesz);
    if (ptype !== 4) continue; // PT_NOTE
    // Notes: namesz, descsz, type, then name and descriptor, each padded to 4 bytes.
    for (let n = offset; n + 12 <= offset + filesz;) {
      const namesz = buf.readUInt32LE(n);
      const descsz = buf.readUInt32LE(n + 4);
      const name = cstring(buf, n + 12, namesz);
      const desc = n + 12 + Math.ceil(namesz / 4) * 4;
      notes.push({ name, offset: desc, size: descsz });
      n = desc + Math.ceil(descsz / 4) * 4;
    }
  }
  return {
    format: 'elf',
    type: type === 2 ? 'executable' : type === 3 ? 'shared' : `type ${type}`,
    machine,
    entry,
    interpreter,
    notes,
  };
}

// -------------------------------------------------------------------------------------------- Mach-O
export const CPU = { x64: 0x01000007, arm64: 0x0100000c };
export const LC = { SEGMENT_64: 0x19, CODE_SIGNATURE: 0x1d, MAIN: 0x80000028 };

/** A thin 64-bit Mach-O file's header, segments (with sections), entry point and signature location. */
export function readMachO(buf, what = 'Mach-O file') {
  const magic = buf.readUInt32LE(0);
  if (magic === 0xbebafeca || magic === 0xcafebabe)
    fail(what, 'a universal (fat) Mach-O file; expected a thin one');
  if (magic !== 0xfeedfacf) fail(what, 'not a 64-bit Mach-O file');
  const cputype = buf.readUInt32LE(4);
  const machine = Object.keys(CPU).find((k) => CPU[k] === cputype) ?? `cputype 0x${cputype.toString(16)}`;
  const filetype = buf.readUInt32LE(12);
  const ncmds = buf.readUInt32LE(16);
  const sizeofcmds = buf.readUInt32LE(20);
  const segments = [];
  let entryoff;
  let signature;
  let at = 32;
  for (let i = 0; i < ncmds; i++) {
    const cmd = buf.readUInt32LE(at);
    const cmdsize = buf.readUInt32LE(at + 4);
    if (cmdsize < 8 || at + cmdsize > 32 + sizeofcmds) fail(what, `load command ${i} runs past the header`);
    if (cmd === LC.SEGMENT_64) {
      const seg = {
        at,
        name: cstring(buf, at + 8, 16),
        vmaddr: buf.readBigUInt64LE(at + 24),
        vmsize: buf.readBigUInt64LE(at + 32),
        fileoff: Number(buf.readBigUInt64LE(at + 40)),
        filesize: Number(buf.readBigUInt64LE(at + 48)),
        sections: [],
      };
      const nsects = buf.readUInt32LE(at + 64);
      for (let s = 0; s < nsects; s++) {
        const sec = at + 72 + s * 80;
        seg.sections.push({
          name: cstring(buf, sec, 16),
          segment: cstring(buf, sec + 16, 16),
          addr: buf.readBigUInt64LE(sec + 32),
          size: Number(buf.readBigUInt64LE(sec + 40)),
          offset: buf.readUInt32LE(sec + 48),
        });
      }
      segments.push(seg);
    } else if (cmd === LC.MAIN) {
      entryoff = buf.readBigUInt64LE(at + 8);
    } else if (cmd === LC.CODE_SIGNATURE) {
      signature = { at, dataoff: buf.readUInt32LE(at + 8), datasize: buf.readUInt32LE(at + 12) };
    }
    at += cmdsize;
  }
  return { format: 'macho', machine, filetype, executable: filetype === 2, segments, entryoff, signature };
}

// ----------------------------------------------------------------------------------------------- PE
const PE_MACHINES = { 0x8664: 'x64', 0xaa64: 'arm64' };
const RT_RCDATA = 10;

/** A PE32+ file's machine, entry point, sections, and resources by type and name. */
export function readPe(buf, what = 'PE file') {
  if (buf.toString('latin1', 0, 2) !== 'MZ') fail(what, 'not a PE file (no MZ header)');
  const pe = buf.readUInt32LE(0x3c);
  if (buf.readUInt32BE(pe) !== 0x50450000) fail(what, 'not a PE file (no PE signature)');
  const machine =
    PE_MACHINES[buf.readUInt16LE(pe + 4)] ?? `machine 0x${buf.readUInt16LE(pe + 4).toString(16)}`;
  const nsections = buf.readUInt16LE(pe + 6);
  const optSize = buf.readUInt16LE(pe + 20);
  const characteristics = buf.readUInt16LE(pe + 22);
  const opt = pe + 24;
  if (buf.readUInt16LE(opt) !== 0x20b) fail(what, 'not a PE32+ (64-bit) file');
  const entry = buf.readUInt32LE(opt + 16);
  const subsystem = buf.readUInt16LE(opt + 68);
  const dirs = opt + 112;
  const dir = (i) => ({ rva: buf.readUInt32LE(dirs + i * 8), size: buf.readUInt32LE(dirs + i * 8 + 4) });
  const sections = [];
  for (let i = 0; i < nsections; i++) {
    const s = opt + optSize + i * 40;
    sections.push({
      name: cstring(buf, s, 8),
      vsize: buf.readUInt32LE(s + 8),
      rva: buf.readUInt32LE(s + 12),
      rawSize: buf.readUInt32LE(s + 16),
      rawOffset: buf.readUInt32LE(s + 20),
    });
  }
  const fileOffset = (rva) => {
    const s = sections.find((x) => rva >= x.rva && rva < x.rva + Math.max(x.vsize, x.rawSize));
    if (!s) fail(what, `RVA 0x${rva.toString(16)} is in no section`);
    return s.rawOffset + (rva - s.rva);
  };
  const resources = [];
  const res = dir(2);
  if (res.rva) {
    const base = fileOffset(res.rva);
    const entries = (off) => {
      const named = buf.readUInt16LE(off + 12);
      const ids = buf.readUInt16LE(off + 14);
      const out = [];
      for (let i = 0; i < named + ids; i++) {
        const e = off + 16 + i * 8;
        const nameField = buf.readUInt32LE(e);
        const target = buf.readUInt32LE(e + 4);
        let key;
        if (nameField & 0x80000000) {
          const s = base + (nameField & 0x7fffffff);
          key = buf.toString('utf16le', s + 2, s + 2 + buf.readUInt16LE(s) * 2);
        } else key = nameField;
        out.push({ key, dir: (target & 0x80000000) !== 0, off: base + (target & 0x7fffffff) });
      }
      return out;
    };
    for (const type of entries(base)) {
      if (!type.dir) continue;
      for (const name of entries(type.off)) {
        if (!name.dir) continue;
        for (const lang of entries(name.off)) {
          if (lang.dir) continue;
          const rva = buf.readUInt32LE(lang.off);
          const size = buf.readUInt32LE(lang.off + 4);
          resources.push({ type: type.key, name: name.key, offset: fileOffset(rva), size });
        }
      }
    }
  }
  return {
    format: 'pe',
    machine,
    executable: (characteristics & 0x2) !== 0 && (characteristics & 0x2000) === 0,
    console: subsystem === 3,
    entry,
    entrySection: sections.find((s) => entry >= s.rva && entry < s.rva + s.vsize)?.name,
    sections,
    resources,
    certificates: dir(4),
  };
}

/**
 * Drops a PE file's Authenticode signature (the certificate table: a file range at the end, named by data
 * directory 4), as `signtool remove /s` does: injecting a resource invalidates it, and Windows then shows
 * the file as signed with a bad signature instead of unsigned. Returns the file unchanged when unsigned.
 */
export function removePeSignature(buf) {
  const { certificates } = readPe(buf);
  if (!certificates.rva) return buf;
  const end = certificates.rva + certificates.size;
  if (end !== buf.length && buf.subarray(end).some((b) => b !== 0))
    throw new Error('PE file: the certificate table is not at the end of the file');
  const out = Buffer.from(buf.subarray(0, certificates.rva));
  const pe = out.readUInt32LE(0x3c);
  const opt = pe + 24;
  out.writeUInt32LE(0, opt + 112 + 4 * 8);
  out.writeUInt32LE(0, opt + 112 + 4 * 8 + 4);
  out.writeUInt32LE(peChecksum(out, opt + 64), opt + 64);
  return out;
}

/** The PE optional header's CheckSum (imagehlp's CheckSumMappedFile): 16-bit one's-complement sum + size. */
export function peChecksum(buf, checksumAt) {
  let sum = 0;
  for (let i = 0; i < buf.length; i += 2) {
    if (i === checksumAt || i === checksumAt + 2) continue;
    sum += i + 1 < buf.length ? buf.readUInt16LE(i) : buf[i];
    sum = (sum & 0xffff) + (sum >>> 16);
  }
  sum = (sum & 0xffff) + (sum >>> 16);
  return (sum + buf.length) >>> 0;
}

// --------------------------------------------------------------------------------------------- checks
/**
 * What a single executable built for `platform` ({ os: linux|darwin|windows, cpu: x64|arm64 }) must be:
 * that OS's executable format for that CPU with an entry point, the blob injected where Node finds it
 * (byte for byte `blob` when given), and the fuse flipped. Returns a one-line summary; throws naming what
 * is wrong.
 */
export function checkSeaExecutable(buf, platform, blob, what = 'executable') {
  const fuse = fuseState(buf);
  if (fuse !== '1')
    fail(what, `the SEA fuse is ${fuse === undefined ? 'missing' : `"${fuse}"`}, not flipped`);
  let found;
  let summary;
  if (platform.os === 'linux') {
    const elf = readElf(buf, what);
    if (elf.type !== 'executable' && elf.type !== 'shared') fail(what, `ELF ${elf.type}, not an executable`);
    if (elf.entry === 0n) fail(what, 'no entry point');
    found = elf.notes.find((n) => n.name === SEA_RESOURCE);
    summary = `ELF ${elf.machine} ${elf.type}, entry 0x${elf.entry.toString(16)}, interpreter ${elf.interpreter}`;
    check(elf.machine);
  } else if (platform.os === 'darwin') {
    const m = readMachO(buf, what);
    if (!m.executable) fail(what, `Mach-O file type ${m.filetype}, not an executable (MH_EXECUTE)`);
    if (m.entryoff === undefined) fail(what, 'no LC_MAIN entry point');
    const text = m.segments.find((s) => s.name === '__TEXT');
    if (!text || m.entryoff >= BigInt(text.filesize)) fail(what, 'the entry point is outside __TEXT');
    const seg = m.segments.find((s) => s.name === MACHO_SEA_SEGMENT);
    const sec = seg?.sections.find((s) => s.name === `__${SEA_RESOURCE}`);
    if (sec) found = { offset: sec.offset, size: sec.size };
    summary = `Mach-O ${m.machine} executable, LC_MAIN entry 0x${m.entryoff.toString(16)} in __TEXT`;
    check(m.machine);
  } else if (platform.os === 'windows') {
    const pe = readPe(buf, what);
    if (!pe.executable) fail(what, 'PE file is not an executable image');
    if (!pe.console) fail(what, 'PE file is not a console program');
    if (!pe.entrySection) fail(what, 'the entry point is in no section');
    const r = pe.resources.find((x) => x.type === RT_RCDATA && x.name === SEA_RESOURCE);
    if (r) found = { offset: r.offset, size: r.size };
    summary = `PE32+ ${pe.machine} console executable, entry RVA 0x${pe.entry.toString(16)} in ${pe.entrySection}`;
    check(pe.machine);
  } else fail(what, `unknown OS ${platform.os}`);
  if (!found) fail(what, `no ${SEA_RESOURCE} where Node looks for it`);
  if (blob && !buf.subarray(found.offset, found.offset + found.size).equals(blob))
    fail(what, `${SEA_RESOURCE} (${found.size} bytes) is not the blob built (${blob.length} bytes)`);
  return `${summary}; ${SEA_RESOURCE} ${found.size} bytes; fuse flipped`;

  function check(machine) {
    if (machine !== platform.cpu) fail(what, `built for ${machine}, expected ${platform.cpu}`);
  }
}
