/** CSV writing (RFC 4180) that is safe to open in a spreadsheet. */

/** Characters that make a spreadsheet read a cell as a formula (OWASP "CSV injection"). */
const formulaStart = /^[=+\-@\t\r]/
const needsQuotes = /[",\r\n]/

/** One cell: prefixed with a single quote when it would start a formula, quoted when it holds a quote, comma or line
 *  break (inner quotes doubled). */
export const csvCell = (value: string): string => {
  const inert = formulaStart.test(value) ? `'${value}` : value
  return needsQuotes.test(inert) ? `"${inert.replace(/"/g, '""')}"` : inert
}

/** One record, ended with CRLF as RFC 4180 asks. */
export const csvRow = (cells: ReadonlyArray<string>): string => `${cells.map(csvCell).join(",")}\r\n`
