/**
 * Small executables built byte by byte for the tests of scripts/executables.mjs and scripts/macho-sign.mjs
 * (the real ones are Node's 70-100 MB binaries, fetched only by `npm run package`):
 * - `machO`: a thin 64-bit MH_EXECUTE with __PAGEZERO, __TEXT (one __text section), LC_MAIN, optionally
 *   the SEA segment NODE_SEA/__NODE_SEA_BLOB and a flipped fuse, and __LINKEDIT ending the file (odd size);
 * - `pe`: a PE32+ console program with .text and a .rsrc holding RT_RCDATA "NODE_SEA_BLOB", optionally
 *   with an Authenticode certificate table appended (data directory 4).
 * Layouts: Apple's <mach-o/loader.h>; Microsoft's PE/COFF specification.
 */
import { Buffer } from 'node:buffer';

const FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const CPU = { x64: 0x01000007, arm64: 0x0100000c } as const;

function segment(
  name: string,
  fileoff: number,
  filesize: number,
  sections: Array<[string, number, number]>,
): Buffer {
  const b = Buffer.alloc(72 + sections.length * 80);
  b.writeUInt32LE(0x19, 0);
  b.writeUInt32LE(b.length, 4);
  b.write(name, 8, 'latin1');
  b.writeBigUInt64LE(0x100000000n + BigInt(fileoff), 24); // vmaddr
  b.writeBigUInt64LE(BigInt(Math.ceil(filesize / 0x4000) * 0x4000), 32); // vmsize
  b.writeBigUInt64LE(BigInt(fileoff), 40);
  b.writeBigUInt64LE(BigInt(filesize), 48);
  b.writeUInt32LE(sections.length, 64);
  sections.forEach(([sect, offset, size], i) => {
    const s = 72 + i * 80;
    b.write(sect, s, 'latin1');
    b.write(name, s + 16, 'latin1');
    b.writeBigUInt64LE(0x100000000n + BigInt(offset), s + 32);
    b.writeBigUInt64LE(BigInt(size), s + 40);
    b.writeUInt32LE(offset, s + 48);
  });
  return b;
}

export function machO(o: { cpu: 'x64' | 'arm64'; room?: number; fill?: number; seaBlob?: Buffer }): Buffer {
  const textEnd = 0x2000;
  const seaAt = textEnd;
  const linkeditAt = o.seaBlob ? seaAt + 0x1000 : textEnd;
  const linkeditSize = 0x1000 + 123;
  const pagezero = segment('__PAGEZERO', 0, 0, []);
  const main = Buffer.alloc(24);
  main.writeUInt32LE(0x80000028, 0);
  main.writeUInt32LE(24, 4);
  main.writeBigUInt64LE(0x1000n, 8);
  const sizeWithoutText = pagezero.length + main.length + 72 + (o.seaBlob ? 72 + 80 : 0);
  const firstSection = o.room === undefined ? 0x1000 : 32 + sizeWithoutText + 72 + 80 + o.room;
  const text = segment('__TEXT', 0, textEnd, [['__text', firstSection, 0x800]]);
  const cmds = [
    pagezero,
    text,
    ...(o.seaBlob
      ? [segment('NODE_SEA', seaAt, 0x1000, [['__NODE_SEA_BLOB', seaAt, o.seaBlob.length]])]
      : []),
    main,
    segment('__LINKEDIT', linkeditAt, linkeditSize, []),
  ];
  const file = Buffer.alloc(linkeditAt + linkeditSize);
  file.writeUInt32LE(0xfeedfacf, 0);
  file.writeUInt32LE(CPU[o.cpu], 4);
  file.writeUInt32LE(2, 12); // MH_EXECUTE
  file.writeUInt32LE(cmds.length, 16);
  file.writeUInt32LE(
    cmds.reduce((n, c) => n + c.length, 0),
    20,
  );
  Buffer.concat(cmds).copy(file, 32);
  for (let i = firstSection; i < textEnd; i++) file[i] = (i * 31 + (o.fill ?? 1)) & 0xff;
  if (o.seaBlob) {
    file.write(`${FUSE}:1`, firstSection + 0x100, 'latin1');
    o.seaBlob.copy(file, seaAt);
  }
  for (let i = linkeditAt; i < file.length; i++) file[i] = (i * 7) & 0xff;
  return file;
}

