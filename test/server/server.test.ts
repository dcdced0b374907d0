import assert from 'node:assert/strict';
import { MessageType } from 'vscode-languageserver-protocol';
import { startLspSession, type LspSession } from './lsp-client';

describe('server (over stdio)', () => {
  let session: LspSession;
  before(async () => (session = await startLspSession('examples')));
  after(async () => session.shutdown());

  it('answers initialize with its name, incremental document sync and its features', () => {
    assert.equal(session.initialize.serverInfo?.name, 'podplan');
    const c = session.initialize.capabilities;
    assert.equal(c.textDocumentSync, 2);
  });

  const features = [
    'completionProvider',
    'hoverProvider',
    'codeActionProvider',
    'codeLensProvider',
    'documentSymbolProvider',
    'definitionProvider',
    'referencesProvider',
  ] as const;
  for (const feature of features) {
    it(`offers ${feature}`, () => assert.ok(session.initialize.capabilities[feature], `${feature} is not offered`));
  }

  it('asks to be told about YAML files changing on disk', () => {
    assert.deepEqual(session.registrations(), ['workspace/didChangeWatchedFiles']);
  });

  it('reads the example workspace without a problem', () => {
    assert.deepEqual(session.diagnostics(session.uri('cluster/podset.yaml')), []);
  });
});

describe('server log levels (over stdio)', () => {
  it('logs what the user may act on as a warning, not an error: a plan history it cannot open', async () => {
    // A database under a file cannot be created: the history is off, and the server runs on.
    const session = await startLspSession('examples', { historyDatabase: '/dev/null/podplan/history.db' });
    try {
      const logs = session.logs();
      assert.ok(
        logs.some((l) => l.type === MessageType.Warning && /plan history is off/.test(l.message)),
        JSON.stringify(logs),
      );
      assert.deepEqual(
        logs.filter((l) => l.type === MessageType.Error),
        [],
      );
    } finally {
      await session.shutdown();
    }
  });
});
