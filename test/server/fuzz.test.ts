// Thousands of mutated YAML documents fed to the real server over stdio: truncations, wrong types,
// huge numbers, odd unicode, anchors and aliases, deep nesting. After each change the server is
// asked what an editor asks at random places; it must answer every request, never log an error,
// and never exit. Seeded, so a failure replays.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  CodeActionRequest,
  CodeLensRequest,
  CompletionRequest,
  DefinitionRequest,
  DocumentSymbolRequest,
  HoverRequest,
  LogMessageNotification,
  MessageType,
  ReferencesRequest,
  type Position,
} from 'vscode-languageserver-protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { seededRandom, type Random } from '../../src/engine/api/random';
import { ExplainPodRequest, PreviewPlanRequest, ScheduleNowRequest, WorkspaceSummaryRequest } from '../../src/protocol/requests';
import { startLspSession, type LspSession } from './lsp-client';

const ITERATIONS = 2000;

const FIXTURES = ['test/fixtures/workspaces/cluster', 'test/fixtures/workspaces/problems'].flatMap((dir) =>
  readdirSync(dir).map((f) => readFileSync(path.join(dir, f), 'utf8')),
);

const ODD_VALUES = [
  '[]',
  '{}',
  '~',
  'null',
  '-1',
  '1e400',
  '99999999999999999999999999999',
  '0x7fffffffffffffffff',
  '"99999999999999999999Ei"',
  'true',
  '.nan',
  '!!binary aGVsbG8=',
  '!!timestamp 2001-12-14t21:59:43.10-05:00',
  '*nowhere',
  '&a [*a]',
  '"\\u0000\\u202e\\ud800"',
  '|\n  multi\n  line',
  '>-\n  folded',
  '? complex\n: key',
  '"𝒳𝒴𝒵 µs ١٢٣"',
  "'quoted '' twice'",
  '- a\n- b',
  '{a: [b, {c: d}]}',
  '2m0s',
  'Schedule',
  'node-1',
  'batch-0',
];

const ODD_TEXT = [
  '\u202e',
  '\ufeff',
  '\u200b',
  '\ud83d\ude00',
  '\ud800',
  'µ',
  '\t',
  '\r\n',
  '\0',
  '#',
  ': ',
  '- ',
  '---\n',
  '...\n',
  '&x ',
  '*x',
  '!',
  '%YAML 1.2\n',
  '{',
  '[',
  '"',
  "'",
];

const ALIAS_BOMB =
  'a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n';

const pick = <T>(random: Random, list: readonly T[]): T => list[random.int(list.length)] as T;

function mutate(text: string, random: Random): string {
  const lines = text.split('\n');
  const line = random.int(Math.max(1, lines.length));
  switch (random.int(11)) {
    case 0:
      return text.slice(0, random.int(text.length + 1));
    case 1: {
      // A value replaced by one of another type or size.
      const at = lines[line] ?? '';
      const colon = at.indexOf(': ');
      if (colon >= 0) lines[line] = `${at.slice(0, colon + 2)}${pick(random, ODD_VALUES)}`;
      return lines.join('\n');
    }
    case 2: {
      const offset = random.int(text.length + 1);
      return text.slice(0, offset) + pick(random, ODD_TEXT) + text.slice(offset);
    }
    case 3:
      lines.splice(line, 1);
      return lines.join('\n');
    case 4:
      lines.splice(line, 0, lines[random.int(lines.length)] ?? '');
      return lines.join('\n');
    case 5:
      lines[line] = ' '.repeat(random.int(9)) + (lines[line] ?? '').trimStart();
      return lines.join('\n');
    case 6:
      return `${text}\n${ALIAS_BOMB}`;
    case 7: {
      const depth = 50 + random.int(2000);
      return random.int(2) === 0
        ? `${text}\ndeep: ${'['.repeat(depth)}${']'.repeat(depth)}\n`
        : `${text}\n${Array.from({ length: depth / 10 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n')} v\n`;
    }
    case 8:
      return text.replace(
        /kind: \w+/,
        `kind: ${pick(random, ['ScheduleTrigger', 'SchedulePlan', 'KubeSchedulerConfiguration', 'Pod', 'Node', 'Job', 'List'])}`,
      );
    case 9:
      return text.replace(
        /cpu: [^,}\n]+/,
        `cpu: ${pick(random, ['"1e400"', '"-3"', '99999999999999999999Ei', '"0.0000000001"', '[]', '"abc"'])}`,
      );
    default: {
      const offset = random.int(text.length + 1);
      const noise = Array.from({ length: 1 + random.int(12) }, () => String.fromCharCode(random.int(0x3000))).join('');
      return text.slice(0, offset) + noise + text.slice(offset + random.int(8));
    }
  }
}

