/**
 * Help width when stdout is not a terminal: oclif wraps `--help` at the terminal's width, at
 * `OCLIF_COLUMNS`, or else at 80 columns; `COLUMNS` (set by shells and CI systems, and by users who pipe
 * help into a pager of another width) is honoured too. oclif reads the variable once, when @oclif/core
 * loads, so this module is imported before it (first import of src/cli/run.ts).
 */
if (!process.env['OCLIF_COLUMNS'] && !process.stdout.isTTY && Number(process.env['COLUMNS']) > 0) {
  process.env['OCLIF_COLUMNS'] = process.env['COLUMNS'];
}
