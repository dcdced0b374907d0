// ESLint rule that keeps the layers of docs/architecture.md apart: dependencies point down only.
// Each layer lists the other layers and the packages it may import; anything else is reported.
import path from 'node:path';

const SRC = path.resolve('src');
// The JSON schemas (also offered to other YAML tooling) are data a layer may bundle.
const SCHEMAS = path.resolve('schemas');

/** layer -> { layers it may import, packages it may import (prefix match) } */
export const LAYERS = {
  // @bufbuild/cel (and the protobuf runtime it builds on): pure CEL evaluation for DRA device selectors
  engine: { layers: [], packages: ['@bufbuild/cel', '@bufbuild/protobuf', 're2js', 'antlr4ng'] },
  // node-side implementations of the engine's injected seams (the system clock, the MILP solver)
  platform: { layers: ['engine'], packages: ['node:', 'highs'] },
  manifests: { layers: ['engine'], packages: ['yaml'] },
  store: { layers: ['engine', 'platform', 'manifests'], packages: ['better-sqlite3', 'node:'] },
  // the cluster: beside store, below server and cli; its objects go through manifests' decoder
  kube: { layers: ['engine', 'platform', 'manifests'], packages: ['@kubernetes/client-node', 'prom-client', 'node:'] },
  // the Pallet planner API over gRPC (server and client)
  rpc: { layers: ['engine', 'platform', 'manifests'], packages: ['@grpc/grpc-js', '@grpc/proto-loader', 'node:'] },
  protocol: { layers: ['engine'], packages: ['vscode-languageserver-protocol', 'vscode-jsonrpc'] },
  server: {
    layers: ['engine', 'platform', 'manifests', 'store', 'kube', 'rpc', 'protocol', 'schemas'],
    packages: ['vscode-languageserver', 'vscode-languageserver-textdocument', 'vscode-uri', 'yaml', 'node:'],
  },
  extension: { layers: ['protocol'], packages: ['vscode', 'vscode-languageclient', 'node:'] },
  cli: { layers: ['engine', 'platform', 'manifests', 'store', 'kube', 'rpc', 'protocol', 'server'], packages: ['node:', 'yaml'] },
  webview: { layers: ['protocol'], packages: ['@vscode-elements/elements'] },
};

function layerOf(file) {
  const abs = path.resolve(file);
  const webview = path.resolve('media/src');
  if (abs.startsWith(webview + path.sep)) return 'webview';
  if (abs.startsWith(SCHEMAS + path.sep)) return 'schemas';
  if (!abs.startsWith(SRC + path.sep)) return undefined;
  return abs.slice(SRC.length + 1).split(path.sep)[0];
}

function packageAllowed(source, allowed) {
  return allowed.some((p) => (p.endsWith(':') || p.endsWith('/') ? source.startsWith(p) : source === p || source.startsWith(p + '/')));
}

/** @type {import('eslint').Rule.RuleModule} */
export const layersRule = {
  meta: {
    type: 'problem',
    schema: [],
    messages: { forbidden: '{{from}} must not import "{{source}}" (docs/architecture.md, Layers: {{why}})' },
  },
  create(context) {
    const from = layerOf(context.filename);
    if (!from || !(from in LAYERS)) return {};
    const rules = LAYERS[from];
    function check(node, source) {
      if (typeof source !== 'string') return;
      let why;
      if (source.startsWith('.')) {
        const target = layerOf(path.resolve(path.dirname(context.filename), source));
        if (target === undefined) why = 'outside src/';
        else if (target !== from && !rules.layers.includes(target)) why = `${from} may import ${rules.layers.join(', ') || 'only itself'}`;
      } else if (!packageAllowed(source, rules.packages)) {
        why = `${from} may use the packages ${rules.packages.join(', ') || 'none'}`;
      }
      if (why) context.report({ node, messageId: 'forbidden', data: { from: `src/${from}`, source, why } });
    }
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments[0]?.type === 'Literal') {
          check(node.arguments[0], node.arguments[0].value);
        }
      },
    };
  },
};
