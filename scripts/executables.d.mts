// Types of scripts/executables.mjs for the TypeScript tests.
export const SEA_FUSE: string;
export const SEA_RESOURCE: string;
export const MACHO_SEA_SEGMENT: string;
export interface Platform {
  os: string;
  cpu: string;
}
export interface MachOSegment {
  at: number;
  name: string;
  vmaddr: bigint;
  vmsize: bigint;
  fileoff: number;
  filesize: number;
  sections: Array<{ name: string; segment: string; addr: bigint; size: number; offset: number }>;
}
export interface MachO {
  format: 'macho';
  machine: string;
  filetype: number;
  executable: boolean;
  segments: MachOSegment[];
  entryoff?: bigint;
  signature?: { at: number; dataoff: number; datasize: number };
}
export function fuseState(buf: Buffer): string | undefined;
export function readElf(
  buf: Buffer,
  what?: string,
): {
  format: 'elf';
  type: string;
  machine: string;
  entry: bigint;
  interpreter?: string;
  notes: Array<{ name: string; offset: number; size: number }>;
};
export function readMachO(buf: Buffer, what?: string): MachO;
export function readPe(
  buf: Buffer,
  what?: string,
): {
  format: 'pe';
  machine: string;
  executable: boolean;
  console: boolean;
  entry: number;
  entrySection?: string;
  sections: Array<{ name: string; vsize: number; rva: number; rawSize: number; rawOffset: number }>;
  resources: Array<{ type: number | string; name: number | string; offset: number; size: number }>;
  certificates: { rva: number; size: number };
};
export function removePeSignature(buf: Buffer): Buffer;
export function peChecksum(buf: Buffer, checksumAt: number): number;
export function checkSeaExecutable(buf: Buffer, platform: Platform, blob?: Buffer, what?: string): string;
