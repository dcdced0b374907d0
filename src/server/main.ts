// The language server process entry (dist/server.cjs): stdio or IPC, chosen by the client's
// arguments (--stdio, --node-ipc), as vscode-languageserver's createConnection decides.
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { startServer } from './server';

startServer(createConnection(ProposedFeatures.all));
