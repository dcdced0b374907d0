// The engine's way of putting a caught value into words, for the clients (the extension imports
// only the protocol).
export { errorMessage } from '../engine/api/errors';
