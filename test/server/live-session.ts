// A language server over stdio beside a test API server, for a suite: the cluster seeded, a
// kubeconfig for it in the server's KUBECONFIG, the workspace (a folder, or files written into a
// fresh directory), a temporary directory for the history; everything closed after the suite.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApiServer, type KubeObject, type TestApiServer } from '../kube/apiserver';
import { startLspSession, type LspSession } from './lsp-client';

export interface LiveServerSetup {
  /** Namespaces created before the objects. */
  readonly namespaces: readonly string[];
  readonly objects: readonly KubeObject[];
  /** The kubeconfig's one context. */
  readonly context: { readonly name: string; readonly namespace: string };
  /** A workspace folder, or the files of one (name → text). */
  readonly workspace: string | Readonly<Record<string, string>>;
}

export interface LiveServer {
  readonly api: TestApiServer;
  readonly session: LspSession;
  /** The suite's directory: the history is `history.db` in it; a workspace given as files is written there. */
  readonly dir: string;
}

export function useLiveServer(setup: LiveServerSetup): LiveServer {
  let started: LiveServer | undefined;
  before(async () => {
    const api = await startTestApiServer();
    api.create(...setup.namespaces.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })));
    api.create(...setup.objects);
    const dir = mkdtempSync(join(tmpdir(), 'podplan-live-server-'));
    let folder = dir;
    if (typeof setup.workspace === 'string') folder = setup.workspace;
    else for (const [name, text] of Object.entries(setup.workspace)) writeFileSync(join(dir, name), text);
    const kubeconfig = await api.writeKubeconfig({ contexts: [setup.context] });
    const session = await startLspSession(folder, { historyDatabase: join(dir, 'history.db') }, { KUBECONFIG: kubeconfig });
    started = { api, session, dir };
  });
  after(async () => {
    await started?.session.shutdown();
    await started?.api.close();
    if (started) rmSync(started.dir, { recursive: true, force: true });
  });
  const get = (): LiveServer => {
    assert.ok(started, 'useLiveServer: the suite has not started');
    return started;
  };
  return {
    get api() {
      return get().api;
    },
    get session() {
      return get().session;
    },
    get dir() {
      return get().dir;
    },
  };
}
