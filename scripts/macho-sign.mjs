// Ad-hoc code signatures for thin 64-bit Mach-O executables, written and checked on any OS.
//
// macOS runs nothing on Apple silicon without a valid signature, and injecting the SEA blob drops the one
// Node's binary came with (postject's LIEF removes LC_CODE_SIGNATURE). Apple's `codesign -s -` is
// macOS-only; a signer installable from a registry (crates.io apple-codesign's rcodesign) took over an hour
// to build on our 2 shared cores and no npm package signs, so this writes the ad-hoc signature itself, as
// `codesign -s -` lays it out (Apple's xnu osfmk/kern/cs_blobs.h and the cs_validate_* checks of
// bsd/kern/ubc_subr.c describe every field):
//   LC_CODE_SIGNATURE -> (at the end of __LINKEDIT, 16-byte aligned) a SuperBlob (0xfade0cc0) of
//   - a CodeDirectory (0xfade0c02, version 0x20400): flags CS_ADHOC, the identifier, SHA-256 of every
//     4096-byte page of the file before the signature (codeLimit), special slot -2 = the hash of the
//     requirements blob, slot -1 (Info.plist) zero; execSeg = __TEXT with CS_EXECSEG_MAIN_BINARY;
//   - an empty Requirements set (0xfade0c01, count 0);
//   - an empty CMS wrapper (0xfade0b01): an ad-hoc signature has no certificate.
// No hardened runtime flag and no entitlements: Node's JIT needs none then (what Node's SEA guide gets
// with `codesign --sign -`). All big-endian, as the kernel reads them. Same input, same bytes.
// `verifyAdhocSignature` re-derives every hash; the tests also run it on signatures made by other signers.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { LC, readMachO } from './executables.mjs';

const PAGE = 4096;
const PAGE_LOG2 = 12;
const HASH_SHA256 = 2;
const HASH_SIZE = 32;
const CD_VERSION = 0x20400;
const CD_HEADER = 88; // CodeDirectory fields through execSegFlags (version 0x20400)
const CS_ADHOC = 0x2;
const CS_EXECSEG_MAIN_BINARY = 0x1;
const MAGIC = {
  superBlob: 0xfade0cc0,
  codeDirectory: 0xfade0c02,
  requirements: 0xfade0c01,
  wrapper: 0xfade0b01,
};
const SLOT = { codeDirectory: 0, requirements: 2, signature: 0x10000 };
const N_SPECIAL = 2; // -1 Info.plist (none: zeros), -2 requirements
const SEGMENT_ALIGN = 0x4000n; // arm64's page size: __LINKEDIT's vmsize is a multiple of it

const sha256 = (b) => createHash('sha256').update(b).digest();
const align = (n, a) => Math.ceil(n / a) * a;

function signatureBlobs(identifier, codeLimit, hashPages, text, executable) {
  const requirements = Buffer.alloc(12);
  requirements.writeUInt32BE(MAGIC.requirements, 0);
  requirements.writeUInt32BE(12, 4);
  requirements.writeUInt32BE(0, 8);
  const wrapper = Buffer.alloc(8);
  wrapper.writeUInt32BE(MAGIC.wrapper, 0);
  wrapper.writeUInt32BE(8, 4);

  const ident = Buffer.from(`${identifier}\0`, 'utf8');
  const nCodeSlots = Math.ceil(codeLimit / PAGE);
  const hashOffset = CD_HEADER + ident.length + N_SPECIAL * HASH_SIZE;
  const cd = Buffer.alloc(hashOffset + nCodeSlots * HASH_SIZE);
  cd.writeUInt32BE(MAGIC.codeDirectory, 0);
  cd.writeUInt32BE(cd.length, 4);
  cd.writeUInt32BE(CD_VERSION, 8);
  cd.writeUInt32BE(CS_ADHOC, 12);
  cd.writeUInt32BE(hashOffset, 16);
  cd.writeUInt32BE(CD_HEADER, 20); // identOffset
  cd.writeUInt32BE(N_SPECIAL, 24);
  cd.writeUInt32BE(nCodeSlots, 28);
  cd.writeUInt32BE(codeLimit, 32); // < 4 GiB: codeLimit64 stays 0
  cd[36] = HASH_SIZE;
  cd[37] = HASH_SHA256;
  cd[38] = 0; // platform
  cd[39] = PAGE_LOG2;
  // 40 spare2, 44 scatterOffset, 48 teamOffset, 52 spare3, 56 codeLimit64: zero
  cd.writeBigUInt64BE(BigInt(text.fileoff), 64); // execSegBase
  cd.writeBigUInt64BE(BigInt(text.filesize), 72); // execSegLimit
  cd.writeBigUInt64BE(executable ? BigInt(CS_EXECSEG_MAIN_BINARY) : 0n, 80);
  ident.copy(cd, CD_HEADER);
  sha256(requirements).copy(cd, hashOffset - 2 * HASH_SIZE); // slot -2
  hashPages(cd, hashOffset);

  const blobs = [
    [SLOT.codeDirectory, cd],
    [SLOT.requirements, requirements],
    [SLOT.signature, wrapper],
  ];
  const headerSize = 12 + blobs.length * 8;
  const length = headerSize + blobs.reduce((n, [, b]) => n + b.length, 0);
  const superBlob = Buffer.alloc(length);
  superBlob.writeUInt32BE(MAGIC.superBlob, 0);
  superBlob.writeUInt32BE(length, 4);
  superBlob.writeUInt32BE(blobs.length, 8);
  let offset = headerSize;
  blobs.forEach(([type, blob], i) => {
    superBlob.writeUInt32BE(type, 12 + i * 8);
    superBlob.writeUInt32BE(offset, 16 + i * 8);
    blob.copy(superBlob, offset);
    offset += blob.length;
  });
  return superBlob;
}

