// What a caught value says, in one line of text: an Error's message, anything else as a string.
// Thrown values reach Podplan from libraries, the file system and plugins; every layer reports them
// the same way.

export function errorMessage(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}

/** With the stack where there is one: for logs, never for a user's message. */
export function errorDetail(thrown: unknown): string {
  return thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown);
}
