import assert from 'node:assert/strict';
import { defaultDatabasePath, type Env } from '../../src/store/paths';

describe('store/paths: where the history lives by default', () => {
  const cases: Array<[string, Env, NodeJS.Platform, string, string]> = [
    ['PODPLAN_DB wins everywhere', { PODPLAN_DB: '/srv/podplan.db', XDG_DATA_HOME: '/data' }, 'linux', '/home/ana', '/srv/podplan.db'],
    ['Linux: $XDG_DATA_HOME/podplan', { XDG_DATA_HOME: '/data' }, 'linux', '/home/ana', '/data/podplan/history.db'],
    ['Linux: ~/.local/share/podplan without XDG_DATA_HOME', {}, 'linux', '/home/ana', '/home/ana/.local/share/podplan/history.db'],
    [
      'Linux: a relative XDG_DATA_HOME is ignored, as the spec says',
      { XDG_DATA_HOME: 'data' },
      'linux',
      '/home/ana',
      '/home/ana/.local/share/podplan/history.db',
    ],
    ['other Unixes follow XDG too', {}, 'freebsd', '/home/ana', '/home/ana/.local/share/podplan/history.db'],
    [
      'macOS: ~/Library/Application Support/podplan',
      { XDG_DATA_HOME: '/data' },
      'darwin',
      '/Users/ana',
      '/Users/ana/Library/Application Support/podplan/history.db',
    ],
    [
      'Windows: %APPDATA%\\podplan',
      { APPDATA: 'C:\\Users\\ana\\AppData\\Roaming' },
      'win32',
      'C:\\Users\\ana',
      'C:\\Users\\ana\\AppData\\Roaming\\podplan\\history.db',
    ],
    [
      'Windows without APPDATA: the roaming folder under the home directory',
      {},
      'win32',
      'C:\\Users\\ana',
      'C:\\Users\\ana\\AppData\\Roaming\\podplan\\history.db',
    ],
  ];
  for (const [name, env, platform, home, expected] of cases) {
    it(name, () => assert.equal(defaultDatabasePath(env, platform, home), expected));
  }
});