/** The size the signature of a file whose signed part is `codeLimit` bytes takes (16-byte aligned). */
function signatureSize(identifier, codeLimit) {
  const ident = Buffer.byteLength(identifier, 'utf8') + 1;
  const cd = CD_HEADER + ident + (N_SPECIAL + Math.ceil(codeLimit / PAGE)) * HASH_SIZE;
  return align(12 + 3 * 8 + cd + 12 + 8, 16);
}

/**
 * `buf` (a thin 64-bit Mach-O file) signed ad hoc as `identifier`: any signature it had is replaced, a
 * missing LC_CODE_SIGNATURE is added (in the room between the load commands and the first section), and
 * the signature is appended at the end of __LINKEDIT, which must be the last thing in the file.
 */
export function signAdhoc(buf, identifier) {
  const m = readMachO(buf, identifier);
  const linkedit = m.segments.find((s) => s.name === '__LINKEDIT');
  const text = m.segments.find((s) => s.name === '__TEXT');
  if (!linkedit || !text) throw new Error(`${identifier}: no __LINKEDIT or __TEXT segment`);
  const contentEnd = m.signature ? m.signature.dataoff : linkedit.fileoff + linkedit.filesize;
  if (
    linkedit.fileoff + linkedit.filesize <
    (m.signature ? m.signature.dataoff + m.signature.datasize : contentEnd)
  )
    throw new Error(`${identifier}: the code signature is outside __LINKEDIT`);
  if (!m.signature && contentEnd !== buf.length)
    throw new Error(`${identifier}: __LINKEDIT does not end the file (${contentEnd} of ${buf.length} bytes)`);
  const dataoff = align(contentEnd, 16);
  const datasize = signatureSize(identifier, dataoff);
  const out = Buffer.alloc(dataoff + datasize);
  buf.copy(out, 0, 0, Math.min(contentEnd, buf.length));

  let at = m.signature?.at;
  if (at === undefined) {
    // A new load command, in the padding after the last one (it must be zeros and end before any section).
    const ncmds = out.readUInt32LE(16);
    const sizeofcmds = out.readUInt32LE(20);
    at = 32 + sizeofcmds;
    const firstSection = Math.min(
      ...m.segments.flatMap((s) => s.sections.filter((x) => x.offset > 0).map((x) => x.offset)),
    );
    if (at + 16 > firstSection || out.subarray(at, at + 16).some((b) => b !== 0))
      throw new Error(`${identifier}: no room for LC_CODE_SIGNATURE after the load commands`);
    out.writeUInt32LE(ncmds + 1, 16);
    out.writeUInt32LE(sizeofcmds + 16, 20);
    out.writeUInt32LE(LC.CODE_SIGNATURE, at);
    out.writeUInt32LE(16, at + 4);
  }
  out.writeUInt32LE(dataoff, at + 8);
  out.writeUInt32LE(datasize, at + 12);
  const filesize = dataoff + datasize - linkedit.fileoff;
  out.writeBigUInt64LE(BigInt(filesize), linkedit.at + 48);
  const vmsize = ((BigInt(filesize) + SEGMENT_ALIGN - 1n) / SEGMENT_ALIGN) * SEGMENT_ALIGN;
  if (vmsize > linkedit.vmsize) out.writeBigUInt64LE(vmsize, linkedit.at + 32);

  // The header edits above are in page 0: hash after them.
  const blob = signatureBlobs(
    identifier,
    dataoff,
    (cd, hashOffset) => {
      for (let page = 0, slot = hashOffset; page < dataoff; page += PAGE, slot += HASH_SIZE)
        sha256(out.subarray(page, Math.min(page + PAGE, dataoff))).copy(cd, slot);
    },
    text,
    m.executable,
  );
  blob.copy(out, dataoff);
  return out;
}

