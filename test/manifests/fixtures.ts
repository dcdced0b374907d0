// Fixture files for the manifests tests (test/fixtures/manifests) and a way to read what a range covers.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SourceRange } from '../../src/manifests';

const DIR = fileURLToPath(new URL('../fixtures/manifests/', import.meta.url));

/** A fixture as the API takes files: a name and its text. */
export function fixture(name: string): { name: string; text: string } {
  return { name, text: readFileSync(DIR + name, 'utf8') };
}

/** The text a range covers. */
export function covered(text: string, range: SourceRange): string {
  return text.slice(range.start.offset, range.end.offset);
}

/** `line:column` of where a range starts. */
export function at(range: SourceRange): string {
  return `${range.start.line}:${range.start.column}`;
}
