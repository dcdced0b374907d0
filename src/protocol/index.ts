// The protocol between the language server and its clients (DESIGN.md, Layers: src/protocol).
export * from './commands';
export type * from './initialization';
export * from './requests';
export type * from './webview';
