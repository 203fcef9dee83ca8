// Types of scripts/macho-sign.mjs for the TypeScript tests.
export function signAdhoc(buf: Buffer, identifier: string): Buffer;
export function verifyAdhocSignature(
  buf: Buffer,
  what?: string,
): { identifier: string; flags: number; adhoc: boolean; pages: number; cdhash: string };
