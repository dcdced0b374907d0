import assert from 'node:assert/strict';
import { startLspSession, type LspSession } from './lsp-client';

describe('server (over stdio)', () => {
  let session: LspSession;
  before(async () => (session = await startLspSession('examples')));
  after(async () => session.close());

  it('answers initialize with its name and incremental document sync', () => {
    assert.equal(session.initialize.serverInfo?.name, 'podplan');
    assert.equal(session.initialize.capabilities.textDocumentSync, 2);
  });
});
