// Small text helpers for the server tests: a cursor marked in a text, edits applied to a text.
import type { Position, TextEdit, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';

/** The text without its `|` marker, and the marker's position. */
export function cursor(marked: string): { text: string; position: Position } {
  const offset = marked.indexOf('|');
  if (offset < 0) throw new Error('no | in the text');
  const text = marked.slice(0, offset) + marked.slice(offset + 1);
  return { text, position: TextDocument.create('x', 'yaml', 0, text).positionAt(offset) };
}

export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  return TextDocument.applyEdits(TextDocument.create('x', 'yaml', 0, text), [...edits]);
}

/** The texts of the documents a workspace edit changes, after the edit. */
export function applyWorkspaceEdit(edit: WorkspaceEdit, textOf: (uri: string) => string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) out.set(uri, applyEdits(textOf(uri), edits));
  return out;
}
