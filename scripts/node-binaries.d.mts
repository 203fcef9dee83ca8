// Types of scripts/node-binaries.mjs for the TypeScript tests.
export interface NodePlatform {
  id: string;
  os: 'linux' | 'darwin' | 'windows';
  cpu: 'x64' | 'arm64';
  krew: { os: string; arch: string };
  npm: string;
  file: string;
  exe: string;
  sameMajor?: boolean;
}
export const PLATFORMS: NodePlatform[];
export function platformById(id: string): NodePlatform;
export function hostPlatform(): NodePlatform | undefined;
export function nodeCacheDir(env?: NodeJS.ProcessEnv): string;
export function integrityOf(data: Buffer): string;
export function nodeBinary(
  platform: NodePlatform,
  options?: { wanted?: string; cacheDir?: string; log?: (line: string) => void },
): { data: Buffer; package: string; version: string; integrity: string; tarball?: string; notice?: string };
export function tarFile(tar: Buffer, name: string): Buffer | undefined;
