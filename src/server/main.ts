// The language server process entry (dist/server.cjs): stdio or IPC, chosen by the client's
// arguments (--stdio, --node-ipc), as vscode-languageserver's createConnection decides.
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { startServer } from './server';
import { errorDetail } from '../engine/api/errors';

const connection = createConnection(ProposedFeatures.all);
// Handlers catch their own failures; anything that still escapes is logged, and the server stays up
// for the editor rather than dying with the user's work open.
process.on('uncaughtException', (e) => connection.console.error(`[podplan] uncaught: ${e.stack ?? e.message}`));
process.on('unhandledRejection', (e) => connection.console.error(`[podplan] unhandled rejection: ${errorDetail(e)}`));
// A process warning (a dependency's DeprecationWarning) is a warning in the log, not an error; the
// client starts this process with --no-warnings so Node does not also print it to stderr.
process.on('warning', (w) => connection.console.warn(`[podplan] ${w.name}: ${w.message}`));
startServer(connection);
