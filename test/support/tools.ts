/**
 * The real helm and kustomize binaries the tests run: the versions Argo CD 3.6 runs (and the last helm 3.x),
 * installed by `npm run tools` (scripts/tools.sh) into src/source `toolsDir()`. A test that needs one uses
 * `realTool(name)`: under CI=true a missing binary FAILS the test (CI must run them: .ci/run installs them);
 * on a developer machine without them the test is skipped with a loud line on stderr saying how to install.
 */
import { accessSync, constants } from 'node:fs';
import { bundledToolPath, TOOL_VERSIONS, type BundledTool } from '../../src/source/render/tool-versions.js';

const ci = process.env['CI'] === 'true';
const told = new Set<string>();

function present(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface RealTool {
  /** The binary's absolute path (it may be missing: then `skip` says so, or the test fails in CI). */
  path: string;
  version: string;
  /** For `it(name, { skip }, ...)`: false when the binary is there (or in CI, where missing must fail). */
  skip: string | false;
  /** Throws (failing the test) when the binary is missing: call first in the test body. */
  require(): string;
}

export function realTool(tool: BundledTool): RealTool {
  const path = bundledToolPath(tool);
  const version = TOOL_VERSIONS[tool];
  const name = tool === 'kustomize' ? 'kustomize' : 'helm';
  const there = present(path);
  const why = `${name} ${version} is not installed at ${path}: run \`npm run tools\``;
  if (!there && !ci && !told.has(tool)) {
    told.add(tool);
    process.stderr.write(`\n!!! NOT TESTED: ${why} (the real-${name} tests are skipped) !!!\n\n`);
  }
  return {
    path,
    version,
    skip: there || ci ? false : `NOT TESTED: ${why}`,
    require() {
      if (!present(path)) throw new Error(`${why} (CI must run the real-${name} tests)`);
      return path;
    },
  };
}
