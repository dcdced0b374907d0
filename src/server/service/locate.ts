// From manifests' source ranges (1-based lines and columns, file offsets) to LSP ranges (0-based),
// and from an object's relative path to where a problem about it is shown.
import type { Range } from 'vscode-languageserver';
import { concatPath, type Located, type SourceMap, type SourceRange } from '../../manifests';
import type { Anchor } from './schema';

/** A file's name as a message shows it: the last part of its URI (the model names files by URI). */
export const fileNameOf = (uri: string): string => decodeURIComponent(uri.slice(uri.lastIndexOf('/') + 1));

export function lspRange(r: SourceRange): Range {
  return { start: { line: r.start.line - 1, character: r.start.column - 1 }, end: { line: r.end.line - 1, character: r.end.column - 1 } };
}

/** The range of `path` (from the document's root) as an anchor asks: its value, its key, or one line. */
export function anchorRange(source: SourceMap, path: string, anchor: Anchor): Range {
  if (anchor === 'line') return lspRange(source.locateLine(path));
  if (anchor === 'key') {
    const key = source.keyRange(path);
    if (key) return lspRange(key);
  }
  return lspRange(source.locate(path));
}

/** The range of `path` relative to a located object. */
export function rangeIn(located: Located<unknown>, path: string, anchor: Anchor = 'value'): Range {
  return anchorRange(located.source, concatPath(located.base, path), anchor);
}

/** Whether a position lies within a range (ends included: a cursor right after a word is on it). */
export function contains(range: Range, line: number, character: number): boolean {
  if (line < range.start.line || line > range.end.line) return false;
  if (line === range.start.line && character < range.start.character) return false;
  return !(line === range.end.line && character > range.end.character);
}