describe('server fuzz (over stdio): thousands of mutated documents', () => {
  let session: LspSession;
  const failures: string[] = [];
  before(async () => {
    session = await startLspSession('test/fixtures/workspaces/cluster', { historyDatabase: false });
    // The server logs at error level only when something failed that should not have.
    session.connection.onNotification(LogMessageNotification.type, (p) => {
      if (p.type === MessageType.Error) failures.push(p.message);
    });
  });
  after(async () => session.shutdown());

  it('answers every request and never exits', async function () {
    // About 30 s on a loaded two-core machine; the limit only stops a hung server.
    this.timeout(180_000);
    const random = seededRandom(20240521);
    const uris = ['fuzz-a.yaml', 'fuzz-b.yaml', 'plan.yaml', 'podsets.yaml', 'workloads.yaml'].map((f) => session.uri(f));
    const started = Date.now();
    let requests = 0;
    for (let i = 0; i < ITERATIONS; i++) {
      let text = pick(random, FIXTURES);
      for (let m = 1 + random.int(3); m > 0; m--) text = mutate(text, random);
      const uri = pick(random, uris);
      await session.edit(uri, text);
      const doc = TextDocument.create(uri, 'yaml', 0, text);
      const position = (): Position => doc.positionAt(random.int(text.length + 1));
      const textDocument = { uri };
      const asked: Array<Promise<unknown>> = [
        session.connection.sendRequest(CompletionRequest.type, { textDocument, position: position() }),
        session.connection.sendRequest(HoverRequest.type, { textDocument, position: position() }),
        session.connection.sendRequest(CodeActionRequest.type, {
          textDocument,
          range: { start: position(), end: position() },
          context: { diagnostics: session.diagnostics(uri) ?? [] },
        }),
      ];
      switch (i % 6) {
        case 0:
          asked.push(
            session.connection.sendRequest(DocumentSymbolRequest.type, { textDocument }),
            session.connection.sendRequest(CodeLensRequest.type, { textDocument }),
          );
          break;
        case 1:
          asked.push(session.connection.sendRequest(DefinitionRequest.type, { textDocument, position: position() }));
          break;
        case 2:
          asked.push(
            session.connection.sendRequest(ReferencesRequest.type, {
              textDocument,
              position: position(),
              context: { includeDeclaration: true },
            }),
          );
          break;
        case 3:
          asked.push(session.connection.sendRequest(PreviewPlanRequest.method, { trigger: { namespace: 'jobs', name: 'nightly' } }));
          break;
        case 4:
          asked.push(
            session.connection.sendRequest(ExplainPodRequest.method, { pod: { namespace: 'jobs', name: 'batch-0' } }),
            session.connection.sendRequest(WorkspaceSummaryRequest.method),
          );
          break;
        default:
          asked.push(session.connection.sendRequest(ScheduleNowRequest.method, { trigger: { namespace: 'jobs', name: 'nightly' } }));
      }
      await Promise.all(asked);
      requests += asked.length;
      assert.equal(session.process.exitCode, null, `the server exited after document ${i}`);
    }
    for (const uri of uris) await session.close(uri);
    assert.deepEqual(failures, [], `handlers failed:\n${failures.slice(0, 5).join('\n')}`);
    assert.equal(session.process.exitCode, null);
    assert.doesNotMatch(session.stderr(), /uncaught|unhandled/i);
    // The figures, for the record (not asserted).
    console.log(`      ${ITERATIONS} documents, ${requests} requests in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
});
