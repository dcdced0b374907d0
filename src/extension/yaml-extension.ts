// Registers our schema with the Red Hat YAML extension when it is installed (yaml-schemas.ts says
// what is offered and why). Without it nothing happens: our server validates on its own.
import { readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import { contributedSchema, holdsOurKinds, OFFERED, SCHEMA_SCHEME, SCHEMA_URI, type YamlExtensionApi } from './yaml-schemas';
import { errorMessage } from '../protocol/errors';

export const YAML_EXTENSION_ID = 'redhat.vscode-yaml';

async function schemaText(extension: vscode.ExtensionContext): Promise<string> {
  const schemas: Record<string, never> = {};
  for (const o of OFFERED) schemas[o.kind] = JSON.parse(await readFile(extension.asAbsolutePath(`schemas/${o.file}`), 'utf8')) as never;
  return JSON.stringify(contributedSchema(schemas));
}

/** Offers the schema once the YAML extension is there (now, or when it is installed or enabled later). */
export function offerSchemasToYamlExtension(extension: vscode.ExtensionContext, output: vscode.LogOutputChannel): vscode.Disposable {
  let offered = false;
  const tryOffer = async () => {
    const yaml = vscode.extensions.getExtension<YamlExtensionApi>(YAML_EXTENSION_ID);
    if (offered || !yaml) return;
    offered = true;
    try {
      const api = await yaml.activate();
      const content = await schemaText(extension);
      const requestSchema = (resource: string) => {
        const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === resource);
        return document && holdsOurKinds(document.getText()) ? SCHEMA_URI : undefined;
      };
      api.registerContributor(SCHEMA_SCHEME, requestSchema, (uri) => (uri === SCHEMA_URI ? content : undefined), 'Podplan');
      output.info(`schemas for ScheduleTrigger and SchedulePlan offered to ${YAML_EXTENSION_ID} by kind and apiVersion`);
    } catch (e) {
      output.warn(`offering schemas to ${YAML_EXTENSION_ID} failed: ${errorMessage(e)}`);
    }
  };
  void tryOffer();
  return vscode.extensions.onDidChange(() => void tryOffer());
}