/**
 * Checks `buf`'s code signature as the kernel validates an ad-hoc one: LC_CODE_SIGNATURE inside
 * __LINKEDIT at the end of the file; a SuperBlob whose CodeDirectory covers exactly the bytes before the
 * signature with SHA-256 page hashes that match; the requirements slot's hash matches its blob. Returns
 * { identifier, flags, adhoc, pages, cdhash }; throws naming the first mismatch.
 */
export function verifyAdhocSignature(buf, what = 'Mach-O file') {
  const fail = (why) => {
    throw new Error(`${what}: ${why}`);
  };
  const m = readMachO(buf, what);
  if (!m.signature) fail('not signed (no LC_CODE_SIGNATURE)');
  const { dataoff, datasize } = m.signature;
  const linkedit = m.segments.find((s) => s.name === '__LINKEDIT');
  if (!linkedit || dataoff < linkedit.fileoff || dataoff + datasize > linkedit.fileoff + linkedit.filesize)
    fail('the signature is not inside __LINKEDIT');
  if (dataoff + datasize > buf.length) fail('the signature runs past the end of the file');
  const sig = buf.subarray(dataoff, dataoff + datasize);
  if (sig.readUInt32BE(0) !== MAGIC.superBlob) fail('no SuperBlob at the signature offset');
  const count = sig.readUInt32BE(8);
  const blobs = new Map();
  for (let i = 0; i < count; i++) blobs.set(sig.readUInt32BE(12 + i * 8), sig.readUInt32BE(16 + i * 8));
  const cdAt = blobs.get(SLOT.codeDirectory);
  if (cdAt === undefined) fail('no CodeDirectory');
  const cd = sig.subarray(cdAt, cdAt + sig.readUInt32BE(cdAt + 4));
  if (cd.readUInt32BE(0) !== MAGIC.codeDirectory) fail('bad CodeDirectory magic');
  const flags = cd.readUInt32BE(12);
  const hashOffset = cd.readUInt32BE(16);
  const identifier = cd.toString('utf8', cd.readUInt32BE(20), cd.indexOf(0, cd.readUInt32BE(20)));
  const nSpecial = cd.readUInt32BE(24);
  const nCode = cd.readUInt32BE(28);
  const codeLimit = cd.readUInt32BE(32);
  if (cd[36] !== HASH_SIZE || cd[37] !== HASH_SHA256) fail(`hash type ${cd[37]} size ${cd[36]}, not SHA-256`);
  const pageSize = cd[39] === 0 ? codeLimit : 2 ** cd[39];
  if (codeLimit !== dataoff) fail(`codeLimit ${codeLimit} is not the signature offset ${dataoff}`);
  if (nCode !== Math.ceil(codeLimit / pageSize)) fail(`${nCode} page hashes for ${codeLimit} bytes`);
  for (let page = 0; page < nCode; page++) {
    const start = page * pageSize;
    const want = cd.subarray(hashOffset + page * HASH_SIZE, hashOffset + (page + 1) * HASH_SIZE);
    if (!sha256(buf.subarray(start, Math.min(start + pageSize, codeLimit))).equals(want))
      fail(`page ${page} (bytes ${start}..) does not match its hash`);
  }
  const reqAt = blobs.get(SLOT.requirements);
  if (reqAt !== undefined && nSpecial >= 2) {
    const req = sig.subarray(reqAt, reqAt + sig.readUInt32BE(reqAt + 4));
    if (!sha256(req).equals(cd.subarray(hashOffset - 2 * HASH_SIZE, hashOffset - HASH_SIZE)))
      fail('the requirements blob does not match its special slot');
  }
  return {
    identifier,
    flags,
    adhoc: (flags & CS_ADHOC) !== 0,
    pages: nCode,
    cdhash: sha256(cd).subarray(0, 20).toString('hex'),
  };
}
