// Bundle entry: `dist/cli.js`. Kept tiny so the launcher loads nothing but oclif before parsing argv.
export { main } from './cli/run.js';
