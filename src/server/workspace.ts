// The server's workspace model: every YAML file of the workspace folders, read on its own. Open
// buffers win over what is on disk; editing one file re-reads that file only (manifests' readFile
// with the previous read, so only its changed documents are parsed again), and the combined model
// and its analysis are rebuilt lazily on the next question. No I/O here: the connection layer reads
// the disk and hands texts in.
import { TextDocument } from 'vscode-languageserver-textdocument';
import { combine, readFile, type FileModel, type WorkspaceModel } from '../manifests';
import { Analysis, EngineCache, type AnalysisOptions } from './service/analysis';

export interface SourceFile {
  readonly uri: string;
  readonly document: TextDocument;
  readonly model: FileModel;
}

/** One file's two possible sources: the disk and an editor buffer. */
interface Entry {
  disk?: SourceFile;
  buffer?: SourceFile;
}

export class Workspace {
  private readonly entries = new Map<string, Entry>();
  private combined: WorkspaceModel | undefined;
  private current: Analysis | undefined;
  private readonly engine = new EngineCache();
  /** Bumped on every change, so a caller can tell whether an answer is stale. */
  generation = 0;

  constructor(private readonly options: AnalysisOptions = {}) {}

  /** The file as the editor sees it: the buffer when open, else the disk's. */
  file(uri: string): SourceFile | undefined {
    const entry = this.entries.get(uri);
    return entry?.buffer ?? entry?.disk;
  }

  files(): SourceFile[] {
    const out: SourceFile[] = [];
    for (const entry of this.entries.values()) {
      const f = entry.buffer ?? entry.disk;
      if (f) out.push(f);
    }
    return out;
  }

  isOpen(uri: string): boolean {
    return this.entries.get(uri)?.buffer !== undefined;
  }

  /** A file read from disk (at start or after a watched change); ignored for the model while a buffer is open. */
  setDisk(uri: string, text: string): void {
    const entry = this.entry(uri);
    if (entry.disk?.document.getText() === text) return;
    entry.disk = this.read(uri, text, entry.disk?.document.version ?? 0, entry.disk ?? entry.buffer);
    if (!entry.buffer) this.changed();
  }

  deleteDisk(uri: string): void {
    const entry = this.entries.get(uri);
    if (!entry?.disk) return;
    delete entry.disk;
    if (!entry.buffer) this.entries.delete(uri);
    if (!entry.buffer) this.changed();
  }

  /** An editor opened or changed the file: its text wins from now on. */
  setBuffer(uri: string, text: string, version: number): void {
    const entry = this.entry(uri);
    const current = entry.buffer ?? entry.disk;
    if (current?.document.getText() === text) {
      entry.buffer = { ...current, document: TextDocument.create(uri, 'yaml', version, text) };
      return;
    }
    entry.buffer = this.read(uri, text, version, current);
    this.changed();
  }

  /** The editor closed the file: the disk's text is the file again (or it is gone, if never saved). */
  closeBuffer(uri: string): void {
    const entry = this.entries.get(uri);
    if (!entry?.buffer) return;
    const same = entry.disk?.document.getText() === entry.buffer.document.getText();
    delete entry.buffer;
    if (!entry.disk) this.entries.delete(uri);
    if (!same) this.changed();
  }

  /** The combined model of every file (rebuilt after a change, on first use). */
  model(): WorkspaceModel {
    return (this.combined ??= combine(this.files().map((f) => f.model)));
  }

  /** The analysis of the current model: indexes, the engine's view, checks; cached until the next change. */
  analysis(): Analysis {
    return (this.current ??= new Analysis(this.model(), (uri) => this.file(uri), this.engine, this.options));
  }

  private entry(uri: string): Entry {
    let entry = this.entries.get(uri);
    if (!entry) this.entries.set(uri, (entry = {}));
    return entry;
  }

  private read(uri: string, text: string, version: number, previous: SourceFile | undefined): SourceFile {
    return { uri, document: TextDocument.create(uri, 'yaml', version, text), model: readFile({ name: uri, text }, previous?.model) };
  }

  private changed(): void {
    this.generation++;
    this.combined = undefined;
    this.current = undefined;
  }
}
