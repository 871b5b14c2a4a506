/** Plain-text tables for a terminal: columns padded to the widest cell, cells already escaped by the caller. */
export function textTable(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = headers.map((header, column) => Math.max([...header].length, ...rows.map((row) => [...(row[column] ?? '')].length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell + ' '.repeat(widths[column]! - [...cell].length)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)];
}

/** Epoch seconds as `2026-11-27T04:30:09Z`, or the value escaped when it is not a sane time. */
export function isoTime(epochSeconds: unknown): string {
  if (typeof epochSeconds !== 'number' || !Number.isFinite(epochSeconds) || epochSeconds < 0 || epochSeconds > 253402300799) return '(invalid time)';
  return new Date(Math.floor(epochSeconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
