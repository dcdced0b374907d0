// Code lenses on each ScheduleTrigger: how many pods its set holds, and the two things to do with
// it (commands the client implements: protocol/commands.ts).
import type { CodeLens } from 'vscode-languageserver';
import { Commands, type TriggerCommandArgs } from '../../protocol/commands';
import type { Analysis } from './analysis';
import { rangeIn } from './locate';
import { plural } from './words';

export function codeLenses(uri: string, analysis: Analysis): CodeLens[] {
  const file = analysis.file(uri);
  if (!file) return [];
  return file.model.triggers.flatMap((t) => {
    const { namespace, name, podSet } = t.value;
    const at = rangeIn(t, 'kind', 'key');
    const range = { start: at.start, end: at.start };
    const args: TriggerCommandArgs = { uri, trigger: { namespace, name }, podSet };
    const pods = analysis.podSet(namespace, podSet).length;
    const pending = analysis.plannedPodsOf(namespace, podSet).length;
    const count = `${plural(pods, 'pod')} in ${podSet}${pending !== pods ? ` (${pending} to place)` : ''}`;
    return [
      { range, command: { title: count, command: Commands.showPodSet, arguments: [args] } },
      { range, command: { title: 'Preview plan', command: Commands.previewPlan, arguments: [args] } },
      { range, command: { title: 'Schedule now', command: Commands.scheduleNow, arguments: [args] } },
    ];
  });
}
