/**
 * A cell that starts with = + - @, a tab or a carriage return (or their full-width forms, which Apple
 * Numbers reads alike) opens as a formula in a spreadsheet, so a vessel named `=HYPERLINK(...)` would
 * run in whoever opens the export. The export puts a single quote before such a cell, which
 * spreadsheets show as text, and the import takes that one quote off again. Cells that already start
 * with quotes before such a character get one more, so that taking one off always gives back the value
 * exported: the round trip stays exact.
 */
const FORMULA_START = /^'*[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** The cell as the CSV export writes it. */
export const neutraliseFormula = (value: string): string => (FORMULA_START.test(value) ? `'${value}` : value);

/** The value a CSV cell stands for: undoes neutraliseFormula, and leaves any other cell as it is. */
export const restoreFormula = (cell: string): string => (cell.startsWith("'") && FORMULA_START.test(cell) ? cell.slice(1) : cell);
