// The server's reads of the workspace folders from disk: every YAML file under them at start
// (breadth first, within limits), and one file again after the client says it changed.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { errorDetail } from '../engine/api/errors';

export const YAML_FILE = /\.ya?ml$/i;
/** Folders never holding manifests worth reading, and big enough to slow the first read. */
const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git', 'dist', 'out', '.vscode-test', '.cache']);
/** Larger files are left out (a manifest this big is generated output, not something edited here). */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
const MAX_FILES = 20_000;

/** The text of the file at `uri`; undefined when it is gone, too big or not a file (a failure other than gone is logged). */
export async function readYamlFile(uri: string, log: (message: string) => void): Promise<string | undefined> {
  try {
    const file = fileURLToPath(uri);
    const info = await stat(file);
    if (!info.isFile() || info.size > MAX_FILE_BYTES) return undefined;
    return await readFile(file, 'utf8');
  } catch (e) {
    // Gone between the event and the read: a delete event follows.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') log(`reading ${uri} failed: ${errorDetail(e)}`);
    return undefined;
  }
}

/** Hands every YAML file under the `file:` folders to `found`, breadth first, within the limits above. */
export async function scanFolders(
  roots: readonly string[],
  found: (uri: string, text: string) => void,
  log: (message: string) => void,
): Promise<void> {
  const queue = roots.flatMap((uri) => (uri.startsWith('file:') ? [fileURLToPath(uri)] : []));
  let files = 0;
  while (queue.length > 0 && files < MAX_FILES) {
    const dir = queue.shift() as string;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (e) {
      log(`listing ${dir} failed: ${errorDetail(e)}`);
      continue;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name)) queue.push(full);
      else if (entry.isFile() && YAML_FILE.test(entry.name) && files++ < MAX_FILES) {
        const uri = pathToFileURL(full).toString();
        const text = await readYamlFile(uri, log);
        if (text !== undefined) found(uri, text);
      }
    }
  }
}
