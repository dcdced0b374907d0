// Where the history lives when the caller has no better place (the extension passes its global
// storage; the CLI takes --db). Pure in its inputs so every platform's rule is testable anywhere.
import { homedir } from 'node:os';
import path from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

/** PODPLAN_DB, else the platform's per-user data directory + podplan/history.db. */
export function defaultDatabasePath(
  env: Env = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  const explicit = env['PODPLAN_DB'];
  if (explicit) return explicit;
  if (platform === 'win32') {
    const appData = env['APPDATA'] || path.win32.join(home, 'AppData', 'Roaming');
    return path.win32.join(appData, 'podplan', 'history.db');
  }
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Application Support', 'podplan', 'history.db');
  // The XDG spec says a relative XDG_DATA_HOME is invalid and is to be ignored.
  const xdg = env['XDG_DATA_HOME'];
  const dataHome = xdg && path.posix.isAbsolute(xdg) ? xdg : path.posix.join(home, '.local', 'share');
  return path.posix.join(dataHome, 'podplan', 'history.db');
}