export function pe(o: { blob: Buffer; certificate?: boolean }): Buffer {
  const FILE_ALIGN = 0x200;
  const textRaw = 0x400;
  const rsrcRaw = 0x600;
  const rsrcRva = 0x2000;
  // .rsrc: root dir -> type 10 -> name "NODE_SEA_BLOB" -> language 0 -> data entry -> the name string, the data.
  const rsrc = Buffer.alloc(FILE_ALIGN * 2);
  const dir = (at: number, named: number, ids: number) => {
    rsrc.writeUInt16LE(named, at + 12);
    rsrc.writeUInt16LE(ids, at + 14);
  };
  dir(0, 0, 1);
  rsrc.writeUInt32LE(10, 16); // RT_RCDATA
  rsrc.writeUInt32LE(0x80000000 + 24, 20);
  dir(24, 1, 0);
  const nameAt = 96;
  rsrc.writeUInt32LE(0x80000000 + nameAt, 40);
  rsrc.writeUInt32LE(0x80000000 + 48, 44);
  dir(48, 0, 1);
  rsrc.writeUInt32LE(0, 64); // language
  rsrc.writeUInt32LE(80, 68); // -> data entry (a leaf)
  const dataAt = 128;
  rsrc.writeUInt32LE(rsrcRva + dataAt, 80);
  rsrc.writeUInt32LE(o.blob.length, 84);
  rsrc.writeUInt16LE('NODE_SEA_BLOB'.length, nameAt);
  rsrc.write('NODE_SEA_BLOB', nameAt + 2, 'utf16le');
  o.blob.copy(rsrc, dataAt);

  const file = Buffer.alloc(rsrcRaw + rsrc.length);
  file.write('MZ', 0, 'latin1');
  file.writeUInt32LE(0x40, 0x3c);
  const pe = 0x40;
  file.writeUInt32BE(0x50450000, pe);
  file.writeUInt16LE(0x8664, pe + 4);
  file.writeUInt16LE(2, pe + 6); // sections
  file.writeUInt16LE(240, pe + 20); // optional header size
  file.writeUInt16LE(0x22, pe + 22); // executable image, large address aware
  const opt = pe + 24;
  file.writeUInt16LE(0x20b, opt);
  file.writeUInt32LE(0x1010, opt + 16); // entry point
  file.writeUInt16LE(3, opt + 68); // console subsystem
  file.writeUInt32LE(16, opt + 108);
  file.writeUInt32LE(rsrcRva, opt + 112 + 2 * 8);
  file.writeUInt32LE(rsrc.length, opt + 112 + 2 * 8 + 4);
  const section = (i: number, name: string, rva: number, raw: number, size: number) => {
    const s = opt + 240 + i * 40;
    file.write(name, s, 'latin1');
    file.writeUInt32LE(size, s + 8);
    file.writeUInt32LE(rva, s + 12);
    file.writeUInt32LE(size, s + 16);
    file.writeUInt32LE(raw, s + 20);
  };
  section(0, '.text', 0x1000, textRaw, FILE_ALIGN);
  section(1, '.rsrc', rsrcRva, rsrcRaw, rsrc.length);
  file.write(`${FUSE}:1`, textRaw + 0x20, 'latin1');
  rsrc.copy(file, rsrcRaw);
  if (!o.certificate) return file;
  const cert = Buffer.alloc(64, 0xab);
  file.writeUInt32LE(file.length, opt + 112 + 4 * 8);
  file.writeUInt32LE(cert.length, opt + 112 + 4 * 8 + 4);
  return Buffer.concat([file, cert]);
}
