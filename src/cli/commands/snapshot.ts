// `podplan snapshot`: what Podplan reads from a kube context, written as YAML files that every
// other command reads back to the same model (the same objects, cleaned the same way, in the same
// order). Credentials are not in it: Secrets are never read, and managedFields, the
// last-applied-configuration annotation and literal env values are dropped (src/kube/objects.ts).
import path from 'node:path';
import { stringify } from 'yaml';
import { snapshotFile, type TypedObject } from '../../kube';
import { parseCommand } from '../arguments';
import { EXIT, type Command } from '../io';
import { readContext, sourceHelp, SOURCE_OPTIONS } from '../source';
import { errorMessage } from '../../engine/api/errors';

const HELP = `Usage: podplan snapshot --context NAME [--kubeconfig file] [-n NAMESPACE] -o DIR

Reads the cluster of a kube context (read only) and writes what Podplan reads as YAML files under
DIR: cluster-scoped kinds in DIR/<kind>.yaml (nodes, namespaces, priorityclasses, storageclasses,
csinodes, csidrivers, persistentvolumes), namespaced ones in DIR/<namespace>/<kind>.yaml (pods,
persistentvolumeclaims, poddisruptionbudgets, csistoragecapacities, scheduletriggers,
scheduleplans). Every other
command reads DIR back to the same result as the context: attach it to a bug report, or plan
offline. Existing files of those names are replaced; nothing else in DIR is touched (other YAML
files there are named in a warning: commands reading DIR would read them too).

Left out: Secrets (never read), managedFields, the kubectl.kubernetes.io/last-applied-configuration
annotation and containers' literal env values (they may hold credentials). Kinds the context may
not list are reported and left out.

Options:
${sourceHelp(23)}
  -n, --namespace <ns> only this namespace's namespaced objects (cluster-scoped kinds are whole)
  -o, --output <dir>   the directory to write
  -h, --help           this help

Exit codes: 0 written, 2 bad input or the cluster could not be read.

Example:
  podplan snapshot --context prod -n batch -o prod-snapshot && podplan schedule prod-snapshot
`;

/** The files of a snapshot (relative path → YAML text), objects in the order they are read back. */
export function snapshotFiles(objects: readonly TypedObject[], context: string): Map<string, string> {
  const byFile = new Map<string, string[]>();
  for (const { resource, object } of objects) {
    const file = snapshotFile(resource, object);
    let docs = byFile.get(file);
    if (!docs) byFile.set(file, (docs = []));
    docs.push(stringify(object, { lineWidth: 0 }));
  }
  const header = `# Podplan snapshot of kube context ${context}\n`;
  return new Map([...byFile].map(([file, docs]) => [file, header + docs.map((d) => `---\n${d}`).join('')]));
}

export const snapshot: Command = {
  name: 'snapshot',
  summary: 'write what Podplan reads from a kube context as YAML files',
  help: HELP,
  async run(args, io) {
    const parsed = parseCommand(
      'snapshot',
      args,
      { ...SOURCE_OPTIONS, namespace: { type: 'string', short: 'n' }, output: { type: 'string', short: 'o' } },
      0,
      io,
    );
    if (!parsed) return EXIT.badInput;
    const { values } = parsed;
    const fail = (message: string) => {
      io.stderr(`podplan snapshot: ${message}\n`);
      return EXIT.badInput;
    };
    if (values.output === undefined) return fail(`-o DIR is required\n\n${HELP}`);
    if (values.context === undefined && values.kubeconfig === undefined)
      return fail(`--context NAME is required (or --kubeconfig FILE for its current context)\n\n${HELP}`);
    const read = await readContext(parsed, io, values.namespace);
    if (!read.ok) return fail(read.error);
    for (const w of read.value.read.warnings) io.stderr(`warning: ${w}\n`);
    const dir = path.resolve(io.cwd, values.output);
    const files = snapshotFiles(read.value.read.objects, read.value.context.context);
    // YAML files already in DIR that this snapshot does not replace would be read back with it.
    const written = new Set([...files.keys()].map((f) => path.join(dir, f)));
    const others = (await io.yamlFiles(dir).catch(() => [])).filter((f) => !written.has(path.resolve(io.cwd, f)));
    if (others.length > 0)
      io.stderr(`warning: ${dir} holds other YAML files, which commands reading it will read too: ${others.join(', ')}\n`);
    try {
      for (const [file, text] of files) await io.writeFile(path.join(dir, file), text);
    } catch (error) {
      return fail(`writing ${dir}: ${errorMessage(error)}`);
    }
    io.stdout(
      `Wrote ${read.value.read.objects.length} objects of context ${read.value.context.context} in ${files.size} files under ${dir}.\n`,
    );
    return EXIT.ok;
  },
};
