/** A plain-text table, columns padded to their widest cell, as kubectl prints; `paint` colours a padded cell (row -1: the header). */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  paint?: (text: string, row: number, column: number) => string,
): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[], row: number) =>
    cells
      .map((c, i) => {
        const padded = i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0);
        if (!paint) return padded;
        // Only the text is painted, not the padding after it.
        const text = padded.trimEnd();
        return paint(text, row, i) + padded.slice(text.length);
      })
      .join('   ')
      .trimEnd();
  return [line(header, -1), ...rows.map((r, i) => line(r, i))].join('\n');
}
