// The protocol between the language server and its clients (docs/architecture.md, Layers).
export * from './commands';
export * from './digest';
export * from './initialization';
export * from './requests';
export type * from './webview';
