// The command ids against package.json: every command the extension registers is contributed with a
// title in the Podplan category, and every id package.json names (menus, activation) is a command.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { CommandIds } from '../../src/extension/command-ids';
import { ViewIds } from '../../src/extension/views/ids';
import { Commands } from '../../src/protocol/commands';

interface Manifest {
  readonly activationEvents: readonly string[];
  readonly contributes: {
    readonly commands: ReadonlyArray<{ readonly command: string; readonly title: string; readonly category: string }>;
    readonly menus: Readonly<Record<string, ReadonlyArray<{ readonly command: string; readonly when?: string }>>>;
    readonly configuration: { readonly properties: Readonly<Record<string, unknown>> };
    readonly yamlValidation?: unknown;
    readonly views: Readonly<Record<string, ReadonlyArray<{ readonly id: string }>>>;
    readonly viewsContainers: { readonly activitybar: ReadonlyArray<{ readonly id: string; readonly icon: string }> };
    readonly walkthroughs: ReadonlyArray<{ readonly steps: ReadonlyArray<{ readonly media: { readonly markdown: string } }> }>;
  };
  readonly capabilities: { readonly untrustedWorkspaces: { readonly supported: string | boolean } };
}

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as Manifest;
const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
const ids = new Set<string>(Object.values(CommandIds));

describe('extension command ids and package.json', () => {
  it('contributes exactly the commands the extension registers', () => {
    assert.deepEqual([...contributed].sort(), [...ids].sort());
  });

  it('implements every command the server puts in code lenses', () => {
    for (const id of Object.values(Commands)) assert.ok(ids.has(id), id);
  });

  it('gives every command a title in the Podplan category', () => {
    for (const c of manifest.contributes.commands) {
      assert.equal(c.category, 'Podplan', c.command);
      assert.ok(c.title.length > 0, c.command);
    }
  });

  it('names only contributed commands in menus and onCommand activation', () => {
    const named = [
      ...Object.values(manifest.contributes.menus).flatMap((entries) => entries.map((e) => e.command)),
      ...manifest.activationEvents.filter((e) => e.startsWith('onCommand:')).map((e) => e.slice('onCommand:'.length)),
    ];
    for (const id of named) assert.ok(contributed.has(id), id);
  });

  it('offers the server-backed commands in the palette only while the server runs', () => {
    const palette = new Map(manifest.contributes.menus['commandPalette']?.map((e) => [e.command, e.when]));
    for (const id of [CommandIds.previewPlan, CommandIds.explainPod, CommandIds.showHistory, CommandIds.comparePlans])
      assert.equal(palette.get(id), 'podplan.serverRunning');
    // The count lens needs the trigger it was shown on.
    assert.equal(palette.get(CommandIds.showPodSet), 'false');
  });

  it('declares the settings the client and server read, the trace setting under the client id', () => {
    for (const key of ['podplan.trace.server', 'podplan.schedulerName', 'podplan.history.enabled', 'podplan.history.database']) {
      assert.ok(key in manifest.contributes.configuration.properties, key);
    }
  });

  it('supports untrusted workspaces in a limited way', () => {
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
  });

  it('attaches no schema by file name (they are offered to the YAML extension by kind instead)', () => {
    assert.equal(manifest.contributes.yamlValidation, undefined);
  });

  it('puts the three trees in a Podplan view container whose icon and walkthrough pages exist', () => {
    assert.deepEqual(
      manifest.contributes.views['podplan']?.map((v) => v.id),
      [ViewIds.podSets, ViewIds.plans, ViewIds.cluster],
    );
    for (const c of manifest.contributes.viewsContainers.activitybar) assert.ok(existsSync(c.icon), c.icon);
    for (const step of manifest.contributes.walkthroughs.flatMap((w) => w.steps))
      assert.ok(existsSync(step.media.markdown), step.media.markdown);
  });
});
